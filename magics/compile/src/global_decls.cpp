#include "xcuda/compile/global_decls.hpp"

#include "cpp_tokens.hpp"
#include "param_types.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>

namespace xcuda::compile {
namespace {

using detail::skip_group;
using detail::Token;
using Kind = Token::Kind;

bool is(const Token& t, const char* s) { return t.kind == Kind::punct && t.text == s; }
bool is_word(const Token& t, const char* s) { return t.kind == Kind::word && t.text == s; }

bool is_cv(const std::string& w) { return w == "const" || w == "volatile" || w == "__restrict__"; }

bool is_space_word(const std::string& w) { return w == "__device__" || w == "__constant__" || w == "__managed__"; }

// Words that say how a variable is stored or linked, not what it is.
bool is_specifier(const std::string& w) {
    return is_space_word(w) || w == "__shared__" || w == "static" || w == "inline" || w == "constexpr" ||
           w == "constinit" || w == "thread_local";
}

// Words followed by a parenthesised group that belongs to no declarator.
bool is_attribute_word(const std::string& w) {
    return w == "__attribute__" || w == "__align__" || w == "alignas" || w == "__declspec";
}

bool wordlike(const std::string& s) {
    return !s.empty() && (std::isalnum(static_cast<unsigned char>(s[0])) || s[0] == '_' || s[0] == '"');
}

// Tokens joined as types are written: "unsigned int", "cuda::atomic<int>", "Vec<float, 4>", "int*".
std::string join(const std::vector<std::string>& toks) {
    std::string s;
    for (std::size_t i = 0; i < toks.size(); ++i) {
        if (i > 0 && ((wordlike(toks[i]) && wordlike(toks[i - 1])) || toks[i - 1] == ",")) s += ' ';
        s += toks[i];
    }
    return s;
}

// Splits [b, e) at commas outside (), [], {} and <>.
std::vector<std::pair<std::size_t, std::size_t>> split_commas(const std::vector<Token>& t, std::size_t b,
                                                              std::size_t e) {
    std::vector<std::pair<std::size_t, std::size_t>> parts;
    std::size_t start = b;
    for (std::size_t i = b; i < e; ++i) {
        if (is(t[i], "(") || is(t[i], "[") || is(t[i], "{") || is(t[i], "<")) {
            i = skip_group(t, i, e) - 1;
        } else if (is(t[i], ",")) {
            parts.emplace_back(start, i);
            start = i + 1;
        }
    }
    parts.emplace_back(start, e);
    return parts;
}

std::vector<TemplateParam> template_params(const std::vector<Token>& t, std::size_t b, std::size_t e) {
    std::vector<TemplateParam> out;
    for (auto [pb, pe] : split_commas(t, b, e)) {
        if (pb >= pe) continue;
        TemplateParam tp;
        std::size_t decl_end = pe;
        for (std::size_t i = pb; i < pe; ++i) {
            if (is(t[i], "=")) {
                decl_end = i;
                std::vector<std::string> def;
                for (std::size_t k = i + 1; k < pe; ++k) def.push_back(t[k].text);
                tp.default_value = join(def);
                break;
            }
        }
        std::vector<std::string> words;
        for (std::size_t i = pb; i < decl_end; ++i)
            if (!is(t[i], ".")) words.push_back(t[i].text);
        if (words.size() >= 2 && t[decl_end - 1].kind == Kind::word) {
            tp.name = words.back();
            words.pop_back();
        }
        tp.kind = join(words);
        out.push_back(std::move(tp));
    }
    return out;
}

struct Scope {
    enum Kind { ns, linkage, other } kind;
    std::string name;  // ns: "a" or "a::b" ("" when anonymous)
};

std::string namespace_prefix(const std::vector<Scope>& scopes) {
    std::string q;
    for (const auto& s : scopes)
        if (s.kind == Scope::ns && !s.name.empty()) q += s.name + "::";
    return q;
}

const char* space_word(MemorySpace s) {
    switch (s) {
        case MemorySpace::constant: return "__constant__";
        case MemorySpace::managed: return "__managed__";
        case MemorySpace::shared: return "__shared__";
        case MemorySpace::device: break;
    }
    return "__device__";
}

std::string declaration_text(const GlobalDecl& g) {
    std::string s;
    if (g.is_template && g.template_args.empty()) {
        s += "template <";
        for (std::size_t i = 0; i < g.template_params.size(); ++i)
            s += (i ? ", " : "") + g.template_params[i].kind + " " + g.template_params[i].name;
        s += "> ";
    }
    s += std::string(space_word(g.space)) + " " + g.type + " " + g.key();
    for (const auto& x : g.extents) s += "[" + x + "]";
    return s;
}

// The declarators of one variable statement t[b, e): `space` already known to be present, no
// function among them. Appends one GlobalDecl per declarator it can read.
void read_declarators(const std::vector<Token>& t, std::size_t b, std::size_t e, const std::vector<Scope>& scopes,
                      std::vector<GlobalDecl>& out) {
    GlobalDecl proto;
    proto.line = t[b].line;
    std::size_t i = b;
    if (is_word(t[i], "template") && i + 1 < e && is(t[i + 1], "<")) {
        const std::size_t close = skip_group(t, i + 1, e);
        proto.is_template = true;
        proto.template_params = template_params(t, i + 2, close - 1);
        i = close;
    }
    // Everything but specifiers and attributes; the space words say which space.
    std::vector<Token> d;
    bool constant = false, managed = false, shared = false;
    for (; i < e; ++i) {
        const Token& tok = t[i];
        if (tok.kind == Kind::word && is_attribute_word(tok.text) && i + 1 < e && is(t[i + 1], "(")) {
            i = skip_group(t, i + 1, e) - 1;
        } else if (is(tok, "[") && i + 1 < e && is(t[i + 1], "[")) {
            i = skip_group(t, i, e) - 1;
        } else if (tok.kind == Kind::word && is_specifier(tok.text)) {
            constant = constant || tok.text == "__constant__";
            managed = managed || tok.text == "__managed__";
            shared = shared || tok.text == "__shared__";
        } else {
            d.push_back(tok);
        }
    }
    proto.space = shared     ? MemorySpace::shared
                  : constant ? MemorySpace::constant
                  : managed  ? MemorySpace::managed
                             : MemorySpace::device;

    bool first = true;
    std::vector<std::string> base;
    for (auto [pb, pe] : split_commas(d, 0, d.size())) {
        // The declarator ends where its initializer starts.
        std::size_t stop = pe;
        for (std::size_t k = pb; k < pe; ++k) {
            if (is(d[k], "=") || is(d[k], "{")) {
                stop = k;
                break;
            }
            if (is(d[k], "[")) k = skip_group(d, k, pe) - 1;
        }
        std::size_t bounds = stop;  // the first '[' of the array bounds
        for (std::size_t k = pb; k < stop; ++k) {
            if (is(d[k], "<"))
                k = skip_group(d, k, stop) - 1;
            else if (is(d[k], "[")) {
                bounds = k;
                break;
            }
        }
        if (bounds == pb || d[bounds - 1].kind != Kind::word || is_cv(d[bounds - 1].text)) return;
        std::size_t name_begin = bounds - 1;
        while (name_begin >= pb + 2 && is(d[name_begin - 1], "::") && d[name_begin - 2].kind == Kind::word)
            name_begin -= 2;
        std::size_t stars = name_begin;
        while (stars > pb && (is(d[stars - 1], "*") || (d[stars - 1].kind == Kind::word && is_cv(d[stars - 1].text))))
            --stars;
        if (first) {
            for (std::size_t k = pb; k < stars; ++k)
                if (!(d[k].kind == Kind::word && is_cv(d[k].text))) base.push_back(d[k].text);
            if (base.empty()) return;  // `__device__ x;`: not a declaration this scanner can read
        }
        first = false;
        GlobalDecl g = proto;
        std::vector<std::string> type = base;
        for (std::size_t k = stars; k < name_begin; ++k)
            if (is(d[k], "*")) type.push_back("*");
        g.type = join(type);
        g.name = d[bounds - 1].text;
        std::string written;
        for (std::size_t k = name_begin; k + 1 < bounds; ++k) written += d[k].text;
        g.qualified_name = namespace_prefix(scopes) + written + g.name;
        for (std::size_t k = bounds; k < stop && is(d[k], "[");) {
            const std::size_t close = skip_group(d, k, stop);
            std::vector<std::string> x;
            for (std::size_t m = k + 1; m + 1 < close; ++m) x.push_back(d[m].text);
            g.extents.push_back(join(x));
            k = close;
        }
        g.declaration = declaration_text(g);
        out.push_back(std::move(g));
    }
}

// True when the statement t[b, e) (a memory-space word inside) declares functions, not
// variables: a '(' at top level before any initializer, other than an attribute's.
bool declares_function(const std::vector<Token>& t, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
        if (t[i].kind == Kind::word && is_attribute_word(t[i].text) && i + 1 < e && is(t[i + 1], "(")) {
            i = skip_group(t, i + 1, e) - 1;
        } else if (is(t[i], "<")) {
            i = skip_group(t, i, e) - 1;
        } else if (is(t[i], "[")) {
            i = skip_group(t, i, e) - 1;
        } else if (is(t[i], "=") || is(t[i], "{")) {
            return false;
        } else if (is(t[i], "(")) {
            return true;
        }
    }
    return false;
}

}  // namespace

