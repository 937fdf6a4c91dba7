#include "iopub_probe.hpp"

#include <xeus/xguid.hpp>
#include <xeus/xmessage.hpp>

namespace xcuda::kernel
{
    namespace
    {
        constexpr const char* probe_identity = "xcuda-iopub-probe";
        constexpr const char* delimiter = "<IDS|MSG>";
        constexpr const char* empty_object = "{}";
    }

    iopub_probe::iopub_probe(const signer& sign, const std::string& session)
    {
        nl::json header = xeus::make_header("kernel_info_request", "xcuda", session);
        m_msg_id = header["msg_id"].get<std::string>();
        m_header = header.dump();
        m_signature = sign(m_header, empty_object, empty_object, empty_object);
    }

    zmq::multipart_t iopub_probe::request() const
    {
        zmq::multipart_t message;
        message.addstr(probe_identity);
        message.addstr(delimiter);
        message.addstr(m_signature);
        message.addstr(m_header);
        message.addstr(empty_object);
        message.addstr(empty_object);
        message.addstr(empty_object);
        return message;
    }

    bool iopub_probe::is_reply(const zmq::multipart_t& from_xeus) const
    {
        return !from_xeus.empty() && from_xeus[0].to_string_view() == probe_identity;
    }

    bool iopub_probe::is_output(const zmq::multipart_t& published) const
    {
        for (std::size_t at = 0; at + 3 < published.size(); ++at)
        {
            if (published[at].to_string_view() == delimiter)
            {
                // after the delimiter: signature, header, parent header
                return published[at + 3].to_string_view().find(m_msg_id) != std::string_view::npos;
            }
        }
        return false;
    }
}
