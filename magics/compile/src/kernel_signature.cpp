#include "xcuda/compile/kernel_signature.hpp"

#include "cpp_tokens.hpp"
#include "param_types.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace xcuda::compile {
namespace {

using detail::build_signature;
using detail::classify;
using detail::is_builtin_word;
using detail::is_identifier_start;
using detail::join;
using detail::make_param;
using detail::skip_group;
using detail::split_commas;
using detail::texts;
using detail::word_tokens;
using Tok = detail::Token;
using Tk = detail::Token::Kind;

bool is(const Tok& t, const char* s) { return t.text == s && t.kind != Tk::string; }

struct Scope {
    enum Kind { ns, linkage, other } kind;
    std::string name;  // ns: "a" or "a::b" ("" for anonymous)
    bool extern_c = false;
};

bool is_attribute_word(const std::string& w) {
    return w == "__launch_bounds__" || w == "__attribute__" || w == "__declspec" || w == "alignas" ||
           w == "__cluster_dims__" || w == "__maxnreg__" || w == "__grid_constant__";
}

bool is_specifier(const std::string& w) {
    return w == "__global__" || w == "static" || w == "inline" || w == "__inline__" || w == "__forceinline__" ||
           w == "__noinline__" || w == "extern" || w == "constexpr" || w == "__host__" || w == "__device__";
}

std::vector<TemplateParam> parse_template_params(const std::vector<std::string>& toks) {
    std::vector<TemplateParam> out;
    for (auto& part : split_commas(toks)) {
        TemplateParam tp;
        std::vector<std::string> decl = part;
        auto eq = std::find(part.begin(), part.end(), "=");
        if (eq != part.end()) {
            decl.assign(part.begin(), eq);
            tp.default_value = join(std::vector<std::string>(eq + 1, part.end()));
        }
        decl.erase(std::remove(decl.begin(), decl.end(), "..."), decl.end());
        decl.erase(std::remove(decl.begin(), decl.end(), "."), decl.end());
        if (decl.size() >= 2 && is_identifier_start(decl.back()[0]) && !is_builtin_word(decl.back())) {
            tp.name = decl.back();
            decl.pop_back();
        }
        tp.kind = join(decl);
        out.push_back(std::move(tp));
    }
    return out;
}

// Parses the statement t[b, e) that contains `__global__` at index g.
bool parse_decl(const std::vector<Tok>& t, std::size_t b, std::size_t e, std::size_t g,
                const std::vector<Scope>& scopes, bool definition, KernelDecl& d) {
    d.line = t[g].line;
    d.is_definition = definition;
    for (const auto& s : scopes) d.is_extern_c = s.kind == Scope::linkage ? s.extern_c : d.is_extern_c;

    std::size_t region = b;
    for (std::size_t i = b; i < g; ++i) {
        if (is(t[i], "template") && i + 1 < e && is(t[i + 1], "<")) {
            std::size_t close = skip_group(t, i + 1, e);
            if (close > g) return false;
            d.is_template = true;
            d.template_params = parse_template_params(texts(t, i + 2, close - 1));
            region = close;
            i = close - 1;
        } else if (is(t[i], "extern") && i + 1 < e && t[i + 1].kind == Tk::string) {
            d.is_extern_c = t[i + 1].text == "\"C\"";
        }
    }
    // The declarator: the first '(' after __global__ that follows a name (attribute groups skipped).
    std::size_t name_end = 0;
    for (std::size_t i = g + 1; i < e; ++i) {
        if (t[i].kind == Tk::word && is_attribute_word(t[i].text) && i + 1 < e && is(t[i + 1], "(")) {
            i = skip_group(t, i + 1, e) - 1;
        } else if (is(t[i], "[") && i + 1 < e && is(t[i + 1], "[")) {
            i = skip_group(t, i, e) - 1;
        } else if (is(t[i], "(")) {
            if (i > g + 1 && t[i - 1].kind == Tk::word) name_end = i;
            break;
        }
    }
    if (name_end == 0) return false;
    std::size_t name_begin = name_end - 1;
    while (name_begin >= g + 3 && is(t[name_begin - 1], "::") && t[name_begin - 2].kind == Tk::word) name_begin -= 2;
    d.name = t[name_end - 1].text;
    std::string qual;
    for (const auto& s : scopes)
        if (s.kind == Scope::ns && !s.name.empty()) qual += s.name + "::";
    for (std::size_t i = name_begin; i + 1 < name_end; ++i) qual += t[i].text;
    d.qualified_name = qual + d.name;

    std::vector<std::string> ret;
    for (std::size_t i = region; i < name_begin; ++i) {
        const auto& w = t[i].text;
        if (t[i].kind == Tk::word && is_attribute_word(w) && i + 1 < e && is(t[i + 1], "(")) {
            i = skip_group(t, i + 1, e) - 1;
        } else if (is(t[i], "[") && i + 1 < e && is(t[i + 1], "[")) {
            i = skip_group(t, i, e) - 1;
        } else if (t[i].kind == Tk::string || is_specifier(w)) {
        } else {
            ret.push_back(w);
        }
    }
    std::size_t close = skip_group(t, name_end, e);
    std::vector<std::string> inner = texts(t, name_end + 1, close - 1 > name_end ? close - 1 : name_end + 1);
    if (!(inner.size() == 1 && inner[0] == "void"))
        for (auto& part : split_commas(inner))
            if (!part.empty()) d.params.push_back(make_param(part));
    d.signature = build_signature(d, ret.empty() ? "void" : join(ret));
    return true;
}

std::string param_types_key(const KernelDecl& d) {
    std::string k;
    for (const auto& p : d.params) k += p.type + ",";
    return k;
}

}  // namespace