std::string GlobalDecl::key() const {
    if (template_args.empty()) return qualified_name;
    std::string s = qualified_name + "<";
    for (std::size_t i = 0; i < template_args.size(); ++i) s += (i ? ", " : "") + template_args[i];
    return s + ">";
}

ElementLayout element_layout(std::string_view type) {
    std::string t(type);
    if (t.rfind("::", 0) == 0) t = t.substr(2);
    if (!t.empty() && t.back() == '*') return {ScalarType::uint64, 1};
    if (ScalarType s = scalar_from_type(t); s != ScalarType::none) return {s, 1};
    static const std::map<std::string, ElementLayout> pairs = {
        {"half2", {ScalarType::float16, 2}},
        {"__half2", {ScalarType::float16, 2}},
        {"nv_bfloat162", {ScalarType::bfloat16, 2}},
        {"__nv_bfloat162", {ScalarType::bfloat16, 2}},
    };
    if (auto it = pairs.find(t); it != pairs.end()) return it->second;
    // CUDA's vector types: float2, uint4, longlong3, double4_32a (CUDA 13's aligned spellings).
    for (const char* suffix : {"_16a", "_32a"}) {
        const std::string s(suffix);
        if (t.size() > s.size() && t.compare(t.size() - s.size(), s.size(), s) == 0) t.resize(t.size() - s.size());
    }
    if (t.size() < 2 || t.back() < '1' || t.back() > '4') return {};
    static const std::map<std::string, ScalarType> components = {
        {"char", ScalarType::int8},        {"uchar", ScalarType::uint8},   {"short", ScalarType::int16},
        {"ushort", ScalarType::uint16},    {"int", ScalarType::int32},     {"uint", ScalarType::uint32},
        {"long", ScalarType::int64},       {"ulong", ScalarType::uint64},  {"longlong", ScalarType::int64},
        {"ulonglong", ScalarType::uint64}, {"float", ScalarType::float32}, {"double", ScalarType::float64},
    };
    auto it = components.find(t.substr(0, t.size() - 1));
    if (it == components.end()) return {};
    return {it->second, t.back() - '0'};
}

