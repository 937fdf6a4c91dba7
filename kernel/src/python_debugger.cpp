#include "python_debugger.hpp"
#include "device_debugger.hpp"
#include "stopped_frame_variables.hpp"

#include <cerrno>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>
#include <xeus/xdap_tcp_client.hpp>
#include <xeus/xdebugger_base.hpp>
#include <xeus/xmiddleware.hpp>
#include <xeus/xsystem.hpp>
#include <zmq.hpp>

namespace py = pybind11;

namespace xcuda::kernel
{
    namespace
    {
        // Where debugpy listens: loopback only, in the range xeus-python and ipykernel use.
        const std::string debugpy_host = "127.0.0.1";

        std::string tmp_prefix()
        {
            return xeus::get_tmp_prefix("xcuda");
        }

        const std::string tmp_suffix = ".py";

        // The one DAP client of a started session: forwards requests to debugpy over TCP and
        // publishes debugpy's events on IOPub (xeus does both; this only says which events).
        class debugpy_client final : public xeus::xdap_tcp_client
        {
        public:
            debugpy_client(zmq::context_t& context, const xeus::xconfiguration& config,
                           const xeus::xdap_tcp_configuration& dap_config, const event_callback& callback)
                : xeus::xdap_tcp_client(context, config, xeus::get_socket_linger(), dap_config, callback)
            {}

        private:
            void handle_event(nl::json message) override { forward_event(std::move(message)); }
        };

        // The event callback may fire on the client's thread after the debugger is gone (at
        // shutdown, until the ZeroMQ context ends that thread): it reaches the debugger only
        // while this says it is alive.
        struct event_sink
        {
            std::mutex mutex;
            std::function<void(const nl::json&)> target;
        };

        nl::json dap_response(const nl::json& request, bool success)
        {
            nl::json reply = {{"type", "response"},
                              {"request_seq", request.is_object() ? request.value("seq", nl::json(0)) : nl::json(0)},
                              {"success", success},
                              {"command", request.is_object() ? request.value("command", nl::json("")) : nl::json("")}};
            return reply;
        }

        nl::json dap_failure(const nl::json& request, const std::string& why)
        {
            nl::json reply = dap_response(request, false);
            reply["message"] = why;
            reply["body"] = {{"error", {{"id", 1}, {"format", why}}}};
            return reply;
        }

        // Why a debug_request's content is not a DAP request xeus can handle, or "".
        std::string dap_request_problem(const nl::json& message)
        {
            if (!message.is_object())
            {
                return "a debug_request's content must be a DAP request object";
            }
            auto command = message.find("command");
            if (command == message.end() || !command->is_string())
            {
                return "a DAP request needs a string 'command' (initialize, attach, setBreakpoints, ...)";
            }
            auto seq = message.find("seq");
            if (seq == message.end() || !seq->is_number_integer())
            {
                return "a DAP request needs an integer 'seq'";
            }
            auto arguments = message.find("arguments");
            if (arguments != message.end() && !arguments->is_object())
            {
                return "a DAP request's 'arguments' must be an object";
            }
            return {};
        }

        py::object debugger_glue()
        {
            return py::module_::import("xcuda._python_debugger");
        }