std::vector<KernelDecl> parse_kernels(std::string_view source) {
    std::vector<Tok> t = detail::tokenize_cpp(source);
    std::vector<KernelDecl> out;
    std::vector<Scope> scopes;
    std::size_t n = t.size(), i = 0;
    while (i < n) {
        if (!scopes.empty() && scopes.back().kind == Scope::other) {
            if (is(t[i], "{"))
                scopes.push_back({Scope::other, "", false});
            else if (is(t[i], "}"))
                scopes.pop_back();
            ++i;
            continue;
        }
        // one statement at namespace scope: up to ';' '{' '}' outside () and []
        std::size_t j = i;
        std::size_t global_at = n;
        int depth = 0;
        for (; j < n; ++j) {
            if (t[j].kind != Tk::punct) {
                if (global_at == n && t[j].kind == Tk::word && t[j].text == "__global__" && depth == 0) global_at = j;
                continue;
            }
            const std::string& s = t[j].text;
            if (s == "(" || s == "[")
                ++depth;
            else if ((s == ")" || s == "]") && depth > 0)
                --depth;
            else if (depth == 0 && (s == ";" || s == "{" || s == "}"))
                break;
        }
        if (j >= n) {
            if (global_at != n) {
                KernelDecl d;
                if (parse_decl(t, i, n, global_at, scopes, false, d)) out.push_back(std::move(d));
            }
            break;
        }
        const std::string& end = t[j].text;
        if (end == "}") {
            if (!scopes.empty()) scopes.pop_back();
        } else if (end == ";") {
            KernelDecl d;
            if (global_at != n && parse_decl(t, i, j, global_at, scopes, false, d)) out.push_back(std::move(d));
        } else {  // '{'
            std::size_t k = i;
            if (k < j && is(t[k], "inline")) ++k;
            if (k < j && is(t[k], "namespace")) {
                std::string name;
                for (std::size_t m = k + 1; m < j; ++m)
                    if (t[m].kind == Tk::word && t[m].text != "inline") name += (name.empty() ? "" : "::") + t[m].text;
                scopes.push_back({Scope::ns, name, false});
            } else if (j - i == 2 && is(t[i], "extern") && t[i + 1].kind == Tk::string) {
                scopes.push_back({Scope::linkage, "", t[i + 1].text == "\"C\""});
            } else {
                KernelDecl d;
                if (global_at != n && parse_decl(t, i, j, global_at, scopes, true, d)) out.push_back(std::move(d));
                scopes.push_back({Scope::other, "", false});
            }
        }
        i = j + 1;
    }
    // A declaration followed by its definition is one kernel: keep the definition's data
    // (and the extern "C" of either, since linkage follows the first declaration).
    std::vector<KernelDecl> merged;
    std::map<std::string, std::size_t> index;  // qualified name + parameter types -> merged slot
    for (auto& d : out) {
        auto [it, fresh] = index.emplace(d.qualified_name + "(" + param_types_key(d), merged.size());
        if (fresh) {
            merged.push_back(std::move(d));
            continue;
        }
        KernelDecl& same = merged[it->second];
        if (d.is_definition && !same.is_definition) {
            bool c = same.is_extern_c || d.is_extern_c;
            same = std::move(d);
            same.is_extern_c = c;
        }
    }
    return merged;
}

bool split_template_expr(std::string_view expr, std::string& name, std::vector<std::string>& args) {
    std::vector<Tok> t = detail::tokenize_cpp(expr);
    std::size_t lt = 0;
    while (lt < t.size() && !is(t[lt], "<")) ++lt;
    if (lt == 0 || lt >= t.size()) return false;
    std::size_t close = skip_group(t, lt, t.size());
    if (close != t.size() || !is(t[close - 1], ">")) return false;
    name = join(texts(t, 0, lt));
    args.clear();
    for (auto& part : split_commas(texts(t, lt + 1, close - 1))) args.push_back(join(part));
    return true;
}

