// libFuzzer target: the __global__ signature parser, and instantiation of what it finds.
#include "xcuda/compile/kernel_signature.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view src(reinterpret_cast<const char*>(data), size);
    for (const auto& k : xcuda::compile::parse_kernels(src)) {
        if (!k.is_template) continue;
        try {
            xcuda::compile::instantiate(k, {"float"});
        } catch (const std::invalid_argument&) {  // a wrong argument count is a user error
        }
    }
    std::string name;
    std::vector<std::string> args;
    xcuda::compile::split_template_expr(src, name, args);
    return 0;
}