        class python_debugger final : public xeus::xdebugger_base
        {
        public:
            python_debugger(zmq::context_t& context, const xeus::xconfiguration& config, std::string user_name,
                            std::string session_id)
                : xeus::xdebugger_base(context)
                , m_context(context)
                , m_config(config)
                , m_user_name(std::move(user_name))
                , m_session_id(std::move(session_id))
                , m_events(std::make_shared<event_sink>())
            {
                m_events->target = get_event_callback();
                m_device = std::make_unique<device_debugger>(context, config, m_user_name, m_session_id,
                                                             [events = m_events](const nl::json& event) {
                                                                 std::lock_guard<std::mutex> lock(events->mutex);
                                                                 if (events->target)
                                                                 {
                                                                     events->target(event);
                                                                 }
                                                             });
                register_request_handler(
                    "inspectVariables", [this](const nl::json& m) { return inspect_variables(m); }, false);
                register_request_handler(
                    "richInspectVariables", [this](const nl::json& m) { return rich_inspect_variables(m); }, false);
                register_request_handler(
                    "attach", [this](const nl::json& m) { return attach(m); }, true);
                register_request_handler(
                    "stackTrace", [this](const nl::json& m) { return stack_trace(m); }, true);
                // JupyterLab sends it after its breakpoints; debugpy was configured by attach.
                register_request_handler(
                    "configurationDone", [](const nl::json& m) { return dap_response(m, true); }, true);
                register_request_handler(
                    "setBreakpoints",
                    [this](const nl::json& m) { return m_device->set_breakpoints(m, set_breakpoints_request(m)); },
                    true);
                // The device thread's requests are the device half's; the rest debugpy's.
                for (const char* command : {"scopes", "evaluate", "next", "stepIn", "stepOut", "continue", "pause"})
                {
                    register_request_handler(
                        command,
                        [this](const nl::json& m) {
                            if (auto reply = m_device->handle(m, stopped_threads()))
                            {
                                return *reply;
                            }
                            return forward_message(m);
                        },
                        true);
                }
            }

            ~python_debugger() override
            {
                std::lock_guard<std::mutex> lock(m_events->mutex);
                m_events->target = nullptr;
            }

            // Why `initialize` failed, for the reply (xeus's own says only success false).
            const std::string& start_failure() const { return m_start_failure; }

            // A copy: xeus changes the set on the client's thread as debugpy's events come.
            std::set<int> stopped_threads() const { return get_stopped_threads(); }

            // The debug_request being answered: the device's events name it as their parent.
            void note_request_header(const nl::json& header) { m_device->set_parent_header(header); }

        private:
            nl::json attach(const nl::json& message)
            {
                nl::json request = message;
                request["arguments"]["connect"] = {{"host", debugpy_host}, {"port", std::stoi(m_debugpy_port)}};
                return forward_message(request);
            }

            // The frames of the cells and what they call, without the kernel's own below them
            // (IPython's run_cell, xcuda's __main__...), which a user cannot act on.
            nl::json stack_trace(const nl::json& message)
            {
                if (auto reply = m_device->handle(message, stopped_threads()))
                {
                    return *reply;
                }
                nl::json reply = stack_trace_request(message);
                if (!reply.contains("body") || !reply["body"].contains("stackFrames")
                    || !reply["body"]["stackFrames"].is_array())
                {
                    return reply;
                }
                nl::json* frames = &reply["body"]["stackFrames"];
                const std::string prefix = tmp_prefix();
                std::size_t keep = 0;
                for (std::size_t i = 0; i < frames->size(); ++i)
                {
                    const nl::json& frame = (*frames)[i];
                    std::string path;
                    if (frame.contains("source") && frame["source"].is_object())
                    {
                        path = frame["source"].value("path", "");
                    }
                    if (path.compare(0, prefix.size(), prefix) == 0)
                    {
                        keep = i + 1;  // the outermost cell frame seen so far
                    }
                }
                if (keep > 0)
                {
                    frames->erase(frames->begin() + static_cast<std::ptrdiff_t>(keep), frames->end());
                    reply["body"]["totalFrames"] = keep;
                }
                return reply;
            }

            nl::json inspect_variables(const nl::json& message)
            {
                if (!get_stopped_threads().empty())
                {
                    // The globals are read in Python, which must not run here during a stop
                    // (stopped_frame_variables.hpp says why); the stopped frames have them.
                    return dap_failure(message, "a cell is stopped at a breakpoint: the notebook's variables are "
                                                "in the stopped frames (the <module> frame's Locals); continue "
                                                "the cell to list them here");
                }
                py::gil_scoped_acquire acquire;
                return debugger_glue().attr("inspect_variables")(py::object(py::cast(message))).cast<nl::json>();
            }

