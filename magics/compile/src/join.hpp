// Words joined for a message ("sm_80 sm_90", "axpy, ns::scale"). Not param_types.hpp's join,
// which spaces type tokens as C++ is written.
#pragma once

#include <string>
#include <vector>

namespace xcuda::compile::detail {

inline std::string join_with(const std::vector<std::string>& words, const char* separator) {
    std::string s;
    for (std::size_t i = 0; i < words.size(); ++i) s += (i ? separator : "") + words[i];
    return s;
}

}  // namespace xcuda::compile::detail
