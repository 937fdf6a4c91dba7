#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace xcuda::kernel
{
    // Puts a pipe under each of the given file descriptors (fd 1 and fd 2 in the kernel)
    // for the life of the object, and drains the pipes with its own thread, so a writer
    // (C code, a library's printf, the CUDA driver) never blocks on a full pipe and never
    // needs the GIL. While a request is open, what is read is queued for the main thread
    // to publish to the cell; otherwise it goes to a duplicate of the original descriptor
    // (the kernel's log). Knows nothing of Python or xeus.
    class output_capture
    {
    public:
        struct chunk
        {
            std::size_t stream;  // index into the fds given to the constructor
            std::string bytes;
        };

        explicit output_capture(std::vector<int> fds);
        ~output_capture();
        output_capture(const output_capture&) = delete;
        output_capture& operator=(const output_capture&) = delete;

        // Called from the reader thread after it queued bytes during a request.
        void on_queued(std::function<void()> callback);

        void begin_request();
        // Waits until everything written to the captured descriptors before the call has
        // been queued (pipes empty, reader idle). False if writers kept the pipes busy
        // past the timeout.
        bool settle(std::chrono::milliseconds timeout);
        std::vector<chunk> take();
        // Closes the request: what is still queued is returned, later bytes go to the log.
        std::vector<chunk> end_request();

        // A duplicate of the original descriptor, for output that belongs to no cell.
        int original_fd(std::size_t stream) const;

        // Points the captured descriptors back where they pointed before, for a process image
        // that replaces this one (its reader thread is gone with the exec). Async-signal-safe.
        void release_descriptors() const noexcept;

    private:
        struct pipe_end
        {
            int target;    // the captured descriptor, now the pipe's write end
            int original;  // where target pointed before
            int read_end;
        };

        void read_loop();
        bool pipes_empty() const;

        std::vector<pipe_end> m_pipes;
        int m_stop_pipe[2] = {-1, -1};
        mutable std::mutex m_mutex;
        std::condition_variable m_queued;
        std::vector<chunk> m_queue;
        bool m_in_request = false;
        std::atomic<bool> m_reading{false};
        std::function<void()> m_on_queued;
        std::thread m_reader;
    };

    // Length of the longest prefix of bytes that does not end inside a UTF-8 sequence,
    // so that a character split across two reads is decoded whole.
    std::size_t utf8_complete_prefix(const std::string& bytes);
}
