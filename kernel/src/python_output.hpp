#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include <pybind11/pybind11.h>

#include "output_capture.hpp"
#include "stream_coalescer.hpp"

namespace xcuda::kernel
{
    // Publishes what output_capture read from fd 1/2 to the running cell, on the main
    // thread, and replaces sys.stdout/sys.stderr: a Python print first
    // takes the C output written before it, so each descriptor is one ordered stream.
    // Both go through a stream_coalescer to xeus, as stream messages whose parent is the
    // header of the cell last started (copied on the main thread at begin_cell): output a
    // thread writes after its cell ended goes to that cell, as the last one that ran.
    class python_output
    {
    public:
        explicit python_output(output_capture& capture);
        ~python_output();
        python_output(const python_output&) = delete;
        python_output& operator=(const python_output&) = delete;

        // With the GIL, once the shell is built: replaces sys.stdout and sys.stderr
        // (publishing goes through the coalescer, which needs no Python).
        void install();
        // Puts Python's own streams back: the hosting Python outlives this object.
        void uninstall();

        // Start and end of an execute request; end_cell publishes everything C wrote
        // during the cell before the reply goes out. Take the GIL themselves.
        void begin_cell();
        void end_cell();

        // With the GIL: publish what the reader thread has queued, after waiting for what
        // is still in the pipes when settle_first is true.
        void deliver(bool settle_first);

        // A Python write to stdout (0) or stderr (1), after the C output before it.
        void write(std::size_t stream, const std::string& utf8);
        // Publishes what waits: before any other message of the cell and before input().
        void flush_streams();

        // The kernel's own log: the original stderr, outside the capture.
        int log_fd() const { return m_capture.original_fd(1); }

    private:
        static int pending_call(void* self);
        void publish(std::size_t stream, std::string bytes, bool final);

        output_capture& m_capture;
        std::string m_partial[2];  // bytes of a UTF-8 character cut by a read
        bool m_delivering = false;
        std::atomic<bool> m_call_scheduled{false};
        std::mutex m_parent_mutex;
        nlohmann::json m_cell_parent = nlohmann::json::object();  // guarded by m_parent_mutex
        stream_coalescer m_coalescer;                             // last: its flusher thread reads the above
    };

    // OrderedStream, the type of the streams install() puts in sys.
    void define_output_streams(pybind11::module_& m);
}
