#include "wire_guard.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <chrono>
#include <exception>
#include <string_view>

#include <nlohmann/json.hpp>
#include <zmq_addon.hpp>

#include "shell_bridge.hpp"

namespace xcuda::kernel
{
    namespace
    {
        const std::string delimiter = "<IDS|MSG>";
        // ipykernel's digest_history_size
        constexpr std::size_t seen_limit = 1 << 16;
        constexpr std::chrono::milliseconds poll_period{100};

        std::string public_endpoint(const xeus::xconfiguration& config, const std::string& port)
        {
            return config.m_transport + "://" + config.m_ip + (config.m_transport == "tcp" ? ":" : "-") + port;
        }

        const EVP_MD* digest_of(const std::string& scheme)
        {
            // "hmac-sha256" -> "sha256"
            std::string name = scheme.rfind("hmac-", 0) == 0 ? scheme.substr(5) : scheme;
            return EVP_get_digestbyname(name.c_str());
        }

        std::string hex(const unsigned char* data, std::size_t size)
        {
            static const char digits[] = "0123456789abcdef";
            std::string out(2 * size, '0');
            for (std::size_t i = 0; i < size; ++i)
            {
                out[2 * i] = digits[data[i] >> 4];
                out[2 * i + 1] = digits[data[i] & 0xf];
            }
            return out;
        }

        bool is_json_object(const zmq::message_t& frame)
        {
            auto parsed = nlohmann::json::parse(frame.data<char>(), frame.data<char>() + frame.size(), nullptr, false);
            return !parsed.is_discarded() && parsed.is_object();
        }

        bool header_is_valid(const zmq::message_t& frame)
        {
            auto header = nlohmann::json::parse(frame.data<char>(), frame.data<char>() + frame.size(), nullptr, false);
            if (header.is_discarded() || !header.is_object())
            {
                return false;
            }
            for (const char* field : {"msg_id", "msg_type"})
            {
                auto it = header.find(field);
                if (it == header.end() || !it->is_string())
                {
                    return false;
                }
            }
            return true;
        }

        zmq::socket_t bound(zmq::context_t& context, zmq::socket_type type, const std::string& endpoint)
        {
            zmq::socket_t socket(context, type);
            socket.set(zmq::sockopt::linger, 1000);
            try
            {
                socket.bind(endpoint);
            }
            catch (const zmq::error_t& e)
            {
                throw std::runtime_error("cannot bind " + endpoint + ": " + e.what()
                                         + " (another process holds the port, or the address is not this machine's)");
            }
            return socket;
        }
    }

