#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace xcuda::kernel
{
    // Joins a cell's consecutive writes to one stream into few stream messages, as
    // ipykernel does. One message per write flooded iopub: a loop printing 6,000 lines
    // sent 12,000 messages, past zmq's high-water mark, and lost lines and the cell's
    // idle with them (the frontend stayed busy forever).
    //
    // Text waits at most flush_after (a background thread publishes it, so a print before
    // a long computation still shows at once) or until max_pending bytes. Text on the other
    // stream, any other message the kernel publishes and an input() prompt flush it first
    // (flush()), and so does the end of a cell, so every message keeps its order. Between
    // cells (a Python thread printing) text is joined the same way, so such a thread cannot
    // flood iopub either (python_output publishes it under the cell that ran last).
    class stream_coalescer
    {
    public:
        static constexpr std::chrono::milliseconds flush_after{50};
        static constexpr std::size_t max_pending = 256 * 1024;

        // publish(stream, text): stream 0 is stdout, 1 stderr. Called with this object's
        // lock held, from any thread; must not call back into it.
        using publisher = std::function<void(std::size_t stream, const std::string& text)>;
        explicit stream_coalescer(publisher publish);
        ~stream_coalescer();
        stream_coalescer(const stream_coalescer&) = delete;
        stream_coalescer& operator=(const stream_coalescer&) = delete;

        void append(std::size_t stream, const std::string& text);
        void flush();

    private:
        void publish_pending_locked();
        void run_flusher();

        publisher m_publish;
        std::mutex m_mutex;
        std::condition_variable m_wake;
        std::string m_pending;
        std::size_t m_pending_stream = 0;
        std::chrono::steady_clock::time_point m_pending_since{};
        bool m_stopping = false;
        std::thread m_flusher;
    };
}
