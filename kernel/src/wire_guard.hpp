#pragma once

#include <atomic>
#include <deque>
#include <string>
#include <thread>
#include <unordered_set>

#include <xeus/xkernel_configuration.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

namespace xcuda::kernel
{
    // The kernel's own layer in front of xeus on the wire. xeus 2.4.1 deserialises a message
    // before counting its frames or checking its signature's length, so two frames sent by
    // any local user abort the process, a signature with bytes appended passes (only the
    // first 64 bytes are compared) and a replayed request runs again.
    //
    // The guard binds the connection file's ports itself and hands xeus a configuration of
    // inproc endpoints in the same ZeroMQ context. A request on shell, control or stdin
    // reaches xeus only if it is well formed (identities, the <IDS|MSG> delimiter, signature,
    // header, parent header, metadata and content, each a JSON object, UTF-8), its signature
    // matches the whole frame (constant time) and was not seen before in this session (as
    // ipykernel keeps its digest history); anything else is dropped with a line in the
    // kernel's log. Replies and IOPub go out unchanged; the heartbeat is echoed here.
    class wire_guard
    {
    public:
        wire_guard(zmq::context_t& context, const xeus::xconfiguration& public_config);
        ~wire_guard();
        wire_guard(const wire_guard&) = delete;
        wire_guard& operator=(const wire_guard&) = delete;

        // What xeus must bind: the same ports and key on inproc endpoints.
        const xeus::xconfiguration& internal_config() const { return m_internal; }

        // Once xeus has bound them: connects to them and starts forwarding.
        void start();

        // Why a message from a frontend may not reach xeus, or "" when it may. Records
        // the signature of an accepted message (a second copy is a replay).
        std::string check(const zmq::multipart_t& message);

    private:
        void forward_loop();

        zmq::context_t& m_context;
        xeus::xconfiguration m_public;
        xeus::xconfiguration m_internal;
        // bound to the connection file's ports (used by the forwarding thread once started)
        zmq::socket_t m_shell, m_control, m_stdin, m_iopub, m_heartbeat;
        // connected to xeus's inproc endpoints
        zmq::socket_t m_shell_in, m_control_in, m_stdin_in, m_iopub_in;
        std::size_t m_digest_hex_size = 0;
        // signatures seen, oldest first; bounded as ipykernel's digest history
        std::unordered_set<std::string> m_seen;
        std::deque<std::string> m_seen_order;
        std::atomic<bool> m_stopping{false};
        std::thread m_thread;
    };
}
