// libFuzzer target: NVRTC log -> cell diagnostics. The first line of the input is used as the
// cell source, the rest as the log, so columns are computed against a matching source too.
#include "xcuda/compile/diagnostics.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    std::size_t nl = in.find('\n');
    std::string_view source = nl == std::string_view::npos ? std::string_view{} : in.substr(0, nl);
    std::string_view log = nl == std::string_view::npos ? in : in.substr(nl + 1);
    auto ds = xcuda::compile::parse_nvrtc_log(log, source);
    (void)xcuda::compile::format_diagnostics(ds);
    (void)xcuda::compile::user_log(log);
    return 0;
}
