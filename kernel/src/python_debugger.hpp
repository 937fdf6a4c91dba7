#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <xeus/xdebugger.hpp>
#include <xeus/xeus_context.hpp>
#include <xeus/xkernel_configuration.hpp>

namespace xcuda::kernel
{
    // The debugger behind JupyterLab's visual debugger (debug_request on the control channel),
    // built as xeus-python builds its own: xeus's DAP bookkeeping (xdebugger_base: cells dumped
    // to files named by a Murmur2 hash of their text, breakpoints, stopped threads) in front of
    // debugpy, which the shell thread starts listening on a loopback port at the first
    // `initialize`; DAP messages go to debugpy over TCP and its events come back as debug_event
    // on IOPub. Python cells must be compiled under cell_file_name(code) for breakpoints to hit.
    //
    // Every debug_request gets one debug_reply: a malformed DAP request, a request before
    // `initialize`, debugpy missing from the kernel's Python, or a failure inside get a
    // response with success false and a message saying why (xeus 2.4.1 sends no reply when its
    // debugger throws, and an empty one for most commands before `initialize`).
    std::unique_ptr<xeus::xdebugger> make_python_debugger(xeus::xcontext& context, const xeus::xconfiguration& config,
                                                          const std::string& user_name, const std::string& session_id,
                                                          const nl::json& debugger_config);

    // Where a cell of this text is compiled, and where `dumpCell` writes it: what the frontend
    // computes from debugInfo (hashMethod, hashSeed, tmpFilePrefix, tmpFileSuffix).
    std::string cell_file_name(const std::string& code);
}