            nl::json rich_inspect_variables(const nl::json& message)
            {
                if (auto reply = m_device->handle(message, stopped_threads()))
                {
                    return *reply;
                }
                const std::string name = message["arguments"].value("variableName", "");
                if (get_stopped_threads().empty())
                {
                    // Not stopped: the notebook's namespace, read in Python.
                    py::gil_scoped_acquire acquire;
                    return debugger_glue()
                        .attr("rich_inspect_variables")(py::object(py::cast(message)))
                        .cast<nl::json>();
                }
                if (!is_python_name(name))
                {
                    // debugpy's groupings ("special variables") are not variables: nothing to render.
                    nl::json reply = dap_response(message, name == "special variables" || name == "function variables");
                    reply["body"] = {{"data", nl::json::object()}, {"metadata", nl::json::object()}};
                    return reply;
                }
                if (!message["arguments"].contains("frameId"))
                {
                    return dap_failure(message, "a cell is stopped at a breakpoint: say which frame's `" + name
                                                    + "` to render (richInspectVariables' frameId)");
                }
                // Stopped at a breakpoint, the value lives in a frame only debugpy can reach:
                // it renders it there, and the JSON text comes back here to be read. Only a
                // name is evaluated in the frame: anything else would run as code there.
                nl::json evaluated = forward_message(
                    rendering_request(name, message["arguments"]["frameId"], message["seq"].get<int>() + 1));
                rendering shown = read_rendering(name, evaluated);
                nl::json reply = dap_response(message, shown.problem.empty());
                if (shown.problem.empty())
                {
                    reply["body"] = {{"data", std::move(shown.data)}, {"metadata", std::move(shown.metadata)}};
                }
                else
                {
                    reply["message"] = shown.problem;
                    reply["body"] = {{"data", nl::json::object()}, {"metadata", nl::json::object()}};
                }
                return reply;
            }

            nl::json variables_request_impl(const nl::json& message) override
            {
                if (auto reply = m_device->handle(message, stopped_threads()))
                {
                    return *reply;
                }
                if (get_stopped_threads().empty())
                {
                    // Not stopped: the notebook's globals, as inspectVariables listed them.
                    py::gil_scoped_acquire acquire;
                    return debugger_glue().attr("variables")(py::object(py::cast(message))).cast<nl::json>();
                }
                return without_kernel_names(message, xeus::xdebugger_base::variables_request_impl(message));
            }

            // debugpy must be started by the thread that runs the cells (its tracing is set
            // per thread): the shell thread does it between requests.
            bool listen()
            {
                if (!m_debugpy_port.empty())
                {
                    return true;
                }
                std::string port = xeus::find_free_port(100, 5678, 5900);
                nl::json reply = get_control_messenger().send_to_shell(
                    {{"xcuda_debugpy_listen", {{"host", debugpy_host}, {"port", std::stoi(port)}}}});
                if (reply.value("status", "") != "ok")
                {
                    m_start_failure = reply.value("evalue", std::string("debugpy could not be started"));
                    return false;
                }
                m_debugpy_port = port;
                return true;
            }

            bool start(zmq::socket_t& header_socket, zmq::socket_t& request_socket) override
            {
                m_start_failure.clear();
                if (!listen())
                {
                    return false;
                }
                // A fresh client and endpoints for each session (JupyterLab stops and starts
                // the debugger as its toggle is pressed); xeus's client thread has no way to
                // stop, so an earlier one waits, unreachable, until the context ends it.
                ++m_generation;
                const std::string suffix = "_" + std::to_string(m_generation);
                m_request_end_point = xeus::get_controller_end_point("xcuda_debugger" + suffix);
                m_header_end_point = xeus::get_controller_end_point("xcuda_debugger_header" + suffix);
                request_socket.bind(m_request_end_point);
                header_socket.bind(m_header_end_point);

                auto client = std::make_unique<debugpy_client>(
                    m_context, m_config,
                    xeus::xdap_tcp_configuration(xeus::dap_tcp_type::client, xeus::dap_init_type::parallel, m_user_name,
                                                 m_session_id),
                    [events = m_events](const nl::json& event) {
                        std::lock_guard<std::mutex> lock(events->mutex);
                        if (events->target)
                        {
                            events->target(event);
                        }
                    });
                std::thread([client = std::move(client), tcp = "tcp://" + debugpy_host + ":" + m_debugpy_port,
                             requests = m_request_end_point, headers = m_header_end_point]() mutable {
                    try
                    {
                        client->start_debugger(tcp, xeus::get_publisher_end_point(), requests, headers);
                    }
                    catch (const zmq::error_t& e)
                    {
                        // ETERM: the kernel is ending. The client closes its sockets here,
                        // on its own thread, so the context can end.
                        if (e.num() != ETERM)
                        {
                            std::clog << "xcuda: the debugger's connection to debugpy failed: " << e.what()
                                      << std::endl;
                        }
                    }
                    catch (const std::exception& e)
                    {
                        std::clog << "xcuda: the debugger's connection to debugpy failed: " << e.what() << std::endl;
                    }
                }).detach();
                // The client answers once it is connected to debugpy.
                request_socket.send(zmq::message_t("REQ", 3), zmq::send_flags::none);
                zmq::message_t ack;
                (void)request_socket.recv(ack);
                xeus::create_directory(tmp_prefix());
                m_device->start(tmp_prefix());
                return true;
            }

