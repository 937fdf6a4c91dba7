#include "output_capture.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace
{
    using xcuda::kernel::output_capture;
    using xcuda::kernel::utf8_complete_prefix;
    using namespace std::chrono_literals;

    // A descriptor of the test's own, pointing at a file, stands in for fd 1 so the test
    // runner's stdout is left alone.
    class captured_fd : public ::testing::Test
    {
    protected:
        void SetUp() override
        {
            char path[] = "/tmp/xcuda-capture-XXXXXX";
            m_log = ::mkstemp(path);
            ASSERT_GE(m_log, 0);
            ::unlink(path);
            m_fd = ::dup(m_log);
            ASSERT_GE(m_fd, 0);
        }

        void TearDown() override
        {
            ::close(m_fd);
            ::close(m_log);
        }

        std::string log_contents() const
        {
            std::string out(1 << 16, '\0');
            ssize_t n = ::pread(m_log, out.data(), out.size(), 0);
            out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
            return out;
        }

        static std::string joined(const std::vector<output_capture::chunk>& chunks)
        {
            std::string out;
            for (const auto& c : chunks)
            {
                out += c.bytes;
            }
            return out;
        }

        void write_str(const std::string& s) const
        {
            ASSERT_EQ(::write(m_fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
        }

        int m_log = -1;
        int m_fd = -1;
    };

    TEST_F(captured_fd, bytes_written_during_a_request_are_queued_not_logged)
    {
        output_capture capture({m_fd});
        capture.begin_request();
        write_str("in the cell\n");
        ASSERT_TRUE(capture.settle(2s));
        EXPECT_EQ(joined(capture.end_request()), "in the cell\n");
        EXPECT_EQ(log_contents(), "");
    }

    TEST_F(captured_fd, bytes_written_outside_a_request_go_to_the_original_descriptor)
    {
        {
            output_capture capture({m_fd});
            write_str("between cells\n");
            ASSERT_TRUE(capture.settle(2s));
            EXPECT_TRUE(capture.take().empty());
        }
        EXPECT_EQ(log_contents(), "between cells\n");
    }

    TEST_F(captured_fd, settle_returns_only_after_everything_written_before_it_is_queued)
    {
        output_capture capture({m_fd});
        capture.begin_request();
        std::string expected;
        for (int i = 0; i < 1000; ++i)
        {
            std::string line = "line " + std::to_string(i) + "\n";
            write_str(line);
            expected += line;
        }
        ASSERT_TRUE(capture.settle(2s));
        EXPECT_EQ(joined(capture.take()), expected);
    }

    TEST_F(captured_fd, a_writer_of_64_mib_never_blocks_while_nobody_takes_the_queue)
    {
        output_capture capture({m_fd});
        capture.begin_request();
        const std::string block(1 << 20, 'x');
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 64; ++i)
        {
            write_str(block);
        }
        EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
        ASSERT_TRUE(capture.settle(5s));
        EXPECT_EQ(joined(capture.end_request()).size(), std::size_t(64) << 20);
    }

    TEST_F(captured_fd, the_callback_runs_when_bytes_are_queued)
    {
        output_capture capture({m_fd});
        std::atomic<int> calls{0};
        capture.on_queued([&] { ++calls; });
        capture.begin_request();
        write_str("x");
        auto deadline = std::chrono::steady_clock::now() + 2s;
        while (calls.load() == 0 && std::chrono::steady_clock::now() < deadline)
        {
            std::this_thread::sleep_for(1ms);
        }
        EXPECT_GE(calls.load(), 1);
    }

    TEST_F(captured_fd, the_descriptor_points_back_at_its_original_target_after_destruction)
    {
        {
            output_capture capture({m_fd});
        }
        write_str("after\n");
        EXPECT_EQ(log_contents(), "after\n");
    }

    TEST(utf8_complete_prefix, keeps_whole_text_when_no_character_is_cut)
    {
        EXPECT_EQ(utf8_complete_prefix("abc"), 3u);
        EXPECT_EQ(utf8_complete_prefix("h\xC3\xA9"), 3u);         // é complete
        EXPECT_EQ(utf8_complete_prefix("\xF0\x9F\x98\x80"), 4u);  // emoji complete
        EXPECT_EQ(utf8_complete_prefix(""), 0u);
    }

    TEST(utf8_complete_prefix, holds_back_a_character_cut_by_a_read)
    {
        EXPECT_EQ(utf8_complete_prefix("h\xC3"), 1u);
        EXPECT_EQ(utf8_complete_prefix("ab\xE2\x82"), 2u);  // € missing its last byte
        EXPECT_EQ(utf8_complete_prefix("a\xF0\x9F\x98"), 1u);
    }

    TEST(utf8_complete_prefix, passes_invalid_bytes_through_to_the_decoder)
    {
        EXPECT_EQ(utf8_complete_prefix("a\xFF"), 2u);
        EXPECT_EQ(utf8_complete_prefix("\x80\x80\x80\x80"), 4u);
    }
}
