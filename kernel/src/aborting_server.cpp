#include "aborting_server.hpp"

#include <string>

#include <xeus/xguid.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xmessage.hpp>
#include <xeus/xserver_shell_main.hpp>

namespace xcuda::kernel
{
    namespace
    {
        // Long enough for a frontend's burst of queued cells to arrive, short enough that
        // 100 aborted cells do not take seconds (xeus sleeps this long after each one).
        constexpr long abort_polling_ms = 10;

        class aborting_shell_server final : public xeus::xserver_shell_main
        {
        public:
            aborting_shell_server(zmq::context_t& context,
                                  const xeus::xconfiguration& config,
                                  nl::json::error_handler_t eh)
                : xeus::xserver_shell_main(context, config, eh)
                , m_user_name(xeus::get_user_name())
                , m_session_id(xeus::new_xguid())
            {
            }

        private:
            void abort_queue_impl(const listener&, long) override
            {
                xeus::xserver_zmq_split::abort_queue_impl(
                    [this](xeus::xmessage request) { abort(std::move(request)); },
                    abort_polling_ms);
            }

            void abort(xeus::xmessage request)
            {
                const nl::json& header = request.header();
                std::string reply_type = header.value("msg_type", "unknown_request");
                if (auto pos = reply_type.rfind("_request"); pos != std::string::npos)
                {
                    reply_type.replace(pos, std::string::npos, "_reply");
                }
                publish_status(header, "busy");
                nl::json content = {{"status", "aborted"}};
                xeus::xmessage reply(request.identities(),
                                     xeus::make_header(reply_type, m_user_name, m_session_id),
                                     header,
                                     nl::json::object(),
                                     std::move(content),
                                     xeus::buffer_sequence());
                send_shell(std::move(reply));
                publish_status(header, "idle");
            }

            void publish_status(const nl::json& parent, const char* state)
            {
                xeus::xpub_message message("status",
                                           xeus::make_header("status", m_user_name, m_session_id),
                                           parent,
                                           nl::json::object(),
                                           nl::json{{"execution_state", state}},
                                           xeus::buffer_sequence());
                publish(std::move(message), xeus::channel::SHELL);
            }

            std::string m_user_name;
            std::string m_session_id;
        };
    }

    std::unique_ptr<xeus::xserver> make_aborting_shell_server(xeus::xcontext& context,
                                                              const xeus::xconfiguration& config,
                                                              nl::json::error_handler_t eh)
    {
        return std::make_unique<aborting_shell_server>(
            context.get_wrapped_context<zmq::context_t>(), config, eh);
    }
}
