#include "stream_coalescer.hpp"

#include <utility>

namespace xcuda::kernel
{
    stream_coalescer::stream_coalescer(publisher publish)
        : m_publish(std::move(publish))
        , m_flusher([this] { run_flusher(); })
    {}

    stream_coalescer::~stream_coalescer()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        m_flusher.join();
    }

    void stream_coalescer::append(std::size_t stream, const std::string& text)
    {
        if (text.empty())
        {
            return;
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_pending.empty() && m_pending_stream != stream)
        {
            publish_pending_locked();
        }
        if (m_pending.empty())
        {
            m_pending_stream = stream;
            m_pending_since = std::chrono::steady_clock::now();
            m_wake.notify_one();
        }
        m_pending += text;
        if (m_pending.size() >= max_pending)
        {
            publish_pending_locked();
        }
    }

    void stream_coalescer::flush()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        publish_pending_locked();
    }

    void stream_coalescer::publish_pending_locked()
    {
        if (m_pending.empty())
        {
            return;
        }
        std::string text;
        text.swap(m_pending);
        m_publish(m_pending_stream, text);
    }

    void stream_coalescer::run_flusher()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        while (!m_stopping)
        {
            if (m_pending.empty())
            {
                m_wake.wait(lock);
                continue;
            }
            const auto due = m_pending_since + flush_after;
            if (std::chrono::steady_clock::now() < due)
            {
                m_wake.wait_until(lock, due);
                continue;  // it may have been flushed, or refilled, meanwhile
            }
            publish_pending_locked();
        }
    }
}
