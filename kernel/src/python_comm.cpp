#include "python_comm.hpp"

#include <memory>
#include <set>
#include <string>
#include <utility>

#include <pybind11_json/pybind11_json.hpp>
#include <xeus/xcomm.hpp>
#include <xeus/xinterpreter.hpp>

namespace py = pybind11;
namespace nl = nlohmann;
using namespace pybind11::literals;

namespace xcuda::kernel
{
    namespace
    {
        // A Python callable kept by xeus (a std::function): xeus may drop it from a thread
        // that does not hold the GIL, so the reference is released under the GIL.
        class python_callback
        {
        public:
            explicit python_callback(py::object fn)
                : m_fn(std::move(fn))
            {}
            python_callback(const python_callback&) = delete;
            python_callback& operator=(const python_callback&) = delete;
            ~python_callback()
            {
                py::gil_scoped_acquire acquire;
                m_fn = py::object();
            }

            // Runs on the shell thread; an exception in the callback is the library's, shown
            // on the cell's stderr as ipykernel shows it, and the kernel goes on.
            template <class... Args>
            void operator()(Args&&... args) const
            {
                py::gil_scoped_acquire acquire;
                try
                {
                    m_fn(std::forward<Args>(args)...);
                }
                catch (py::error_already_set& e)
                {
                    e.restore();
                    PyErr_Print();
                }
            }

        private:
            py::object m_fn;
        };

        xeus::buffer_sequence to_buffers(const py::object& buffers)
        {
            xeus::buffer_sequence result;
            if (buffers.is_none())
            {
                return result;
            }
            for (py::handle buffer : buffers)
            {
                // bytes, bytearray, memoryview, numpy arrays: anything with the buffer protocol
                py::buffer_info info = py::reinterpret_borrow<py::buffer>(buffer).request();
                const char* data = static_cast<const char*>(info.ptr);
                result.emplace_back(data, data + info.size * info.itemsize);
            }
            return result;
        }

        nl::json to_json(const py::object& value)
        {
            return value.is_none() ? nl::json::object() : value.cast<nl::json>();
        }

        // A message as the comm package hands it to callbacks (ipykernel's dict shape).
        py::dict to_python(const xeus::xmessage& message)
        {
            py::list buffers;
            for (const auto& buffer : message.buffers())
            {
                buffers.append(py::memoryview(py::bytes(buffer.data(), buffer.size())));
            }
            return py::dict("header"_a = message.header(), "parent_header"_a = message.parent_header(),
                            "metadata"_a = message.metadata(), "content"_a = message.content(), "buffers"_a = buffers);
        }

        // xeus 2.4.1 hands out a target by name with std::map::operator[]: a name never
        // registered yields an empty target whose manager is null, and a comm made on it
        // crashes the process. So every target a comm uses is registered first (with no-op
        // open handling until a library registers a handler), and none is ever erased while
        // comms may point at it (unregistering installs the no-op instead).
        std::set<std::string>& registered_targets()
        {
            static std::set<std::string> names;
            return names;
        }

        void register_target(const std::string& name, xeus::xcomm_manager::target_function_type callback)
        {
            xeus::get_interpreter().comm_manager().register_comm_target(name, std::move(callback));
            registered_targets().insert(name);
        }

        // A comm the frontend opens to a target nobody handles: accepted and left alone.
        void ignore_comm(xeus::xcomm&&, xeus::xmessage) {}

        xeus::xtarget* registered_target(const std::string& name)
        {
            if (registered_targets().count(name) == 0)
            {
                register_target(name, &ignore_comm);
            }
            return xeus::get_interpreter().comm_manager().target(name);
        }

        class python_comm
        {
        public:
            python_comm(const std::string& target_name, const py::object& data, const py::object& metadata,
                        const py::object& buffers, const py::kwargs& kwargs)
                : m_comm(registered_target(target_name), requested_id(kwargs))
                , m_target_name(target_name)
            {
                m_comm.open(to_json(metadata), to_json(data), to_buffers(buffers));
            }

            // A comm the frontend opened (comm_open to a registered target).
            python_comm(xeus::xcomm&& comm, std::string target_name)
                : m_comm(std::move(comm))
                , m_target_name(std::move(target_name))
            {}

            std::string comm_id() const { return m_comm.id(); }
            const std::string& target_name() const { return m_target_name; }

            void send(const py::object& data, const py::object& metadata, const py::object& buffers)
            {
                m_comm.send(to_json(metadata), to_json(data), to_buffers(buffers));
            }

            void close(const py::object& data, const py::object& metadata, const py::object& buffers)
            {
                if (!m_closed)
                {
                    m_closed = true;
                    m_comm.close(to_json(metadata), to_json(data), to_buffers(buffers));
                }
            }

            void on_msg(const py::object& callback) { m_comm.on_message(handler(callback)); }
            void on_close(const py::object& callback) { m_comm.on_close(handler(callback)); }

        private:
            static xeus::xguid requested_id(const py::kwargs& kwargs)
            {
                if (kwargs.contains("comm_id") && !kwargs["comm_id"].is_none())
                {
                    return xeus::xguid(kwargs["comm_id"].cast<std::string>());
                }
                return xeus::new_xguid();
            }

            static xeus::xcomm::handler_type handler(const py::object& callback)
            {
                if (callback.is_none())
                {
                    return [](xeus::xmessage) {};
                }
                auto fn = std::make_shared<python_callback>(callback);
                return [fn](xeus::xmessage message) {
                    py::gil_scoped_acquire acquire;
                    (*fn)(to_python(message));
                };
            }

            xeus::xcomm m_comm;
            std::string m_target_name;
            bool m_closed = false;
        };

        class python_comm_manager
        {
        public:
            void register_target(const std::string& target_name, const py::object& callback)
            {
                auto fn = std::make_shared<python_callback>(callback);
                xcuda::kernel::register_target(target_name,
                                               [fn, target_name](xeus::xcomm&& comm, xeus::xmessage request) {
                                                   py::gil_scoped_acquire acquire;
                                                   (*fn)(python_comm(std::move(comm), target_name), to_python(request));
                                               });
            }

            void unregister_target(const std::string& target_name, const py::object&)
            {
                xcuda::kernel::register_target(target_name, &ignore_comm);
            }

            // xeus registers a comm when it is made; the comm package's callers still call this.
            std::string register_comm(const python_comm& comm) { return comm.comm_id(); }
        };
    }

    void define_comms(py::module_& m)
    {
        py::class_<python_comm>(m, "Comm")
            .def(py::init<const std::string&, const py::object&, const py::object&, const py::object&, py::kwargs>(),
                 "target_name"_a = "", "data"_a = py::none(), "metadata"_a = py::none(), "buffers"_a = py::none())
            .def("send", &python_comm::send, "data"_a = py::none(), "metadata"_a = py::none(), "buffers"_a = py::none())
            .def("close", &python_comm::close, "data"_a = py::none(), "metadata"_a = py::none(),
                 "buffers"_a = py::none())
            .def("on_msg", &python_comm::on_msg)
            .def("on_close", &python_comm::on_close)
            .def_property_readonly("comm_id", &python_comm::comm_id)
            .def_property_readonly("target_name", &python_comm::target_name)
            // ipywidgets sends only through a comm whose kernel is set
            .def_property_readonly("kernel", [](const python_comm&) { return true; });

        py::class_<python_comm_manager>(m, "CommManager")
            .def(py::init<>())
            .def("register_target", &python_comm_manager::register_target)
            .def("unregister_target", &python_comm_manager::unregister_target, "target_name"_a, "f"_a = py::none())
            .def("register_comm", &python_comm_manager::register_comm);
    }
}
