#include "xcuda/compile/param_layout.hpp"

#include <cctype>
#include <string>

namespace xcuda::compile {
namespace {

bool ptx_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

std::size_t skip_space(std::string_view s, std::size_t i) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return i;
}

std::optional<std::size_t> number_at(std::string_view s, std::size_t& i) {
    std::size_t v = 0, digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && digits < 12) {
        v = v * 10 + std::size_t(s[i] - '0');
        ++i;
        ++digits;
    }
    if (digits == 0) return std::nullopt;
    return v;
}

// One parameter's text: ".param .align 8 .b8 k_param_6[8]", ".param .u64 .ptr .align 1 k_param_2".
std::optional<PtxParam> parse_param(std::string_view text) {
    PtxParam p;
    std::size_t i = 0, width = 0;
    char type_letter = 0;
    std::size_t explicit_align = 0;
    bool array = false;
    std::size_t count = 0;
    while (true) {
        i = skip_space(text, i);
        if (i >= text.size()) break;
        std::size_t start = i;
        while (i < text.size() && ptx_ident_char(text[i])) ++i;
        std::string_view word = text.substr(start, i - start);
        if (word.empty()) {
            if (text[i] == '[') {
                ++i;
                auto n = number_at(text, i);
                if (!n || i >= text.size() || text[i] != ']') return std::nullopt;
                ++i;
                array = true;
                count = *n;
                continue;
            }
            return std::nullopt;
        }
        if (word == ".align") {
            i = skip_space(text, i);
            auto n = number_at(text, i);
            if (!n) return std::nullopt;
            if (!explicit_align) explicit_align = *n;
            continue;
        }
        if (word.size() >= 3 && word[0] == '.' &&
            (word[1] == 'u' || word[1] == 's' || word[1] == 'b' || word[1] == 'f') &&
            std::isdigit(static_cast<unsigned char>(word[2])) && !type_letter) {
            std::size_t j = 2;
            auto n = number_at(word, j);
            if (!n || j != word.size() || *n % 8 != 0 || *n == 0 || *n > 64) return std::nullopt;
            type_letter = word[1];
            width = *n / 8;
        }
        // .param, .ptr, .global, .const, the name: nothing to learn
    }
    if (!type_letter) return std::nullopt;
    if (array) {
        p.cls = PtxParam::Class::bytes;
        p.size = count * width;
        p.align = explicit_align ? explicit_align : width;
    } else {
        p.cls = type_letter == 'f' ? PtxParam::Class::floating : PtxParam::Class::integer;
        p.size = width;
        p.align = width;  // in `.u64 .ptr .align N` N is the pointee's alignment, not the slot's
    }
    return p;
}

std::string strip_cv(std::string_view type) {
    std::string out;
    std::string word;
    auto flush = [&] {
        if (word.empty()) return;
        if (word != "const" && word != "volatile" && word != "struct" && word != "class" && word != "union" &&
            word != "__restrict__" && word != "__restrict")
            out += word;
        word.clear();
    };
    for (char c : type) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            word += c;
        } else {
            flush();
            if (!std::isspace(static_cast<unsigned char>(c))) out += c;
        }
    }
    flush();
    if (out.rfind("::", 0) == 0) out.erase(0, 2);
    return out;
}

}  // namespace

std::optional<std::vector<PtxParam>> ptx_entry_params(std::string_view ptx, std::string_view entry) {
    for (std::size_t at = ptx.find(".entry"); at != std::string_view::npos; at = ptx.find(".entry", at + 6)) {
        std::size_t i = skip_space(ptx, at + 6);
        std::size_t name_start = i;
        while (i < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[i])) || ptx[i] == '_' || ptx[i] == '$'))
            ++i;
        if (ptx.substr(name_start, i - name_start) != entry) continue;
        i = skip_space(ptx, i);
        if (i >= ptx.size() || ptx[i] != '(') continue;
        std::size_t close = ptx.find(')', i);
        if (close == std::string_view::npos) return std::nullopt;
        std::vector<PtxParam> out;
        std::string_view list = ptx.substr(i + 1, close - i - 1);
        if (skip_space(list, 0) == list.size()) return out;
        std::size_t begin = 0;
        while (begin <= list.size()) {
            std::size_t comma = list.find(',', begin);
            std::string_view one =
                list.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin);
            auto p = parse_param(one);
            if (!p) return std::nullopt;
            out.push_back(*p);
            if (comma == std::string_view::npos) break;
            begin = comma + 1;
        }
        return out;
    }
    return std::nullopt;
}

