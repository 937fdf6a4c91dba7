#include "xcuda/compile/scalar_type.hpp"

#include "cpp_tokens.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace xcuda::compile {

const char* scalar_name(ScalarType t) noexcept {
    switch (t) {
        case ScalarType::none: return "";
        case ScalarType::bool_: return "bool";
        case ScalarType::int8: return "int8";
        case ScalarType::uint8: return "uint8";
        case ScalarType::int16: return "int16";
        case ScalarType::uint16: return "uint16";
        case ScalarType::int32: return "int32";
        case ScalarType::uint32: return "uint32";
        case ScalarType::int64: return "int64";
        case ScalarType::uint64: return "uint64";
        case ScalarType::float16: return "float16";
        case ScalarType::bfloat16: return "bfloat16";
        case ScalarType::float32: return "float32";
        case ScalarType::float64: return "float64";
    }
    return "";
}

std::size_t scalar_size(ScalarType t) noexcept {
    switch (t) {
        case ScalarType::none: return 0;
        case ScalarType::bool_:
        case ScalarType::int8:
        case ScalarType::uint8: return 1;
        case ScalarType::int16:
        case ScalarType::uint16:
        case ScalarType::float16:
        case ScalarType::bfloat16: return 2;
        case ScalarType::int32:
        case ScalarType::uint32:
        case ScalarType::float32: return 4;
        case ScalarType::int64:
        case ScalarType::uint64:
        case ScalarType::float64: return 8;
    }
    return 0;
}

ScalarType scalar_from_type(std::string_view type) noexcept {
    std::vector<std::string> words;
    {
        std::string cur;
        for (char c : type) {
            if (detail::is_identifier_char(c) || c == ':') {
                cur += c;
            } else if (!cur.empty()) {
                words.push_back(cur);
                cur.clear();
            }
        }
        if (!cur.empty()) words.push_back(cur);
    }
    words.erase(
        std::remove_if(words.begin(), words.end(), [](const std::string& w) { return detail::is_cv_qualifier(w); }),
        words.end());
    if (words.empty()) return ScalarType::none;
    if (words.size() == 1) {
        std::string w = words[0];
        if (w.rfind("::", 0) == 0) w = w.substr(2);
        if (w.rfind("std::", 0) == 0) w = w.substr(5);
        static const std::map<std::string, ScalarType> named = {
            {"bool", ScalarType::bool_},
            {"float", ScalarType::float32},
            {"double", ScalarType::float64},
            {"half", ScalarType::float16},
            {"__half", ScalarType::float16},
            {"__nv_bfloat16", ScalarType::bfloat16},
            {"nv_bfloat16", ScalarType::bfloat16},
            {"int8_t", ScalarType::int8},
            {"uint8_t", ScalarType::uint8},
            {"int16_t", ScalarType::int16},
            {"uint16_t", ScalarType::uint16},
            {"int32_t", ScalarType::int32},
            {"uint32_t", ScalarType::uint32},
            {"int64_t", ScalarType::int64},
            {"uint64_t", ScalarType::uint64},
            {"size_t", ScalarType::uint64},
            {"uintptr_t", ScalarType::uint64},
            {"ptrdiff_t", ScalarType::int64},
            {"intptr_t", ScalarType::int64},
            {"ssize_t", ScalarType::int64},
            {"cudaTextureObject_t", ScalarType::uint64},
            {"cudaSurfaceObject_t", ScalarType::uint64},
        };
        auto it = named.find(w);
        if (it != named.end()) return it->second;
    }
    int n_unsigned = 0, n_signed = 0, n_short = 0, n_long = 0, n_int = 0, n_char = 0;
    for (const auto& w : words) {
        if (w == "unsigned")
            ++n_unsigned;
        else if (w == "signed")
            ++n_signed;
        else if (w == "short")
            ++n_short;
        else if (w == "long")
            ++n_long;
        else if (w == "int")
            ++n_int;
        else if (w == "char")
            ++n_char;
        else
            return ScalarType::none;
    }
    if (n_unsigned + n_signed > 1 || n_int > 1 || n_char > 1 || n_long > 2 || n_short > 1 || (n_short && n_long) ||
        (n_char && (n_short || n_long || n_int)))
        return ScalarType::none;
    bool u = n_unsigned == 1;
    if (n_char) return u ? ScalarType::uint8 : ScalarType::int8;
    if (n_short) return u ? ScalarType::uint16 : ScalarType::int16;
    if (n_long) return u ? ScalarType::uint64 : ScalarType::int64;  // LP64: long is 64-bit
    return u ? ScalarType::uint32 : ScalarType::int32;
}

}  // namespace xcuda::compile
