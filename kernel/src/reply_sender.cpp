#include "reply_sender.hpp"

#include "shell_bridge.hpp"

#include <cerrno>
#include <iterator>

namespace xcuda::kernel
{
    reply_sender::reply_sender(zmq::socket_t& router, const char* channel, std::chrono::seconds limit)
        : m_router(router)
        , m_channel(channel)
        , m_limit(limit)
    {
        m_router.set(zmq::sockopt::router_mandatory, true);
    }

    bool reply_sender::try_send(zmq::multipart_t& message)
    {
        // The first frame is the peer's routing id: an unknown peer fails here, before any of
        // the message has gone (multipart_t::send would have consumed the frame).
        zmq::message_t identity;
        identity.copy(message[0]);
        try
        {
            if (!m_router.send(identity, zmq::send_flags::sndmore | zmq::send_flags::dontwait))
            {
                return false;  // EAGAIN: the peer's queue is full
            }
        }
        catch (const zmq::error_t& e)
        {
            if (e.num() == EHOSTUNREACH)
            {
                return false;
            }
            throw;
        }
        message.pop();
        message.send(m_router);
        return true;
    }

    void reply_sender::send(zmq::multipart_t message)
    {
        if (message.empty())
        {
            return;
        }
        const std::string peer = message[0].to_string();
        auto waiting = m_waiting.find(peer);
        if (waiting == m_waiting.end() && try_send(message))
        {
            return;
        }
        m_waiting[peer].push_back({std::move(message), std::chrono::steady_clock::now()});
    }

    void reply_sender::retry()
    {
        const auto now = std::chrono::steady_clock::now();
        for (auto peer = m_waiting.begin(); peer != m_waiting.end();)
        {
            std::deque<waiting_reply>& replies = peer->second;
            while (!replies.empty())
            {
                waiting_reply& first = replies.front();
                if (!try_send(first.message))
                {
                    if (now - first.since < m_limit)
                    {
                        break;
                    }
                    write_log(std::string("xcuda: a message on the ") + m_channel
                              + " port was dropped: the frontend it answers did not connect within "
                              + std::to_string(m_limit.count()) + " s\n");
                }
                replies.pop_front();
            }
            peer = replies.empty() ? m_waiting.erase(peer) : std::next(peer);
        }
    }
}