std::pair<ScalarType, int> vector_type(std::string_view type, bool* is_complex) noexcept {
    if (is_complex) *is_complex = false;
    std::string t = strip_cv(type);
    auto complex_of = [&](ScalarType s) {
        if (is_complex) *is_complex = true;
        return std::pair<ScalarType, int>{s, 2};
    };
    if (t == "cuFloatComplex" || t == "cuComplex") return complex_of(ScalarType::float32);
    if (t == "cuDoubleComplex") return complex_of(ScalarType::float64);
    // std::complex<float>, cuda::std::complex<double>, thrust::complex<float>, complex<float>
    for (const char* suffix : {"complex<float>", "complex<double>"}) {
        const std::string s = suffix;
        if (t.size() >= s.size() && t.compare(t.size() - s.size(), s.size(), s) == 0 &&
            (t.size() == s.size() || t[t.size() - s.size() - 1] == ':'))
            return complex_of(s == "complex<float>" ? ScalarType::float32 : ScalarType::float64);
    }
    if (t == "__half2" || t == "half2") return {ScalarType::float16, 2};
    if (t == "__nv_bfloat162" || t == "nv_bfloat162") return {ScalarType::bfloat16, 2};
    for (const char* aligned : {"_16a", "_32a"}) {  // CUDA 13's double4_16a, long4_32a, ...
        if (t.size() > 4 && t.compare(t.size() - 4, 4, aligned) == 0) t.resize(t.size() - 4);
    }
    if (t.empty() || t.back() < '1' || t.back() > '4') return {ScalarType::none, 0};
    const int n = t.back() - '0';
    const std::string base = t.substr(0, t.size() - 1);
    static const std::pair<const char*, ScalarType> bases[] = {
        {"char", ScalarType::int8},        {"uchar", ScalarType::uint8},   {"short", ScalarType::int16},
        {"ushort", ScalarType::uint16},    {"int", ScalarType::int32},     {"uint", ScalarType::uint32},
        {"long", ScalarType::int64},       {"ulong", ScalarType::uint64},  {"longlong", ScalarType::int64},
        {"ulonglong", ScalarType::uint64}, {"float", ScalarType::float32}, {"double", ScalarType::float64},
    };
    for (const auto& [name, scalar] : bases)
        if (base == name) return {scalar, n};
    return {ScalarType::none, 0};
}

std::vector<ValueLayout> value_layouts(const KernelDecl& decl, const std::optional<std::vector<PtxParam>>& ptx) {
    std::vector<ValueLayout> out(decl.params.size());
    const bool have_ptx = ptx && ptx->size() == decl.params.size();
    for (std::size_t i = 0; i < decl.params.size(); ++i) {
        const Param& p = decl.params[i];
        ValueLayout& v = out[i];
        if (have_ptx) {
            v.size = (*ptx)[i].size;
            v.align = (*ptx)[i].align;
        }
        if (p.kind != ParamKind::other) continue;  // declared scalar or pointer
        if (!have_ptx || p.is_reference) {
            v.kind = ValueLayout::Kind::unknown;
            continue;
        }
        const PtxParam& pp = (*ptx)[i];
        bool is_complex = false;
        auto [element, components] = vector_type(p.type, &is_complex);
        if (element != ScalarType::none && pp.cls == PtxParam::Class::bytes &&
            scalar_size(element) * std::size_t(components) == pp.size) {
            v.kind = is_complex ? ValueLayout::Kind::complex : ValueLayout::Kind::vector;
            v.element = element;
            v.components = components;
        } else if (pp.cls == PtxParam::Class::integer) {
            v.kind = ValueLayout::Kind::integer;
        } else if (pp.cls == PtxParam::Class::floating) {
            v.kind = ValueLayout::Kind::floating;
        } else {
            v.kind = ValueLayout::Kind::bytes;
        }
    }
    return out;
}

}  // namespace xcuda::compile
