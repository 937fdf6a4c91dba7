#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <zmq.hpp>

namespace nl = nlohmann;

namespace xcuda::kernel
{
    // The device half of the notebook's debugger, beside debugpy's Python half: breakpoints in
    // %%cuda cells stop a kernel's thread on the CPU device (xcuda._device_debugger, in Python,
    // holds the logic). This routes the DAP requests that concern the device thread there, and
    // publishes its events (`stopped`, `continued`) as debug_event on IOPub, through xeus's
    // bookkeeping of stopped threads first, as debugpy's events go. The shell thread publishes
    // them (it runs the launch); a mutex keeps the socket to one thread at a time.
    class device_debugger
    {
    public:
        using bookkeeping = std::function<void(const nl::json&)>;

        device_debugger(zmq::context_t& context, const xeus::xconfiguration& config, std::string user_name,
                        std::string session_id, bookkeeping record);
        ~device_debugger();
        device_debugger(const device_debugger&) = delete;
        device_debugger& operator=(const device_debugger&) = delete;

        // The debugger started (cells are dumped under `cell_prefix`) or stopped.
        void start(const std::string& cell_prefix);
        void stop();

        // The header of the debug_request being answered: the parent of the events that follow.
        void set_parent_header(const nl::json& header);

        // The reply to `request` when it is the device's (its thread, frames or variables).
        // `stopped_threads`: the threads xeus knows stopped. JupyterLab's Continue forgets the
        // stopped thread before it names one (it sends its default, 1): a `continue` for a thread
        // that is not stopped while the device thread is, is the device thread's.
        std::optional<nl::json> handle(const nl::json& request, const std::set<int>& stopped_threads);

        // setBreakpoints: on a %%cuda cell, the device's reply instead of debugpy's.
        nl::json set_breakpoints(const nl::json& request, const nl::json& debugpy_reply);

    private:
        struct sink;
        std::shared_ptr<sink> m_sink;
        int m_device_thread = -1;  // the device thread's DAP id, read at start
    };
}