            void stop(zmq::socket_t& header_socket, zmq::socket_t& request_socket) override
            {
                m_device->stop();
                request_socket.unbind(m_request_end_point);
                header_socket.unbind(m_header_end_point);
            }

            xeus::xdebugger_info get_debugger_info() const override
            {
                return xeus::xdebugger_info(xeus::get_tmp_hash_seed(), tmp_prefix(), tmp_suffix, true,
                                            {"Python Exceptions"});
            }

            std::string get_cell_temporary_file(const std::string& code) const override { return cell_file_name(code); }

            zmq::context_t& m_context;
            xeus::xconfiguration m_config;
            std::string m_user_name;
            std::string m_session_id;
            std::shared_ptr<event_sink> m_events;
            std::unique_ptr<device_debugger> m_device;
            std::string m_debugpy_port;  // empty until debugpy listens
            std::string m_start_failure;
            int m_generation = 0;
            std::string m_request_end_point;
            std::string m_header_end_point;
        };

        // What the kernel core talks to: checks each request, and makes sure it is answered.
        class answering_debugger final : public xeus::xdebugger
        {
        public:
            explicit answering_debugger(std::unique_ptr<python_debugger> debugger)
                : m_debugger(std::move(debugger))
            {}

        private:
            nl::json process_request_impl(const nl::json& header, const nl::json& message) override
            {
                if (std::string problem = dap_request_problem(message); !problem.empty())
                {
                    return dap_failure(message, problem);
                }
                if (!m_messenger_shared)
                {
                    m_debugger->register_control_messenger(get_control_messenger());
                    m_messenger_shared = true;
                }
                const std::string command = message["command"];
                nl::json reply;
                try
                {
                    m_debugger->note_request_header(header);
                    reply = m_debugger->process_request(header, message);
                }
                catch (const std::exception& e)
                {
                    return dap_failure(message, "the xcuda kernel failed while handling the debugger's `" + command
                                                    + "` request: " + e.what());
                }
                if (command == "initialize" && reply.value("success", true) == false)
                {
                    return dap_failure(message, m_debugger->start_failure());
                }
                if (reply.empty())
                {
                    return dap_failure(message, "the debugger is not running: `" + command
                                                    + "` needs `initialize` (and `attach`) first");
                }
                return reply;
            }

            std::unique_ptr<python_debugger> m_debugger;
            bool m_messenger_shared = false;
        };
    }

    std::string cell_file_name(const std::string& code)
    {
        return xeus::get_cell_tmp_file(tmp_prefix(), code, tmp_suffix);
    }

    std::unique_ptr<xeus::xdebugger> make_python_debugger(xeus::xcontext& context, const xeus::xconfiguration& config,
                                                          const std::string& user_name, const std::string& session_id,
                                                          const nl::json& /*debugger_config*/)
    {
        return std::make_unique<answering_debugger>(std::make_unique<python_debugger>(
            context.get_wrapped_context<zmq::context_t>(), config, user_name, session_id));
    }
}
