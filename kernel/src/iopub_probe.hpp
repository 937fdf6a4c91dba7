#pragma once

#include <zmq_addon.hpp>

#include <functional>
#include <string>

namespace xcuda::kernel
{
    // Whether xeus's IOPub reaches the wire guard yet. In a process that replaces another
    // (%cuda_restart) the guard has requests to pass on at once, but the guard's inproc SUB
    // subscribes to xeus's publisher asynchronously, and a cell's first messages (busy,
    // execute_input) published before that are lost. The probe is a kernel_info_request of the
    // guard's own, under a routing identity of its own: once one of the probe's IOPub messages
    // comes back, what xeus publishes reaches the guard. Its reply and output go to nobody.
    class iopub_probe
    {
    public:
        // sign(header, parent, metadata, content): the connection file's HMAC, hex.
        using signer =
            std::function<std::string(const std::string&, const std::string&, const std::string&, const std::string&)>;
        iopub_probe(const signer& sign, const std::string& session);

        // The request, to send on the guard's shell socket to xeus (again, until answered).
        zmq::multipart_t request() const;
        // A shell reply to the probe (its first frame is the probe's identity).
        bool is_reply(const zmq::multipart_t& from_xeus) const;
        // An IOPub message whose parent is the probe.
        bool is_output(const zmq::multipart_t& published) const;

    private:
        std::string m_msg_id;
        std::string m_header;
        std::string m_signature;
    };
}