std::optional<std::int64_t> literal_extent(std::string_view extent) {
    std::string s(extent);
    while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) s.pop_back();
    s.erase(std::remove(s.begin(), s.end(), '\''), s.end());
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
    int base = 10;
    std::size_t at = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, at = 2;
    else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, at = 2;
    else if (s.size() > 1 && s[0] == '0')
        base = 8, at = 1;
    std::int64_t v = 0;
    for (std::size_t i = at; i < s.size(); ++i) {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
        const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                          : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                                                                      : 99;
        if (digit >= base || v > (std::int64_t{1} << 48)) return std::nullopt;
        v = v * base + digit;
    }
    return v;
}

std::vector<GlobalDecl> parse_globals(std::string_view source) {
    const std::vector<Token> t = detail::tokenize_cpp(source);
    std::vector<GlobalDecl> out;
    std::vector<Scope> scopes;
    const std::size_t n = t.size();
    std::size_t i = 0;
    while (i < n) {
        if (!scopes.empty() && scopes.back().kind == Scope::other) {
            if (is(t[i], "{"))
                scopes.push_back({Scope::other, ""});
            else if (is(t[i], "}"))
                scopes.pop_back();
            ++i;
            continue;
        }
        // One statement at namespace scope: up to ';', '}' or a '{' that opens a scope. A
        // variable's brace initializer (`= {1, 2}`, `x{5}`) belongs to its statement.
        std::size_t j = i;
        bool space = false, shared = false, is_extern = false;
        for (; j < n; ++j) {
            const Token& tok = t[j];
            if (tok.kind == Kind::word) {
                space = space || is_space_word(tok.text);
                shared = shared || tok.text == "__shared__" || tok.text == "typedef" || tok.text == "using";
                // `extern "C" __device__ int x;` declares too; an extern "C" { block opens a scope
                is_extern = is_extern || tok.text == "extern";
                continue;
            }
            if (is(tok, "(") || is(tok, "[")) {
                j = skip_group(t, j, n) - 1;
            } else if (is(tok, "{")) {
                if (space && !declares_function(t, i, j)) {
                    j = skip_group(t, j, n) - 1;
                    continue;
                }
                break;
            } else if (is(tok, ";") || is(tok, "}")) {
                break;
            }
        }
        if (j >= n) break;
        if (is(t[j], "}")) {
            if (!scopes.empty()) scopes.pop_back();
        } else if (is(t[j], ";")) {
            if (space && !shared && !is_extern && !declares_function(t, i, j)) read_declarators(t, i, j, scopes, out);
        } else {  // '{' opening a scope
            std::size_t k = i;
            if (k < j && is_word(t[k], "inline")) ++k;
            if (k < j && is_word(t[k], "namespace")) {
                std::string name;
                for (std::size_t m = k + 1; m < j; ++m)
                    if (t[m].kind == Kind::word && t[m].text != "inline")
                        name += (name.empty() ? "" : "::") + t[m].text;
                scopes.push_back({Scope::ns, name});
            } else if (j - i == 2 && is_word(t[i], "extern") && t[i + 1].kind == Kind::string) {
                scopes.push_back({Scope::linkage, ""});
            } else {
                scopes.push_back({Scope::other, ""});
            }
        }
        i = j + 1;
    }
    return out;
}

