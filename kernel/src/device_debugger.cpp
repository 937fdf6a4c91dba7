#include "device_debugger.hpp"

#include <iostream>
#include <mutex>
#include <utility>

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>
#include <xeus/xauthentication.hpp>
#include <xeus/xmessage.hpp>
#include <xeus/xmiddleware.hpp>
#include <xeus/xzmq_serializer.hpp>
#include <zmq_addon.hpp>

namespace py = pybind11;

namespace xcuda::kernel
{
    // What the Python half's publish function reaches: gone (socket closed, target cleared) once
    // the debugger is destroyed, before the ZeroMQ context ends, however long Python keeps it.
    struct device_debugger::sink
    {
        std::mutex mutex;
        std::unique_ptr<zmq::socket_t> publisher;
        std::unique_ptr<xeus::xauthentication> auth;
        bookkeeping record;
        std::string user_name;
        std::string session_id;
        nl::json parent_header = nl::json::object();

        void publish(const nl::json& event)
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (!publisher)
            {
                return;
            }
            record(event);
            xeus::xpub_message message("debug_event", xeus::make_header("debug_event", user_name, session_id),
                                       parent_header, nl::json::object(), event, xeus::buffer_sequence());
            zmq::multipart_t wire = xeus::xzmq_serializer::serialize_iopub(std::move(message), *auth);
            wire.send(*publisher);
        }
    };

    namespace
    {
        py::object device_glue()
        {
            return py::module_::import("xcuda._device_debugger");
        }
    }

    device_debugger::device_debugger(zmq::context_t& context, const xeus::xconfiguration& config, std::string user_name,
                                     std::string session_id, bookkeeping record)
        : m_sink(std::make_shared<sink>())
    {
        m_sink->publisher = std::make_unique<zmq::socket_t>(context, zmq::socket_type::pub);
        m_sink->publisher->set(zmq::sockopt::linger, xeus::get_socket_linger());
        m_sink->publisher->connect(xeus::get_publisher_end_point());
        m_sink->auth = xeus::make_xauthentication(config.m_signature_scheme, config.m_key);
        m_sink->record = std::move(record);
        m_sink->user_name = std::move(user_name);
        m_sink->session_id = std::move(session_id);
    }

    device_debugger::~device_debugger()
    {
        std::lock_guard<std::mutex> lock(m_sink->mutex);
        m_sink->publisher.reset();
        m_sink->record = nullptr;
    }

    void device_debugger::start(const std::string& cell_prefix)
    {
        py::gil_scoped_acquire acquire;
        std::function<void(const nl::json&)> publish = [sink = m_sink](const nl::json& event) {
            py::gil_scoped_release release;  // the control thread may need the GIL to answer meanwhile
            sink->publish(event);
        };
        py::object glue = device_glue();
        m_device_thread = glue.attr("DEVICE_THREAD").cast<int>();
        glue.attr("start")(py::cpp_function([publish](py::object event) { publish(event.cast<nl::json>()); }),
                           cell_prefix);
    }

    void device_debugger::stop()
    {
        py::gil_scoped_acquire acquire;
        device_glue().attr("stop")();
    }

    void device_debugger::set_parent_header(const nl::json& header)
    {
        std::lock_guard<std::mutex> lock(m_sink->mutex);
        m_sink->parent_header = header;
    }

    std::optional<nl::json> device_debugger::handle(const nl::json& request, const std::set<int>& stopped_threads)
    {
        // Only a stop of the device thread has device frames, scopes and variables. While Python
        // threads are stopped, this control thread runs no Python: debugpy on Python 3.12
        // (sys.monitoring, for every thread) would suspend it too, and the request would never be
        // answered.
        if (stopped_threads.count(m_device_thread) == 0)
        {
            return std::nullopt;
        }
        py::gil_scoped_acquire acquire;
        py::object glue = device_glue();
        nl::json retargeted = request;
        if (request.value("command", "") == "continue")
        {
            const int device_thread = m_device_thread;
            const nl::json& arguments = request.contains("arguments") ? request["arguments"] : nl::json::object();
            const int thread = arguments.is_object() ? arguments.value("threadId", 0) : 0;
            if (stopped_threads.count(thread) == 0 && stopped_threads.count(device_thread) != 0)
            {
                retargeted["arguments"]["threadId"] = device_thread;
            }
        }
        py::object message = py::cast(retargeted);
        if (!glue.attr("owns")(message).cast<bool>())
        {
            return std::nullopt;
        }
        return glue.attr("handle")(message).cast<nl::json>();
    }

    nl::json device_debugger::set_breakpoints(const nl::json& request, const nl::json& debugpy_reply)
    {
        py::gil_scoped_acquire acquire;
        return device_glue().attr("set_breakpoints")(py::cast(request), py::cast(debugpy_reply)).cast<nl::json>();
    }
}
