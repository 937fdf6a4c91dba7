#pragma once

#include <memory>

#include <xeus/xeus_context.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xserver.hpp>

namespace xcuda::kernel
{
    // xeus 2.4.1's shell server, except for the requests it drops when a cell fails with
    // stop_on_error: xeus answers them with a bare {"status": "error"} (no ename, no
    // busy/idle). Here each gets what the protocol says: status "aborted", inside its own
    // busy/idle pair, in arrival order.
    std::unique_ptr<xeus::xserver> make_aborting_shell_server(xeus::xcontext& context,
                                                              const xeus::xconfiguration& config,
                                                              nl::json::error_handler_t eh);
}
