#include "output_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace xcuda::kernel
{
    namespace
    {
        constexpr std::size_t read_size = 64 * 1024;
        // Queued chunks of one stream are merged up to this size: fewer, larger messages.
        constexpr std::size_t merge_limit = 1024 * 1024;

        [[noreturn]] void fail(const std::string& what)
        {
            throw std::runtime_error("xcuda: cannot capture output: " + what + ": " + std::strerror(errno));
        }

        void write_all(int fd, const char* data, std::size_t size)
        {
            while (size > 0)
            {
                ssize_t n = ::write(fd, data, size);
                if (n < 0)
                {
                    if (errno == EINTR)
                    {
                        continue;
                    }
                    return;  // the log is gone; nothing better to do with the bytes
                }
                data += n;
                size -= static_cast<std::size_t>(n);
            }
        }
    }

    output_capture::output_capture(std::vector<int> fds)
    {
        if (::pipe2(m_stop_pipe, O_CLOEXEC) != 0)
        {
            fail("pipe");
        }
        for (int fd : fds)
        {
            int ends[2];
            if (::pipe2(ends, O_CLOEXEC) != 0)
            {
                fail("pipe for fd " + std::to_string(fd));
            }
            int original = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
            if (original < 0)
            {
                fail("dup of fd " + std::to_string(fd));
            }
            // The captured descriptor keeps fd's number and is inherited by children
            // (dup2 clears O_CLOEXEC), so a subprocess's output reaches the cell too.
            if (::dup2(ends[1], fd) < 0)
            {
                fail("dup2 over fd " + std::to_string(fd));
            }
            ::close(ends[1]);
            m_pipes.push_back({fd, original, ends[0]});
        }
        m_reader = std::thread([this] { read_loop(); });
    }

    output_capture::~output_capture()
    {
        for (const pipe_end& p : m_pipes)
        {
            ::dup2(p.original, p.target);  // closes the pipe's last write end
        }
        char stop = 0;
        write_all(m_stop_pipe[1], &stop, 1);
        m_reader.join();
        for (const pipe_end& p : m_pipes)
        {
            ::close(p.read_end);
            ::close(p.original);
        }
        ::close(m_stop_pipe[0]);
        ::close(m_stop_pipe[1]);
    }

    void output_capture::on_queued(std::function<void()> callback)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_on_queued = std::move(callback);
    }

    void output_capture::read_loop()
    {
        std::vector<pollfd> items;
        for (const pipe_end& p : m_pipes)
        {
            items.push_back({p.read_end, POLLIN, 0});
        }
        items.push_back({m_stop_pipe[0], POLLIN, 0});
        std::string buffer(read_size, '\0');
        std::size_t open_pipes = m_pipes.size();
        bool stopping = false;
        while (open_pipes > 0)
        {
            // After stop, drain what is left without waiting for writers that never close.
            int rc = ::poll(items.data(), items.size(), stopping ? 0 : -1);
            if (rc < 0 && errno == EINTR)
            {
                continue;
            }
            if (rc <= 0)
            {
                break;
            }
            if (items.back().revents != 0)
            {
                stopping = true;
                items.back().fd = -1;
            }
            for (std::size_t i = 0; i < m_pipes.size(); ++i)
            {
                if ((items[i].revents & (POLLIN | POLLHUP)) == 0)
                {
                    continue;
                }
                // Set before the read so settle() never sees empty pipes and an idle
                // reader while bytes are in flight between the two.
                m_reading = true;
                ssize_t n = ::read(m_pipes[i].read_end, buffer.data(), buffer.size());
                if (n <= 0)
                {
                    m_reading = false;
                    if (n == 0 || (errno != EINTR && errno != EAGAIN))
                    {
                        items[i].fd = -1;
                        --open_pipes;
                    }
                    continue;
                }
                std::function<void()> notify;
                bool to_log = false;
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    if (m_in_request)
                    {
                        if (!m_queue.empty() && m_queue.back().stream == i && m_queue.back().bytes.size() < merge_limit)
                        {
                            m_queue.back().bytes.append(buffer.data(), static_cast<std::size_t>(n));
                        }
                        else
                        {
                            m_queue.push_back({i, std::string(buffer.data(), static_cast<std::size_t>(n))});
                        }
                        notify = m_on_queued;
                    }
                    else
                    {
                        to_log = true;
                    }
                }
                if (to_log)
                {
                    write_all(m_pipes[i].original, buffer.data(), static_cast<std::size_t>(n));
                }
                m_reading = false;
                m_queued.notify_all();
                if (notify)
                {
                    notify();
                }
            }
        }
    }

    bool output_capture::pipes_empty() const
    {
        for (const pipe_end& p : m_pipes)
        {
            int pending = 0;
            if (::ioctl(p.read_end, FIONREAD, &pending) == 0 && pending > 0)
            {
                return false;
            }
        }
        return true;
    }

    void output_capture::begin_request()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_in_request = true;
    }

    bool output_capture::settle(std::chrono::milliseconds timeout)
    {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        std::unique_lock<std::mutex> lock(m_mutex);
        // Order matters: pipe first, then the reader, then (in take) the queue: bytes
        // only move in that direction.
        while (!pipes_empty() || m_reading)
        {
            if (std::chrono::steady_clock::now() >= deadline)
            {
                return false;
            }
            m_queued.wait_for(lock, std::chrono::milliseconds(1));
        }
        return true;
    }

    std::vector<output_capture::chunk> output_capture::take()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::vector<chunk> out;
        out.swap(m_queue);
        return out;
    }

    std::vector<output_capture::chunk> output_capture::end_request()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_in_request = false;
        std::vector<chunk> out;
        out.swap(m_queue);
        return out;
    }

    int output_capture::original_fd(std::size_t stream) const
    {
        return m_pipes.at(stream).original;
    }

    void output_capture::release_descriptors() const noexcept
    {
        for (const pipe_end& p : m_pipes)
        {
            ::dup2(p.original, p.target);
        }
    }

    std::size_t utf8_complete_prefix(const std::string& bytes)
    {
        const std::size_t size = bytes.size();
        // A sequence is at most 4 bytes: look back at most 3 for its lead byte.
        for (std::size_t back = 1; back <= 3 && back <= size; ++back)
        {
            const auto byte = static_cast<unsigned char>(bytes[size - back]);
            if ((byte & 0xC0) == 0x80)
            {
                continue;  // continuation byte: keep looking for the lead
            }
            std::size_t length = (byte & 0x80) == 0x00   ? 1
                                 : (byte & 0xE0) == 0xC0 ? 2
                                 : (byte & 0xF0) == 0xE0 ? 3
                                 : (byte & 0xF8) == 0xF0 ? 4
                                                         : 1;  // invalid lead: let the decoder replace it
            return length > back ? size - back : size;
        }
        return size;
    }
}