std::string example_template_args(const KernelDecl& decl) {
    std::string out;
    for (const auto& tp : decl.template_params) {
        if (!tp.default_value.empty()) break;  // only trailing parameters can have one
        std::string arg;
        if (tp.is_type()) {
            arg = "float";
        } else if (tp.kind == "auto") {
            arg = "256";
        } else {
            switch (scalar_from_type(tp.kind)) {
                case ScalarType::bool_: arg = "true"; break;
                case ScalarType::int8:
                case ScalarType::uint8: arg = "1"; break;
                case ScalarType::int16:
                case ScalarType::uint16:
                case ScalarType::int32:
                case ScalarType::uint32:
                case ScalarType::int64:
                case ScalarType::uint64: arg = "256"; break;
                case ScalarType::float32:
                case ScalarType::float64: arg = "1"; break;
                default: arg = "static_cast<" + tp.kind + ">(0)";  // an enum, a pointer, ...
            }
        }
        out += (out.empty() ? "" : ", ") + arg;
    }
    return out;
}

KernelDecl instantiate(const KernelDecl& decl, const std::vector<std::string>& args) {
    const auto [full, subst] = detail::bind_template_args(decl.template_params, decl.is_template, args, decl.name,
                                                          example_template_args(decl));
    KernelDecl d = decl;
    d.template_args = full;
    for (auto& p : d.params) {
        std::vector<std::string> toks;
        for (auto& w : word_tokens(p.type)) {
            auto it = subst.find(w);
            if (it == subst.end()) {
                toks.push_back(w);
            } else {
                // parenthesised types would change meaning; the arg's own tokens are enough
                for (auto& x : word_tokens(it->second)) toks.push_back(x);
            }
        }
        p.type = join(toks);
        classify(p, toks);
    }
    std::string ret = decl.signature;
    std::size_t gt = ret.find("> ");
    std::size_t sp = ret.find(" " + decl.name + "(");
    std::string rtype =
        (gt != std::string::npos && sp != std::string::npos && sp > gt + 2) ? ret.substr(gt + 2, sp - gt - 2) : "void";
    d.signature = build_signature(d, rtype);
    return d;
}

std::map<std::string, std::string> parse_type_aliases(std::string_view source) {
    std::vector<Tok> t = detail::tokenize_cpp(source);
    std::map<std::string, std::string> out;
    auto accept = [&](const std::string& name, std::vector<std::string> type) {
        for (const auto& w : type)
            if (w == "(" || w == "[" || w == "{" || w == "}") return;
        if (!name.empty() && !type.empty()) out[name] = join(type);
    };
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i].kind != Tk::word) continue;
        std::size_t end = i + 1;
        while (end < t.size() && !is(t[end], ";") && !is(t[end], "{")) ++end;
        if (end >= t.size() || !is(t[end], ";")) continue;
        if (t[i].text == "typedef" && end >= i + 3 && t[end - 1].kind == Tk::word) {
            accept(t[end - 1].text, texts(t, i + 1, end - 1));
        } else if (t[i].text == "using" && end >= i + 4 && t[i + 1].kind == Tk::word && is(t[i + 2], "=")) {
            accept(t[i + 1].text, texts(t, i + 3, end));
        }
    }
    return out;
}

void resolve_type_aliases(KernelDecl& decl, const std::map<std::string, std::string>& aliases) {
    if (aliases.empty()) return;
    for (auto& p : decl.params) {
        std::vector<std::string> toks = word_tokens(p.type);
        // cut a default argument off: it is not part of the type
        if (auto eq = std::find(toks.begin(), toks.end(), "="); eq != toks.end()) toks.erase(eq, toks.end());
        bool changed = false;
        for (int round = 0; round < 8; ++round) {  // alias chains; a cycle stops here
            std::vector<std::string> next;
            bool any = false;
            for (const auto& w : toks) {
                auto it = aliases.find(w);
                if (it == aliases.end()) {
                    next.push_back(w);
                    continue;
                }
                any = true;
                for (auto& x : word_tokens(it->second)) next.push_back(std::move(x));
            }
            if (!any) break;
            toks = std::move(next);
            changed = true;
        }
        if (!changed) continue;
        Param resolved = p;
        classify(resolved, toks);
        // Only what the alias made known: a still unknown type keeps its original classification.
        if (resolved.kind == ParamKind::other) continue;
        if (resolved.kind == ParamKind::pointer && resolved.scalar == ScalarType::none && p.kind == ParamKind::pointer)
            continue;
        p.kind = resolved.kind;
        p.scalar = resolved.scalar;
        p.pointee = resolved.pointee;
        p.pointee_const = resolved.pointee_const;
        p.pointer_depth = resolved.pointer_depth;
    }
}

}  // namespace xcuda::compile
