// libFuzzer target: the %%cuda magic line parser. Only ParseError may escape.
#include "xcuda/compile/cell_options.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view line(reinterpret_cast<const char*>(data), size);
    try {
        xcuda::compile::CellOptions o = xcuda::compile::parse_cell_options(line);
        (void)xcuda::compile::nvrtc_options(o);
    } catch (const xcuda::compile::ParseError&) {
    }
    return 0;
}
