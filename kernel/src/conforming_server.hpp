#pragma once

#include <functional>
#include <memory>
#include <string>

#include <xeus/xeus_context.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xserver.hpp>

namespace xcuda::kernel
{
    // xeus 2.4.1's server with the shell in the main thread, minus two deviations from
    // the messaging protocol:
    // - requests dropped when a cell fails with stop_on_error: xeus answers them at once
    //   with a bare {"status": "error"} and no busy/idle, before the failed cell's own
    //   idle. Here each gets status "aborted" inside its own busy/idle pair, after the
    //   failed cell's idle, in arrival order.
    // - input_request: xeus names the password flag "pwd"; frontends read "password".
    // - interrupt_request (control channel): xeus replies {} and interrupts nothing; here
    //   it interrupts like SIGINT and replies {"status": "ok"}.
    // - execute_input and execute_reply carry IPython's execution count (execution_count.hpp).
    // - "Run with XEUS 2.4.1", which xeus writes to std::clog as it starts serving, is not
    //   printed: a frontend's terminal shows it on every kernel start.
    //
    // It also keeps the cell's output in order: output_barrier (set once, before the kernel
    // starts) runs before any other message of the shell channel is published and before an
    // input_request goes out, so stream text still waiting to be published goes first
    // (see stream_coalescer). Publishing is serialised: several threads publish.
    void set_output_barrier(std::function<void()> barrier);

    // Publishes a stream message under `parent` (a request header the caller copied on the
    // main thread) through the running server; dropped when no server runs (before start,
    // after shutdown). Safe from any thread: xeus's own publish_stream reads the kernel's
    // current parent header, which the main thread rewrites for every request.
    void publish_stream_with_parent(const nl::json& parent, const std::string& name, const std::string& text);

    // Ends the process once the request with this msg_id is answered and its idle is out
    // (exit or quit in a cell; ipykernel ends the same way). Call on the main thread.
    void end_after_request(const std::string& msg_id);

    // Replaces the process by a new run of the kernel (process_replacement.hpp) once the request
    // with this msg_id is answered and its idle is out (%cuda_restart). `before` runs just before
    // the exec. Should the exec fail, the kernel goes on serving and `failed` gets the reason
    // (called on the main thread). Call on the main thread.
    void replace_after_request(const std::string& msg_id, std::function<void()> before,
                               std::function<void(const std::string&)> failed);

    std::unique_ptr<xeus::xserver> make_conforming_server(xeus::xcontext& context, const xeus::xconfiguration& config,
                                                          nl::json::error_handler_t eh);
}
