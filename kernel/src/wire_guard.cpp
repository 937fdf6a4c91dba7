#include "wire_guard.hpp"

#include "iopub_probe.hpp"
#include "reply_sender.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <chrono>
#include <memory>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string_view>

#include <nlohmann/json.hpp>
#include <xeus/xguid.hpp>
#include <xeus/xauthentication.hpp>
#include <xeus/xmessage.hpp>
#include <xeus/xzmq_serializer.hpp>
#include <zmq_addon.hpp>

#include "request_schema.hpp"
#include "shell_bridge.hpp"

namespace xcuda::kernel
{
    namespace
    {
        const std::string delimiter = "<IDS|MSG>";
        // The routing id of the guard's sockets towards xeus (xeus sees it as the first identity).
        const std::string guard_routing_id = "xcuda-wire-guard";

        std::vector<zmq::multipart_t> load_requests(const std::string& path)
        {
            std::ifstream in(path, std::ios::binary);
            std::vector<zmq::multipart_t> requests;
            auto get = [&in](std::uint64_t& v) {
                return static_cast<bool>(in.read(reinterpret_cast<char*>(&v), sizeof v));
            };
            std::uint64_t count = 0;
            if (!get(count))
            {
                return requests;
            }
            for (std::uint64_t r = 0; r < count; ++r)
            {
                std::uint64_t frames = 0;
                if (!get(frames))
                {
                    break;
                }
                zmq::multipart_t request;
                for (std::uint64_t f = 0; f < frames; ++f)
                {
                    std::uint64_t size = 0;
                    if (!get(size) || size > (std::uint64_t{1} << 32))
                    {
                        return requests;
                    }
                    std::string bytes(size, '\0');
                    if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
                    {
                        return requests;
                    }
                    request.addstr(bytes);
                }
                requests.push_back(std::move(request));
            }
            return requests;
        }
        // ipykernel's digest_history_size
        constexpr std::size_t seen_limit = 1 << 16;
        constexpr std::chrono::milliseconds poll_period{100};
        // How long, and how much, a replacing process's IOPub output may wait for a subscriber.
        constexpr std::chrono::seconds iopub_hold_limit{60};
        constexpr std::size_t iopub_hold_bytes = std::size_t{64} << 20;
        constexpr std::chrono::seconds iopub_probe_limit{10};
        // How long a reply waits for its frontend to connect (again).
        constexpr std::chrono::seconds reply_wait_limit{30};

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
            if (type == zmq::socket_type::xpub)
            {
                // every subscription reaches the guard, a repeated one too: each new
                // frontend gets its welcome
                socket.set(zmq::sockopt::xpub_verbose, true);
            }
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
        : m_public(public_config)
        , m_internal(public_config)
        , m_shell(bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_shell_port)))
        , m_control(
              bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_control_port)))
        , m_stdin(bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_stdin_port)))
        , m_iopub(bound(context, zmq::socket_type::xpub, public_endpoint(public_config, public_config.m_iopub_port)))
        , m_heartbeat(bound(context, zmq::socket_type::router, public_endpoint(public_config, public_config.m_hb_port)))
        , m_shell_in(context, zmq::socket_type::dealer)
        , m_control_in(context, zmq::socket_type::dealer)
        , m_stdin_in(context, zmq::socket_type::dealer)
        , m_iopub_in(context, zmq::socket_type::sub)
    {
        // xeus binds "inproc://xcuda-<port>": short, so xeus 2.4.1 can read each endpoint
        // back (it allows 32 bytes, which Jupyter's ipc paths exceed).
        m_session = xeus::new_xguid();
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
            in->set(zmq::sockopt::routing_id, guard_routing_id);
            in->set(zmq::sockopt::linger, 0);
        }
        auto internal = [this](const std::string& port) { return "inproc://" + m_internal.m_ip + "-" + port; };
        m_shell_in.connect(internal(m_internal.m_shell_port));
        m_control_in.connect(internal(m_internal.m_control_port));
        m_stdin_in.connect(internal(m_internal.m_stdin_port));
        m_iopub_in.set(zmq::sockopt::subscribe, "");
        m_iopub_in.set(zmq::sockopt::linger, 0);
        m_iopub_in.connect(internal(m_internal.m_iopub_port));
        // The requests the process this one replaced had not answered (%cuda_restart): first, in
        // their order, their output held until a frontend's IOPub is back (forward_loop).
        if (const char* path = std::getenv(replay_file_env))
        {
            const std::string file = path;
            ::unsetenv(replay_file_env);
            m_replay = load_requests(file);
            m_replacing = true;
            std::remove(file.c_str());
        }
        m_thread = std::thread([this] { forward_loop(); });
    }

    std::string wire_guard::signature(const std::string& header, const std::string& parent, const std::string& metadata,
                                      const std::string& content) const
    {
        if (m_public.m_key.empty())
        {
            return {};
        }
        std::string signed_bytes = header + parent + metadata + content;
        std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
        unsigned int digest_size = 0;
        if (HMAC(digest_of(m_public.m_signature_scheme), m_public.m_key.data(), static_cast<int>(m_public.m_key.size()),
                 reinterpret_cast<const unsigned char*>(signed_bytes.data()), signed_bytes.size(), digest.data(),
                 &digest_size)
            == nullptr)
        {
            throw std::runtime_error("OpenSSL could not compute an HMAC");
        }
        return hex(digest.data(), digest_size);
    }

    wire_guard::verdict wire_guard::check(const zmq::multipart_t& message)
    {
        verdict v;
        std::size_t at = 0;
        while (at < message.size() && message[at].to_string_view() != delimiter)
        {
            ++at;
        }
        v.delimiter = at;
        if (at == message.size())
        {
            v.drop_reason = "no <IDS|MSG> delimiter";
            return v;
        }
        if (at == 0)
        {
            v.drop_reason = "no routing identity before the delimiter";
            return v;
        }
        if (message.size() - at - 1 < 5)
        {
            v.drop_reason =
                "fewer than five frames after the delimiter (signature, header, parent header, metadata, content)";
            return v;
        }
        if (!header_is_valid(message[at + 2]))
        {
            v.drop_reason = "the header is not a JSON object with string msg_id and msg_type";
            return v;
        }
        for (std::size_t i = at + 3; i < at + 6; ++i)
        {
            if (!is_json_object(message[i]))
            {
                v.drop_reason = "the parent header, metadata or content is not a JSON object (or not UTF-8)";
                return v;
            }
        }
        if (!m_public.m_key.empty())
        {
            const zmq::message_t& given = message[at + 1];
            if (given.size() != m_digest_hex_size)
            {
                v.drop_reason = "the signature has " + std::to_string(given.size()) + " bytes, not "
                                + std::to_string(m_digest_hex_size);
                return v;
            }
            std::string expected = signature(message[at + 2].to_string(), message[at + 3].to_string(),
                                             message[at + 4].to_string(), message[at + 5].to_string());
            if (CRYPTO_memcmp(expected.data(), given.data(), expected.size()) != 0)
            {
                v.drop_reason = "the signature does not match the connection file's key";
                return v;
            }
            if (!m_seen.insert(expected).second)
            {
                v.drop_reason = "a replay: this signature was already seen in this session";
                return v;
            }
            m_seen_order.push_back(expected);
            if (m_seen_order.size() > seen_limit)
            {
                m_seen.erase(m_seen_order.front());
                m_seen_order.pop_front();
            }
        }
        v.header = nlohmann::json::parse(message[at + 2].to_string());
        const std::string msg_type = v.header["msg_type"].get<std::string>();
        v.bad_fields = field_type_problem(msg_type, nlohmann::json::parse(message[at + 5].to_string()));
        if (!v.bad_fields.empty() && !expects_reply(msg_type))
        {
            v.drop_reason = v.bad_fields;  // no reply exists for it: comm messages, input_reply
            v.bad_fields.clear();
        }
        return v;
    }

    void wire_guard::publish(const std::string& topic, const char* msg_type, const nlohmann::json& parent,
                             const nlohmann::json& content)
    {
        std::string header = xeus::make_header(msg_type, "xcuda", m_session).dump();
        std::string parent_text = parent.dump();
        std::string metadata = "{}";
        // replace: a subscription's topic is any bytes a local peer sent, not always UTF-8
        std::string content_text = content.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        zmq::multipart_t out;
        out.addstr(topic);
        out.addstr(delimiter);
        out.addstr(signature(header, parent_text, metadata, content_text));
        out.addstr(header);
        out.addstr(parent_text);
        out.addstr(metadata);
        out.addstr(content_text);
        out.send(m_iopub);
    }

    void wire_guard::publish_status(const nlohmann::json& parent, const char* state)
    {
        publish("kernel.xcuda.status", "status", parent, {{"execution_state", state}});
    }

    bool wire_guard::welcome(const zmq::multipart_t& subscriptions)
    {
        bool any = false;
        for (const zmq::message_t& frame : subscriptions)
        {
            // \x01 + topic: a subscription; \x00 + topic: one ended
            if (frame.size() == 0 || frame.data<char>()[0] != 1)
            {
                continue;
            }
            std::string topic(frame.data<char>() + 1, frame.size() - 1);
            // the topic the subscriber asked for, so that it receives its own welcome
            publish(topic.empty() ? "kernel.xcuda.iopub_welcome" : topic, "iopub_welcome", nlohmann::json::object(),
                    {{"subscription", topic}});
            any = true;
        }
        return any;
    }

    void wire_guard::answer_bad_request(zmq::socket_t& channel, const zmq::multipart_t& request, const verdict& v)
    {
        std::string type = v.header["msg_type"].get<std::string>();
        type.replace(type.rfind("_request"), std::string::npos, "_reply");
        std::string header = xeus::make_header(type, "xcuda", m_session).dump();
        std::string parent = request[v.delimiter + 2].to_string();
        std::string metadata = "{}";
        std::string content = nlohmann::json{{"status", "error"},
                                             {"ename", "BadRequest"},
                                             {"evalue", v.bad_fields},
                                             {"traceback", nlohmann::json::array()}}
                                  .dump();
        publish_status(v.header, "busy");
        zmq::multipart_t out;
        for (std::size_t i = 0; i < v.delimiter; ++i)
        {
            out.addstr(request[i].to_string());
        }
        out.addstr(delimiter);
        out.addstr(signature(header, parent, metadata, content));
        out.addstr(header);
        out.addstr(parent);
        out.addstr(metadata);
        out.addstr(content);
        out.send(channel);
        publish_status(v.header, "idle");
    }

    void wire_guard::hold_shell_requests()
    {
        m_holding = true;
    }

    std::vector<zmq::multipart_t> wire_guard::stop_and_take_held()
    {
        m_stopping = true;
        if (m_thread.joinable())
        {
            m_thread.join();
        }
        std::lock_guard<std::mutex> lock(m_held_mutex);
        return std::move(m_held);
    }

    // Each request: its frame count, then each frame's size and bytes (sizes as 8 bytes, host order:
    // the same machine reads them back).
    void wire_guard::save_requests(const std::string& path, const std::vector<zmq::multipart_t>& requests)
    {
        std::ofstream out(path, std::ios::binary);
        auto put = [&out](std::uint64_t v) { out.write(reinterpret_cast<const char*>(&v), sizeof v); };
        put(requests.size());
        for (const zmq::multipart_t& request : requests)
        {
            put(request.size());
            for (const zmq::message_t& frame : request)
            {
                put(frame.size());
                out.write(frame.data<char>(), static_cast<std::streamsize>(frame.size()));
            }
        }
        if (!out)
        {
            throw std::runtime_error("cannot write " + path);
        }
    }

    std::vector<zmq::multipart_t> wire_guard::to_wire(std::vector<xeus::xmessage> requests) const
    {
        const auto auth = xeus::make_xauthentication(m_public.m_signature_scheme, m_public.m_key);
        std::vector<zmq::multipart_t> out;
        for (xeus::xmessage& r : requests)
        {
            auto ids = r.identities();
            if (!ids.empty() && ids.front() == guard_routing_id)
            {
                ids.erase(ids.begin());
            }
            xeus::xmessage again(ids, r.header(), r.parent_header(), r.metadata(), r.content(), std::move(r).buffers());
            out.push_back(xeus::xzmq_serializer::serialize(std::move(again), *auth));
        }
        return out;
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
            {m_shell, m_shell_in, "shell"}, {m_control, m_control_in, "control"}, {m_stdin, m_stdin_in, "stdin"},
            {m_shell_in, m_shell, nullptr}, {m_control_in, m_control, nullptr},   {m_stdin_in, m_stdin, nullptr},
            {m_iopub_in, m_iopub, nullptr}, {m_heartbeat, m_heartbeat, nullptr},  // echoed as it came
        };
        std::vector<zmq::pollitem_t> items;
        for (auto& r : routes)
        {
            items.push_back({r.from.handle(), 0, ZMQ_POLLIN, 0});
        }
        const std::size_t subscriptions = items.size();  // frontends subscribing to IOPub
        items.push_back({m_iopub.handle(), 0, ZMQ_POLLIN, 0});
        auto route_from = [&routes](const zmq::socket_t& socket) {
            std::size_t i = 0;
            while (&routes[i].from != &socket)
            {
                ++i;
            }
            return i;
        };
        const std::size_t iopub_route = route_from(m_iopub_in);
        const std::size_t replies_route = route_from(m_shell_in);  // xeus's shell replies
        const std::size_t requests_route = route_from(m_shell);    // frontends' shell requests
        // A process that replaces another (%cuda_restart) starts in two steps.
        // 1. Until xeus's IOPub reaches the guard (iopub_probe), the shell port is not polled
        //    (requests wait in its queue): a cell's busy and execute_input would be lost. Then
        //    the requests the replaced process handed over go to xeus, in their order.
        // 2. Until a frontend subscribes to IOPub again, its messages are held: a SUB socket that
        //    reconnects resends its subscription only when its owner next polls it (libzmq does
        //    it on the socket's own thread), and a client that waits for a cell's shell reply
        //    before it reads IOPub would find the cell's output published to nobody. Held up to
        //    iopub_hold_limit or iopub_hold_bytes, then published as they come.
        std::unique_ptr<iopub_probe> probe;
        bool awaiting_xeus = m_replacing;
        bool holding_output = m_replacing;
        std::vector<zmq::multipart_t> held_output;
        std::size_t held_bytes = 0;
        const auto started = std::chrono::steady_clock::now();
        auto probed_at = started;
        if (awaiting_xeus)
        {
            probe =
                std::make_unique<iopub_probe>([this](const std::string& h, const std::string& p, const std::string& m,
                                                     const std::string& c) { return signature(h, p, m, c); },
                                              m_session);
            probe->request().send(m_shell_in);
            items[requests_route].events = 0;
        }
        auto pass_on_handed_over = [&] {
            awaiting_xeus = false;
            items[requests_route].events = ZMQ_POLLIN;
            std::size_t passed = 0;
            for (zmq::multipart_t& request : m_replay)
            {
                const verdict v = check(request);  // as if from the wire now (signature, replay)
                if (v.drop_reason.empty() && v.bad_fields.empty())
                {
                    request.send(m_shell_in);
                    ++passed;
                }
                else
                {
                    write_log("xcuda: a request handed over by %cuda_restart was dropped: " + v.drop_reason
                              + v.bad_fields + "\n");
                }
            }
            if (!m_replay.empty())
            {
                write_log("xcuda: " + std::to_string(passed)
                          + " requests handed over by %cuda_restart go to the kernel\n");
            }
            m_replay.clear();
        };
        auto publish_held = [&] {
            holding_output = false;
            for (zmq::multipart_t& message : held_output)
            {
                message.send(m_iopub);
            }
            held_output.clear();
        };
        // Replies to frontends, which may be reconnecting (reply_sender).
        reply_sender shell_out(m_shell, "shell", reply_wait_limit);
        reply_sender control_out(m_control, "control", reply_wait_limit);
        reply_sender stdin_out(m_stdin, "stdin", reply_wait_limit);
        auto to_frontend = [&](const zmq::socket_t& socket) -> reply_sender* {
            return &socket == &m_shell     ? &shell_out
                   : &socket == &m_control ? &control_out
                   : &socket == &m_stdin   ? &stdin_out
                                           : nullptr;
        };
        while (!m_stopping)
        {
            const auto now = std::chrono::steady_clock::now();
            shell_out.retry();
            control_out.retry();
            stdin_out.retry();
            if (awaiting_xeus && now - started > iopub_probe_limit)
            {
                write_log("xcuda: the kernel's IOPub did not answer a probe after the restart; going on\n");
                pass_on_handed_over();
            }
            else if (awaiting_xeus && now - probed_at > poll_period)
            {
                probe->request().send(m_shell_in);  // the first one's output may have been lost
                probed_at = now;
            }
            if (holding_output && (held_bytes > iopub_hold_bytes || now - started > iopub_hold_limit))
            {
                publish_held();
            }
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
                    zmq::socket_t& from = i == subscriptions ? m_iopub : routes[i].from;
                    if (!message.recv(from, static_cast<int>(zmq::recv_flags::dontwait)))
                    {
                        continue;
                    }
                    if (i == subscriptions)
                    {
                        if (welcome(message) && holding_output)
                        {
                            publish_held();  // after the welcome, as a newly subscribed frontend expects
                        }
                        continue;
                    }
                    if (probe && i == replies_route && probe->is_reply(message))
                    {
                        continue;
                    }
                    if (probe && i == iopub_route && probe->is_output(message))
                    {
                        if (awaiting_xeus)
                        {
                            pass_on_handed_over();
                        }
                        continue;
                    }
                    if (i == iopub_route && holding_output)
                    {
                        for (const zmq::message_t& frame : message)
                        {
                            held_bytes += frame.size();
                        }
                        held_output.push_back(std::move(message));
                        continue;
                    }
                    if (routes[i].checked_channel != nullptr)
                    {
                        verdict v = check(message);
                        if (!v.drop_reason.empty())
                        {
                            write_log(std::string("xcuda: dropped a message on the ") + routes[i].checked_channel
                                      + " port (" + std::to_string(message.size()) + " frames): " + v.drop_reason
                                      + "\n");
                            continue;
                        }
                        if (!v.bad_fields.empty())
                        {
                            write_log(std::string("xcuda: answered a malformed request with an error: ") + v.bad_fields
                                      + "\n");
                            answer_bad_request(routes[i].from, message, v);
                            continue;
                        }
                        if (i == 0 && m_holding)
                        {
                            std::lock_guard<std::mutex> lock(m_held_mutex);
                            m_held.push_back(std::move(message));  // for the process that replaces this one
                            continue;
                        }
                    }
                    if (reply_sender* out = to_frontend(routes[i].to))
                    {
                        out->send(std::move(message));
                        continue;
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
