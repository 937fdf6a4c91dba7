#include "conforming_server.hpp"
#include "execution_count.hpp"
#include "log_streambuf.hpp"
#include "process_replacement.hpp"
#include "wire_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include <xeus/xguid.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xmessage.hpp>
#include <xeus/xserver_shell_main.hpp>

namespace xcuda::kernel
{
    namespace
    {
        // Long enough for a frontend's burst of queued cells to arrive, short enough that
        // 100 aborted cells do not take seconds (xeus waits this long after each one).
        constexpr long abort_polling_ms = 10;
        constexpr std::chrono::milliseconds in_flight_grace{20};
        // After exit: the reply and idle pass the wire guard's and the publisher's threads
        // before ZeroMQ sends them, and nothing tells when that is done (ipykernel waits 0.1 s).
        constexpr std::chrono::milliseconds delivery_grace{200};

        std::function<void()>& output_barrier()
        {
            static std::function<void()> barrier;
            return barrier;
        }

        void publish_waiting_output()
        {
            if (output_barrier())
            {
                output_barrier()();
            }
        }

        std::string reply_type(const nl::json& request_header)
        {
            std::string type = request_header.value("msg_type", "unknown_request");
            if (auto pos = type.rfind("_request"); pos != std::string::npos)
            {
                type.replace(pos, std::string::npos, "_reply");
            }
            return type;
        }

        class conforming_server;

        // The running server, for publish_stream_with_parent; the mutex keeps it alive
        // while a message goes out.
        std::mutex running_mutex;
        conforming_server* running = nullptr;

        class conforming_server final : public xeus::xserver_shell_main
        {
        public:
            // xeus binds the guard's inproc endpoints; the guard, the connection file's ports.
            conforming_server(zmq::context_t& context, std::unique_ptr<wire_guard> guard, nl::json::error_handler_t eh)
                : xeus::xserver_shell_main(context, guard->internal_config(), eh)
                , m_guard(std::move(guard))
                , m_user_name(xeus::get_user_name())
                , m_session_id(xeus::new_xguid())
                , m_clog(std::clog.rdbuf(nullptr))
            {
                m_guard->start();
                std::lock_guard<std::mutex> lock(running_mutex);
                running = this;
            }

            ~conforming_server() override
            {
                std::clog.rdbuf(m_clog);
                std::lock_guard<std::mutex> lock(running_mutex);
                running = nullptr;
            }

            void publish_stream(const nl::json& parent, const std::string& name, const std::string& text)
            {
                xeus::xpub_message message("stream", xeus::make_header("stream", m_user_name, m_session_id), parent,
                                           nl::json::object(), nl::json{{"name", name}, {"text", text}},
                                           xeus::buffer_sequence());
                publish_serialised(std::move(message), xeus::channel::SHELL);
            }

            void end_after(const std::string& msg_id)
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_last_request = msg_id;
            }

            void replace_after(const std::string& msg_id, std::function<void()> before,
                               std::function<void(const std::string&)> failed)
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_replace_after = msg_id;
                m_before_replace = std::move(before);
                m_replace_failed = std::move(failed);
            }

        private:
            // The shell requests not answered yet go to the process that replaces this one
            // (wire_guard::replay_file_env): those the guard keeps from now on, after those xeus
            // had queued (drained as abort_queue_impl drains them). A request still on its way
            // through the kernel's TCP buffers when the exec closes them is lost.
            void hand_over_unanswered_requests()
            {
                try
                {
                    m_guard->hold_shell_requests();
                    std::this_thread::sleep_for(in_flight_grace);
                    std::vector<xeus::xmessage> queued;
                    xeus::xserver_zmq_split::abort_queue_impl(
                        [&queued](xeus::xmessage request) { queued.push_back(std::move(request)); }, abort_polling_ms);
                    std::vector<zmq::multipart_t> requests = m_guard->to_wire(std::move(queued));
                    for (zmq::multipart_t& held : m_guard->stop_and_take_held())
                    {
                        requests.push_back(std::move(held));
                    }
                    // Written even when empty: its presence tells the new process that it replaces
                    // one, and holds its IOPub output until a frontend subscribes again.
                    const char* dir = std::getenv("XCUDA_RESTORE_FROM");
                    const std::string path =
                        std::string(dir != nullptr ? dir : "/tmp") + "/requests-" + std::to_string(::getpid()) + ".bin";
                    wire_guard::save_requests(path, requests);
                    std::clog << "xcuda: %cuda_restart hands " << requests.size()
                              << " unanswered requests over to the new process" << std::endl;
                    ::setenv(wire_guard::replay_file_env, path.c_str(), 1);
                }
                catch (const std::exception& e)
                {
                    std::clog << "xcuda: requests sent during %cuda_restart may be lost: " << e.what() << std::endl;
                }
            }

