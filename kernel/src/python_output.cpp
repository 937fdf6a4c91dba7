#include "python_output.hpp"
#include "conforming_server.hpp"

#include <cstdio>

#include <pybind11/pybind11.h>
#include <xeus/xinterpreter.hpp>

namespace py = pybind11;

namespace xcuda::kernel
{
    namespace
    {
        // Bounds on waiting for the pipes to drain: per print (a background C thread
        // that never stops writing must not stall every print) and at the end of a cell.
        constexpr std::chrono::milliseconds print_settle{100};
        constexpr std::chrono::milliseconds cell_settle{2000};

        // Text as UTF-8. A lone surrogate ("\udce9", an undecodable byte) raises
        // UnicodeEncodeError in the cell, as print() does on a UTF-8 terminal.
        std::string utf8_of(PyObject* text)
        {
            Py_ssize_t size = 0;
            const char* data = PyUnicode_AsUTF8AndSize(text, &size);
            if (!data)
            {
                throw py::error_already_set();
            }
            return std::string(data, static_cast<std::size_t>(size));
        }
    }

    // sys.stdout / sys.stderr while the kernel runs: flushes C output ahead of each
    // Python write, then hands the write to the coalescer. A text stream as io.TextIOBase
    // describes one (UTF-8, write-only, not a tty), so %timeit prints "µs", and tqdm and
    // rich see a stream they can write to.
    class ordered_stream
    {
    public:
        ordered_stream(python_output& output, int fd)
            : m_output(output)
            , m_fd(fd)
        {}

        // As io.TextIOBase.write: str only, returns the number of characters.
        Py_ssize_t write(py::handle text)
        {
            if (!PyUnicode_Check(text.ptr()))
            {
                throw py::type_error(std::string("write() argument must be str, not ") + Py_TYPE(text.ptr())->tp_name);
            }
            m_output.deliver(true);
            m_output.write(static_cast<std::size_t>(m_fd - 1), utf8_of(text.ptr()));
            return PyUnicode_GET_LENGTH(text.ptr());
        }

        void writelines(py::iterable lines)
        {
            for (py::handle line : lines)
            {
                write(line);
            }
        }

        void flush()
        {
            m_output.deliver(true);
            m_output.flush_streams();
        }

        // Code that writes to the descriptor (faulthandler, subprocess) lands in the
        // same captured pipe.
        int fileno() const { return m_fd; }
        const char* name() const { return m_fd == 1 ? "<stdout>" : "<stderr>"; }

    private:
        python_output& m_output;
        int m_fd;
    };

    namespace
    {
        // The instance a pending call may still reach: Python outlives the kernel's objects
        // (it hosts them), so a call queued just before the kernel stopped must find none.
        std::atomic<python_output*> live_instance{nullptr};
    }

    python_output::python_output(output_capture& capture)
        : m_capture(capture)
        , m_coalescer([this](std::size_t stream, const std::string& text) {
            // C++ only (no GIL). Not xeus's publish_stream: it reads the kernel's current
            // parent header, which the main thread rewrites when the next request arrives,
            // while this runs on the flusher thread too.
            nlohmann::json parent;
            {
                std::lock_guard<std::mutex> lock(m_parent_mutex);
                parent = m_cell_parent;
            }
            publish_stream_with_parent(parent, stream == 0 ? "stdout" : "stderr", text);
        })
    {
        live_instance = this;
        m_capture.on_queued([this] {
            if (!m_call_scheduled.exchange(true))
            {
                // Py_AddPendingCall needs neither the GIL nor a thread state. A full
                // queue only delays delivery to the next queued bytes or the end of the cell.
                if (Py_AddPendingCall(&python_output::pending_call, this) != 0)
                {
                    m_call_scheduled = false;
                }
            }
        });
    }

    void python_output::install()
    {
        py::module_ sys = py::module_::import("sys");
        sys.attr("stdout") = py::cast(ordered_stream(*this, 1));
        sys.attr("stderr") = py::cast(ordered_stream(*this, 2));
    }

    python_output::~python_output()
    {
        m_capture.on_queued(nullptr);
        live_instance = nullptr;
    }

    void python_output::uninstall()
    {
        py::gil_scoped_acquire acquire;
        py::module_ sys = py::module_::import("sys");
        sys.attr("stdout") = sys.attr("__stdout__");
        sys.attr("stderr") = sys.attr("__stderr__");
    }