std::vector<GlobalDecl> parse_shared_variables(std::string_view source) {
    const std::vector<Token> t = detail::tokenize_cpp(source);
    std::vector<GlobalDecl> out;
    const std::size_t n = t.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (!is_word(t[i], "__shared__")) continue;
        // The statement around it: back to the previous ';', '{' or '}', on to its ';'.
        std::size_t b = i;
        while (b > 0 && !is(t[b - 1], ";") && !is(t[b - 1], "{") && !is(t[b - 1], "}")) --b;
        std::size_t e = i;
        while (e < n && !is(t[e], ";")) {
            if (is(t[e], "(") || is(t[e], "[") || is(t[e], "{")) {
                e = skip_group(t, e, n);
            } else {
                ++e;
            }
        }
        bool is_extern = false;
        for (std::size_t k = b; k < e; ++k) is_extern = is_extern || is_word(t[k], "extern");
        if (!is_extern && e > i + 1 && !declares_function(t, b, e)) read_declarators(t, b, e, {}, out);
        i = e;
    }
    return out;
}

GlobalDecl instantiate_global(const GlobalDecl& decl, const std::vector<std::string>& args) {
    const auto& tps = decl.template_params;
    // not a structured binding: the lambda below captures it, which C++17 does not allow
    const detail::TemplateBinding bound = detail::bind_template_args(tps, decl.is_template, args, decl.qualified_name,
                                                                     tps.empty() || tps[0].is_type() ? "float" : "4");
    const auto& subst = bound.by_name;
    GlobalDecl g = decl;
    g.template_args = bound.args;
    auto substitute = [&](const std::string& text) {
        std::vector<std::string> toks;
        for (const auto& tok : detail::tokenize_cpp(text)) {
            auto it = subst.find(tok.text);
            toks.push_back(tok.kind == Kind::word && it != subst.end() ? it->second : tok.text);
        }
        return join(toks);
    };
    g.type = substitute(g.type);
    for (auto& x : g.extents) x = substitute(x);
    g.declaration = declaration_text(g);
    return g;
}

}  // namespace xcuda::compile