            // xeus::xserver::start writes its banner to std::clog, muted since construction,
            // then calls this: later writes to std::clog go to the kernel's log.
            void start_impl(xeus::xpub_message message) override
            {
                std::clog.rdbuf(&m_log);
                xeus::xserver_shell_main::start_impl(std::move(message));
            }

            // Called by xeus, on the main thread, after the failed cell's reply and
            // before its idle: only collect here, answer once that idle is out.
            void abort_queue_impl(const listener&, long) override
            {
                // xeus collects only what is queued at this instant; requests sent right behind
                // the failed one still pass through the wire guard's thread (microseconds, more
                // on a loaded machine). Like ipykernel's stop_on_error_timeout: a short wait.
                std::this_thread::sleep_for(in_flight_grace);
                std::vector<xeus::xmessage> aborted;
                xeus::xserver_zmq_split::abort_queue_impl(
                    [&aborted](xeus::xmessage request) { aborted.push_back(std::move(request)); }, abort_polling_ms);
                std::lock_guard<std::mutex> lock(m_mutex);
                m_failed_request = m_last_reply_parent;
                m_aborted = std::move(aborted);
            }

            // The reply just before xeus asks for the abort is the failed cell's.
            void send_shell_impl(xeus::xmessage message) override
            {
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    m_last_reply_parent = message.parent_header().value("msg_id", "");
                }
                if (message.header().value("msg_type", "") == "execute_reply")
                {
                    nl::json content = message.content();
                    renumber("execute_reply", content);
                    message = xeus::xmessage(message.identities(), message.header(), message.parent_header(),
                                             message.metadata(), std::move(content), std::move(message).buffers());
                }
                if (message.header().value("msg_type", "") == "history_reply" && !message.content().is_object())
                {
                    // xeus answers a hist_access_type it does not know ("bogus") with null content;
                    // ipykernel answers it with no history.
                    message = xeus::xmessage(
                        message.identities(), message.header(), message.parent_header(), message.metadata(),
                        nl::json{{"status", "ok"}, {"history", nl::json::array()}}, std::move(message).buffers());
                }
                xeus::xserver_zmq_split::send_shell_impl(std::move(message));
            }

            // Publishing happens on several threads (control, Python threads printing, the
            // stream coalescer's flusher).
            void publish_impl(xeus::xpub_message message, xeus::channel c) override
            {
                const std::string msg_type = message.header().value("msg_type", "");
                if (c == xeus::channel::SHELL && msg_type != "stream")
                {
                    publish_waiting_output();
                }
                if (msg_type == "execute_input")
                {
                    nl::json content = message.content();
                    renumber(msg_type, content);
                    message = xeus::xpub_message(message.topic(), message.header(), message.parent_header(),
                                                 message.metadata(), std::move(content), std::move(message).buffers());
                }
                const bool idle = c == xeus::channel::SHELL && msg_type == "status"
                                  && message.content().value("execution_state", "") == "idle";
                const std::string parent = message.parent_header().value("msg_id", "");
                std::vector<xeus::xmessage> aborted;
                bool last = false;
                bool replace = false;
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    if (!m_aborted.empty() && idle && parent == m_failed_request)
                    {
                        aborted.swap(m_aborted);
                    }
                    last = idle && !m_last_request.empty() && parent == m_last_request;
                    replace = idle && !m_replace_after.empty() && parent == m_replace_after;
                }
                publish_serialised(std::move(message), c);
                for (auto& request : aborted)
                {
                    answer_aborted(std::move(request));
                }
                if (last)
                {
                    std::this_thread::sleep_for(delivery_grace);
                    // _exit: the shell closed its history session before answering, and
                    // static destructors could wait on threads that never end.
                    ::_exit(0);
                }
                if (replace)
                {
                    std::this_thread::sleep_for(delivery_grace);
                    hand_over_unanswered_requests();
                    std::function<void()> before;
                    std::function<void(const std::string&)> failed;
                    {
                        std::lock_guard<std::mutex> lock(m_mutex);
                        m_replace_after.clear();
                        before = std::move(m_before_replace);
                        failed = std::move(m_replace_failed);
                    }
                    const std::string why = replace_this_process(before);
                    if (failed)
                    {
                        failed(why);
                    }
                }
            }

            // xeus 2.4.1's interrupt_request handler only replies {}; its reply is the one
            // trace of the request, so interrupt here: SIGINT to this process takes the
            // same path as the kernelspec's signal interrupt (interrupt_router).
            void send_control_impl(xeus::xmessage message) override
            {
                if (message.header().value("msg_type", "") != "interrupt_reply")
                {
                    xeus::xserver_zmq_split::send_control_impl(std::move(message));
                    return;
                }
                ::kill(::getpid(), SIGINT);
                nl::json content = message.content();
                content["status"] = "ok";
                xeus::xmessage fixed(message.identities(), message.header(), message.parent_header(),
                                     message.metadata(), std::move(content), std::move(message).buffers());
                xeus::xserver_zmq_split::send_control_impl(std::move(fixed));
            }

            void send_stdin_impl(xeus::xmessage message) override
            {
                nl::json content = message.content();
                if (content.contains("pwd") && !content.contains("password"))
                {
                    content["password"] = content["pwd"];
                    content.erase("pwd");
                }
                xeus::xmessage fixed(message.identities(), message.header(), message.parent_header(),
                                     message.metadata(), std::move(content), std::move(message).buffers());
                publish_waiting_output();  // the cell's prints before its prompt
                // Sends the request, then blocks until the input_reply (or EINTR: an
                // interrupt, woken again by interrupt_router until it reaches Python).
                xeus::xserver_zmq_split::send_stdin_impl(std::move(fixed));
            }

            void answer_aborted(xeus::xmessage request)
            {
                const nl::json& header = request.header();
                publish_status(header, "busy");
                xeus::xmessage reply(request.identities(),
                                     xeus::make_header(reply_type(header), m_user_name, m_session_id), header,
                                     nl::json::object(), nl::json{{"status", "aborted"}}, xeus::buffer_sequence());
                xeus::xserver_zmq_split::send_shell_impl(std::move(reply));
                publish_status(header, "idle");
            }

            void publish_status(const nl::json& parent, const char* state)
            {
                xeus::xpub_message message("status", xeus::make_header("status", m_user_name, m_session_id), parent,
                                           nl::json::object(), nl::json{{"execution_state", state}},
                                           xeus::buffer_sequence());
                publish_serialised(std::move(message), xeus::channel::SHELL);
            }

            // xeus's shell socket is not thread-safe; the mutex also orders its use across threads.
            void publish_serialised(xeus::xpub_message message, xeus::channel c)
            {
                std::lock_guard<std::mutex> lock(m_publish_mutex);
                xeus::xserver_zmq_split::publish_impl(std::move(message), c);
            }

            std::unique_ptr<wire_guard> m_guard;
            std::string m_user_name;
            std::string m_session_id;
            std::mutex m_mutex;
            std::mutex m_publish_mutex;
            std::string m_last_reply_parent;
            std::string m_failed_request;
            std::vector<xeus::xmessage> m_aborted;
            std::string m_last_request;   // the process ends after its idle
            std::string m_replace_after;  // the process is replaced after its idle (%cuda_restart)
            std::function<void()> m_before_replace;
            std::function<void(const std::string&)> m_replace_failed;
            std::streambuf* m_clog;  // std::clog's own buffer, put back when the server ends
            log_streambuf m_log;
        };
    }

    void set_output_barrier(std::function<void()> barrier)
    {
        output_barrier() = std::move(barrier);
    }

    void publish_stream_with_parent(const nl::json& parent, const std::string& name, const std::string& text)
    {
        std::lock_guard<std::mutex> lock(running_mutex);
        if (running != nullptr)
        {
            running->publish_stream(parent, name, text);
        }
    }

    void end_after_request(const std::string& msg_id)
    {
        std::lock_guard<std::mutex> lock(running_mutex);
        if (running != nullptr)
        {
            running->end_after(msg_id);
        }
    }

    void replace_after_request(const std::string& msg_id, std::function<void()> before,
                               std::function<void(const std::string&)> failed)
    {
        std::lock_guard<std::mutex> lock(running_mutex);
        if (running != nullptr)
        {
            running->replace_after(msg_id, std::move(before), std::move(failed));
        }
    }

    std::unique_ptr<xeus::xserver> make_conforming_server(xeus::xcontext& context, const xeus::xconfiguration& config,
                                                          nl::json::error_handler_t eh)
    {
        zmq::context_t& zmq_context = context.get_wrapped_context<zmq::context_t>();
        return std::make_unique<conforming_server>(zmq_context, std::make_unique<wire_guard>(zmq_context, config), eh);
    }
}