    int python_output::pending_call(void* self)
    {
        if (live_instance.load() != self)
        {
            return 0;
        }
        auto* output = static_cast<python_output*>(self);
        output->m_call_scheduled = false;
        try
        {
            output->deliver(false);
        }
        catch (py::error_already_set& e)
        {
            // A KeyboardInterrupt raised while publishing belongs to the cell.
            e.restore();
            return -1;
        }
        return 0;
    }

    void python_output::deliver(bool settle_first)
    {
        if (m_delivering)
        {
            return;  // the outer call's loop picks up what arrived meanwhile
        }
        m_delivering = true;
        struct reset
        {
            bool& flag;
            ~reset() { flag = false; }
        } reset_guard{m_delivering};

        std::fflush(nullptr);
        if (settle_first)
        {
            py::gil_scoped_release release;
            m_capture.settle(print_settle);
        }
        for (auto chunks = m_capture.take(); !chunks.empty(); chunks = m_capture.take())
        {
            for (auto& c : chunks)
            {
                publish(c.stream, std::move(c.bytes), false);
            }
        }
    }

    void python_output::write(std::size_t stream, const std::string& utf8)
    {
        m_coalescer.append(stream, utf8);
    }

    void python_output::flush_streams()
    {
        m_coalescer.flush();
    }

    void python_output::publish(std::size_t stream, std::string bytes, bool final)
    {
        std::string& partial = m_partial[stream];
        partial += bytes;
        std::size_t complete = final ? partial.size() : utf8_complete_prefix(partial);
        if (complete == 0)
        {
            return;
        }
        py::object text = py::reinterpret_steal<py::object>(
            PyUnicode_DecodeUTF8(partial.data(), static_cast<Py_ssize_t>(complete), "replace"));
        partial.erase(0, complete);
        if (!text)
        {
            throw py::error_already_set();
        }
        m_coalescer.append(stream, utf8_of(text.ptr()));
    }

    void python_output::begin_cell()
    {
        m_capture.begin_request();
        // What waits from before this cell goes out under the cell it came after.
        m_coalescer.flush();
        std::lock_guard<std::mutex> lock(m_parent_mutex);
        m_cell_parent = xeus::get_interpreter().parent_header();
    }

    void python_output::end_cell()
    {
        struct end_coalescing
        {
            stream_coalescer& coalescer;
            ~end_coalescing() { coalescer.flush(); }  // publishes what waits, whatever failed above
        } end_guard{m_coalescer};
        py::gil_scoped_acquire acquire;
        std::fflush(nullptr);
        {
            py::gil_scoped_release release;
            m_capture.settle(cell_settle);
        }
        deliver(false);
        for (auto& c : m_capture.end_request())
        {
            publish(c.stream, std::move(c.bytes), false);
        }
        for (std::size_t stream = 0; stream < 2; ++stream)
        {
            if (!m_partial[stream].empty())
            {
                publish(stream, std::string(), true);
            }
        }
    }
}

namespace xcuda::kernel
{
    void define_output_streams(py::module_& m)
    {
        // dynamic_attr: IPython 9 wraps a running cell's sys.stdout.write in one of its own (_tee).
        py::class_<ordered_stream>(m, "OrderedStream", py::dynamic_attr())
            .def("write", &ordered_stream::write)
            .def("writelines", &ordered_stream::writelines)
            .def("flush", &ordered_stream::flush)
            .def("fileno", &ordered_stream::fileno)
            .def("isatty", [](const ordered_stream&) { return false; })
            .def("readable", [](const ordered_stream&) { return false; })
            .def("writable", [](const ordered_stream&) { return true; })
            .def("seekable", [](const ordered_stream&) { return false; })
            .def("close", [](const ordered_stream&) {})  // the kernel's streams outlive any caller
            .def_property_readonly("closed", [](const ordered_stream&) { return false; })
            .def_property_readonly("encoding", [](const ordered_stream&) { return "utf-8"; })
            .def_property_readonly("errors", [](const ordered_stream&) { return "strict"; })
            .def_property_readonly("newlines", [](const ordered_stream&) { return py::none(); })
            .def_property_readonly("mode", [](const ordered_stream&) { return "w"; })
            .def_property_readonly("name", &ordered_stream::name);
    }
}