    wire_guard::wire_guard(zmq::context_t& context, const xeus::xconfiguration& public_config)
        : m_context(context)
        , m_public(public_config)
        , m_internal(public_config)
        , m_shell(bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_shell_port)))
        , m_control(bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_control_port)))
        , m_stdin(bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_stdin_port)))
        , m_iopub(bound(context, zmq::socket_type::pub, public_endpoint(public_config, public_config.m_iopub_port)))
        , m_heartbeat(bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_hb_port)))
        , m_shell_in(context, zmq::socket_type::dealer)
        , m_control_in(context, zmq::socket_type::dealer)
        , m_stdin_in(context, zmq::socket_type::dealer)
        , m_iopub_in(context, zmq::socket_type::sub)
    {
        // xeus binds "inproc://xcuda-<port>": short, so xeus 2.4.1 can read each endpoint
        // back (it allows 32 bytes, which Jupyter's ipc paths exceed).
        m_internal.m_transport = "inproc";
        m_internal.m_ip = "xcuda";
        if (!m_public.m_key.empty())
        {
            const EVP_MD* md = digest_of(m_public.m_signature_scheme);
            if (md == nullptr)
            {
                throw std::runtime_error("the connection file's signature_scheme " + m_public.m_signature_scheme
                                         + " is not one OpenSSL knows (Jupyter writes hmac-sha256)");
            }
            m_digest_hex_size = 2 * static_cast<std::size_t>(EVP_MD_size(md));
        }
    }

    wire_guard::~wire_guard()
    {
        m_stopping = true;
        if (m_thread.joinable())
        {
            m_thread.join();
        }
    }

    void wire_guard::start()
    {
        // One routing id for the three: xeus answers stdin requests to the identities of the
        // shell request that asked, which must then name the stdin forwarder too.
        for (zmq::socket_t* in : {&m_shell_in, &m_control_in, &m_stdin_in})
        {
            in->set(zmq::sockopt::routing_id, "xcuda-wire-guard");
            in->set(zmq::sockopt::linger, 0);
        }
        auto internal = [this](const std::string& port) { return "inproc://" + m_internal.m_ip + "-" + port; };
        m_shell_in.connect(internal(m_internal.m_shell_port));
        m_control_in.connect(internal(m_internal.m_control_port));
        m_stdin_in.connect(internal(m_internal.m_stdin_port));
        m_iopub_in.set(zmq::sockopt::subscribe, "");
        m_iopub_in.set(zmq::sockopt::linger, 0);
        m_iopub_in.connect(internal(m_internal.m_iopub_port));
        m_thread = std::thread([this] { forward_loop(); });
    }

    std::string wire_guard::check(const zmq::multipart_t& message)
    {
        std::size_t at = 0;
        while (at < message.size() && message[at].to_string_view() != delimiter)
        {
            ++at;
        }
        if (at == message.size())
        {
            return "no <IDS|MSG> delimiter";
        }
        if (at == 0)
        {
            return "no routing identity before the delimiter";
        }
        if (message.size() - at - 1 < 5)
        {
            return "fewer than five frames after the delimiter (signature, header, parent header, metadata, content)";
        }
        const zmq::message_t& signature = message[at + 1];
        if (!header_is_valid(message[at + 2]))
        {
            return "the header is not a JSON object with string msg_id and msg_type";
        }
        for (std::size_t i = at + 3; i < at + 6; ++i)
        {
            if (!is_json_object(message[i]))
            {
                return "the parent header, metadata or content is not a JSON object (or not UTF-8)";
            }
        }
        if (m_public.m_key.empty())
        {
            return {};
        }
        if (signature.size() != m_digest_hex_size)
        {
            return "the signature has " + std::to_string(signature.size()) + " bytes, not "
                   + std::to_string(m_digest_hex_size);
        }
        // HMAC over header, parent header, metadata and content, as signed by the frontend
        std::string signed_bytes;
        for (std::size_t i = at + 2; i < at + 6; ++i)
        {
            signed_bytes.append(message[i].data<char>(), message[i].size());
        }
        std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
        unsigned int digest_size = 0;
        if (HMAC(digest_of(m_public.m_signature_scheme), m_public.m_key.data(), static_cast<int>(m_public.m_key.size()),
                 reinterpret_cast<const unsigned char*>(signed_bytes.data()), signed_bytes.size(), digest.data(),
                 &digest_size) == nullptr)
        {
            return "the signature could not be computed (OpenSSL failed)";
        }
        std::string expected = hex(digest.data(), digest_size);
        if (CRYPTO_memcmp(expected.data(), signature.data(), expected.size()) != 0)
        {
            return "the signature does not match the connection file's key";
        }
        if (!m_seen.insert(expected).second)
        {
            return "a replay: this signature was already seen in this session";
        }
        m_seen_order.push_back(expected);
        if (m_seen_order.size() > seen_limit)
        {
            m_seen.erase(m_seen_order.front());
            m_seen_order.pop_front();
        }
        return {};
    }

    void wire_guard::forward_loop()
    {
        struct route
        {
            zmq::socket_t& from;
            zmq::socket_t& to;
            const char* checked_channel;  // frontend -> xeus: checked; else nullptr
        };
        route routes[] = {
            {m_shell, m_shell_in, "shell"},
            {m_control, m_control_in, "control"},
            {m_stdin, m_stdin_in, "stdin"},
            {m_shell_in, m_shell, nullptr},
            {m_control_in, m_control, nullptr},
            {m_stdin_in, m_stdin, nullptr},
            {m_iopub_in, m_iopub, nullptr},
            {m_heartbeat, m_heartbeat, nullptr},  // echoed as it came
        };
        std::vector<zmq::pollitem_t> items;
        for (auto& r : routes)
        {
            items.push_back({r.from.handle(), 0, ZMQ_POLLIN, 0});
        }
        while (!m_stopping)
        {
            try
            {
                if (zmq::poll(items.data(), items.size(), poll_period) == 0)
                {
                    continue;
                }
                for (std::size_t i = 0; i < items.size(); ++i)
                {
                    if ((items[i].revents & ZMQ_POLLIN) == 0)
                    {
                        continue;
                    }
                    zmq::multipart_t message;
                    if (!message.recv(routes[i].from, static_cast<int>(zmq::recv_flags::dontwait)))
                    {
                        continue;
                    }
                    if (routes[i].checked_channel != nullptr)
                    {
                        std::string why = check(message);
                        if (!why.empty())
                        {
                            write_log(std::string("xcuda: dropped a message on the ") + routes[i].checked_channel
                                      + " port (" + std::to_string(message.size()) + " frames): " + why + "\n");
                            continue;
                        }
                    }
                    message.send(routes[i].to);
                }
            }
            catch (const zmq::error_t& e)
            {
                if (e.num() == ETERM)
                {
                    return;  // the context is shutting down
                }
                if (e.num() != EINTR)
                {
                    write_log(std::string("xcuda: a message was lost between the wire and xeus: ") + e.what() + "\n");
                }
            }
            catch (const std::exception& e)
            {
                write_log(std::string("xcuda: a message was lost between the wire and xeus: ") + e.what() + "\n");
            }
        }
    }
}
