#pragma once

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <string>

namespace xcuda::kernel
{
    // Sends xeus's replies out of one ROUTER port (shell, control or stdin) to the frontend
    // they name, also while that frontend is reconnecting. A ROUTER drops a message to a peer
    // it does not know, and after %cuda_restart the frontend's sockets reconnect to the new
    // process a while after it binds (every 100 ms): a reply to a request handed over by the
    // replaced process would be lost. With ZMQ_ROUTER_MANDATORY the send fails instead; the
    // reply waits (and those behind it to the same peer, for their order) until the peer is
    // back, up to a limit, then is dropped with a line in the kernel's log.
    class reply_sender
    {
    public:
        // Sets ZMQ_ROUTER_MANDATORY on router. channel names it in the log.
        reply_sender(zmq::socket_t& router, const char* channel, std::chrono::seconds limit);

        void send(zmq::multipart_t message);
        // Sends what waits, as far as the peers are back; drops what waited past the limit.
        void retry();

    private:
        // False when the peer is unknown or its queue is full: the message is left whole.
        bool try_send(zmq::multipart_t& message);

        struct waiting_reply
        {
            zmq::multipart_t message;
            std::chrono::steady_clock::time_point since;
        };

        zmq::socket_t& m_router;
        const char* m_channel;
        std::chrono::seconds m_limit;
        std::map<std::string, std::deque<waiting_reply>> m_waiting;  // by the peer's routing id
    };
}
