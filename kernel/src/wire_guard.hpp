#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <vector>
#include <string>
#include <thread>
#include <unordered_set>

#include <nlohmann/json.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xmessage.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

namespace xcuda::kernel
{
    // The kernel's own layer in front of xeus on the wire. xeus 2.4.1 deserialises a message
    // before counting its frames or checking its signature's length, so two frames sent by
    // any local user abort the process, a signature with bytes appended passes (only the
    // first 64 bytes are compared) and a replayed request runs again.
    //
    // The guard binds the connection file's ports itself and hands xeus a configuration of
    // inproc endpoints in the same ZeroMQ context. A request on shell, control or stdin
    // reaches xeus only if it is well formed (identities, the <IDS|MSG> delimiter, signature,
    // header, parent header, metadata and content, each a JSON object, UTF-8), its signature
    // matches the whole frame (constant time) and was not seen before in this session (as
    // ipykernel keeps its digest history); anything else is dropped with a line in the
    // kernel's log. A request whose fields have the wrong types (xeus would throw and never
    // answer) gets an error reply and its busy/idle pair from here. Replies and IOPub go out
    // unchanged; the heartbeat is echoed here. IOPub is an XPUB socket: each frontend that
    // subscribes gets an iopub_welcome (JEP 65).
    class wire_guard
    {
    public:
        wire_guard(zmq::context_t& context, const xeus::xconfiguration& public_config);
        ~wire_guard();
        wire_guard(const wire_guard&) = delete;
        wire_guard& operator=(const wire_guard&) = delete;

        // What xeus must bind: the same ports and key on inproc endpoints.
        const xeus::xconfiguration& internal_config() const { return m_internal; }

        // Once xeus has bound them: connects to them and starts forwarding, the shell requests
        // a replaced process left (replay_file_env) first.
        void start();

        // For a process replacement (%cuda_restart): shell requests that pass the checks are
        // kept from now on instead of reaching xeus; stop_and_take_held() ends forwarding and
        // hands them over, oldest first.
        void hold_shell_requests();
        std::vector<zmq::multipart_t> stop_and_take_held();

        // Requests in wire form, for the process that replaces this one: written to the file
        // that $XCUDA_REPLAY_REQUESTS names there, read (and removed) by its guard's start().
        static constexpr const char* replay_file_env = "XCUDA_REPLAY_REQUESTS";
        static void save_requests(const std::string& path, const std::vector<zmq::multipart_t>& requests);
        // Requests xeus had received but not handled, in wire form again (signed, the guard's own
        // routing id taken off), as a frontend sent them.
        std::vector<zmq::multipart_t> to_wire(std::vector<xeus::xmessage> requests) const;

        // What a message from a frontend is: to drop (drop_reason says why), a request to
        // answer with an error here (bad_fields says which), or fit for xeus (both empty).
        // Records the signature of a signed message it lets through (a second is a replay).
        struct verdict
        {
            std::string drop_reason;
            std::string bad_fields;
            nlohmann::json header;
            std::size_t delimiter = 0;
        };
        verdict check(const zmq::multipart_t& message);

    private:
        void forward_loop();
        std::string signature(const std::string& header, const std::string& parent, const std::string& metadata,
                              const std::string& content) const;
        // One reply (status error) and one busy/idle pair, as xeus would have sent.
        void answer_bad_request(zmq::socket_t& channel, const zmq::multipart_t& request, const verdict& v);
        void publish(const std::string& topic, const char* msg_type, const nlohmann::json& parent,
                     const nlohmann::json& content);
        void publish_status(const nlohmann::json& parent, const char* state);
        // An iopub_welcome for each new subscription (JEP 65, as ipykernel 7 sends it): a
        // frontend knows its IOPub is connected without racing the kernel's first busy/idle.
        // Returns whether there was a subscription among them (not only ends of some).
        bool welcome(const zmq::multipart_t& subscriptions);

        xeus::xconfiguration m_public;
        xeus::xconfiguration m_internal;
        // bound to the connection file's ports (used by the forwarding thread once started)
        zmq::socket_t m_shell, m_control, m_stdin, m_iopub, m_heartbeat;
        // connected to xeus's inproc endpoints
        zmq::socket_t m_shell_in, m_control_in, m_stdin_in, m_iopub_in;
        std::size_t m_digest_hex_size = 0;
        std::string m_session;  // of the replies the guard sends itself
        // signatures seen, oldest first; bounded as ipykernel's digest history
        std::unordered_set<std::string> m_seen;
        std::deque<std::string> m_seen_order;
        std::atomic<bool> m_stopping{false};
        std::atomic<bool> m_holding{false};
        std::mutex m_held_mutex;
        std::vector<zmq::multipart_t> m_held;
        std::vector<zmq::multipart_t> m_replay;  // handed over by the process this one replaced
        bool m_replacing = false;                // this process replaces another: IOPub waits (forward_loop)
        std::thread m_thread;
    };
}
