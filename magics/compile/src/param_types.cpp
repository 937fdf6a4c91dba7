#include "param_types.hpp"

#include "xcuda/compile/scalar_type.hpp"

#include <algorithm>
#include <stdexcept>

namespace xcuda::compile::detail {
namespace {

bool is_wordlike(const std::string& s) {
    return !s.empty() && (is_identifier_char(s[0]) || s[0] == '"' || s[0] == '\'' || s[0] == '.');
}

std::string param_text(const Param& p) {
    std::string s = p.type;
    if (!p.name.empty()) s += (s.empty() ? "" : " ") + p.name;
    if (!p.default_value.empty()) s += " = " + p.default_value;
    return s;
}

}  // namespace

bool is_builtin_word(const std::string& w) {
    static const char* words[] = {"void",     "bool",  "char",   "short",   "int",      "long",     "signed",
                                  "unsigned", "float", "double", "wchar_t", "char16_t", "char32_t", "auto"};
    for (const char* x : words)
        if (w == x) return true;
    return false;
}

// Joins tokens the way people write types: "const float* __restrict__", "Vec<float, 4>".
std::string join(const std::vector<std::string>& toks) {
    std::string s;
    for (std::size_t i = 0; i < toks.size(); ++i) {
        const std::string& t = toks[i];
        if (i > 0) {
            const std::string& p = toks[i - 1];
            bool space = (is_wordlike(t) && (is_wordlike(p) || p == "*" || p == "&" || p == ">" || p == ",")) ||
                         (p == ",") || (t == "=" || p == "=");
            if (space) s += ' ';
        }
        s += t;
    }
    return s;
}

std::vector<std::string> texts(const std::vector<Token>& toks, std::size_t b, std::size_t e) {
    std::vector<std::string> v;
    for (std::size_t i = b; i < e && i < toks.size(); ++i) v.push_back(toks[i].text);
    return v;
}

// Splits at top-level commas (outside (), [], {}, <>).
std::vector<std::vector<std::string>> split_commas(const std::vector<std::string>& toks) {
    std::vector<std::vector<std::string>> parts(1);
    int depth = 0, angle = 0;
    for (const auto& t : toks) {
        if (t == "(" || t == "[" || t == "{")
            ++depth;
        else if (t == ")" || t == "]" || t == "}")
            depth = std::max(0, depth - 1);
        else if (t == "<" && depth == 0)
            ++angle;
        else if (t == ">" && depth == 0)
            angle = std::max(0, angle - 1);
        if (t == "," && depth == 0 && angle == 0) {
            parts.emplace_back();
            continue;
        }
        parts.back().push_back(t);
    }
    if (parts.size() == 1 && parts[0].empty()) parts.clear();
    return parts;
}

std::vector<std::string> word_tokens(std::string_view text) {
    std::vector<std::string> v;
    for (auto& t : tokenize_cpp(text)) v.push_back(std::move(t.text));
    return v;
}

// Classifies `type` (tokens of a parameter type, no name) into p.
void classify(Param& p, const std::vector<std::string>& type) {
    p.kind = ParamKind::other;
    p.scalar = ScalarType::none;
    p.pointer_depth = 0;
    p.pointee_const = false;
    p.is_reference = false;
    p.pointee.clear();
    std::vector<std::string> base;
    bool seen_star = false, const_before_star = false, is_array = false;
    int depth = 0;
    for (std::size_t i = 0; i < type.size(); ++i) {
        const std::string& t = type[i];
        if (t == "<" || t == "(") {  // template arguments / function pointer: keep verbatim
            int d = 0;
            std::size_t j = i;
            for (; j < type.size(); ++j) {
                if (type[j] == "<" || type[j] == "(") ++d;
                if (type[j] == ">" || type[j] == ")") --d;
                if (!seen_star) base.push_back(type[j]);
                if (d == 0) break;
            }
            if (t == "(") return;  // function pointers and the like: opaque
            i = j;
            continue;
        }
        if (t == "*") {
            seen_star = true;
            ++depth;
        } else if (t == "&") {
            p.is_reference = true;
        } else if (t == "[") {
            is_array = true;
        } else if (is_cv_qualifier(t)) {
            if (!seen_star && t == "const") const_before_star = true;
        } else if (!seen_star && t != "struct" && t != "class" && t != "typename" && t != "union" && t != "enum" &&
                   t != "]" && !is_array) {
            base.push_back(t);
        }
    }
    if (is_array) ++depth;  // T x[N] is T* x
    std::string base_text = join(base);
    if (p.is_reference) return;
    if (depth == 0) {
        p.scalar = scalar_from_type(base_text);
        if (p.scalar != ScalarType::none) p.kind = ParamKind::scalar;
        return;
    }
    p.kind = ParamKind::pointer;
    p.pointer_depth = depth;
    p.pointee = base_text;
    for (int k = 1; k < depth; ++k) p.pointee += "*";
    p.pointee_const = const_before_star;
    p.scalar = depth == 1 ? scalar_from_type(base_text) : ScalarType::none;
}

// Builds a Param from the tokens of one parameter ("const float* __restrict__ x = nullptr").
Param make_param(const std::vector<std::string>& toks) {
    Param p;
    std::vector<std::string> decl = toks;
    int depth = 0;
    for (std::size_t i = 0; i < toks.size(); ++i) {
        const std::string& t = toks[i];
        if (t == "(" || t == "[" || t == "{" || t == "<") ++depth;
        if (t == ")" || t == "]" || t == "}" || t == ">") --depth;
        if (t == "=" && depth == 0) {
            decl.assign(toks.begin(), toks.begin() + i);
            p.default_value = join(std::vector<std::string>(toks.begin() + i + 1, toks.end()));
            break;
        }
    }
    // The name is the identifier before an array bound or at the end, unless it is part of
    // the type ("unsigned int", "const Foo", "ns::Foo").
    std::size_t name_at = decl.size();
    std::size_t end = decl.size();
    for (std::size_t i = 0; i < decl.size(); ++i)
        if (decl[i] == "[") {
            end = i;
            break;
        }
    if (end > 1) {
        const std::string& last = decl[end - 1];
        const std::string& prev = decl[end - 2];
        bool candidate = is_identifier_start(last[0]) && !is_builtin_word(last) && !is_cv_qualifier(last) &&
                         prev != "::" && prev != "struct" && prev != "class" && prev != "typename" && prev != "enum";
        if (candidate) {
            // "const Foo": only cv before it -> Foo is the type, unnamed
            bool only_cv_before = true;
            for (std::size_t i = 0; i + 1 < end; ++i)
                if (!is_cv_qualifier(decl[i])) only_cv_before = false;
            if (!only_cv_before) name_at = end - 1;
        }
    }
    std::vector<std::string> type;
    for (std::size_t i = 0; i < decl.size(); ++i)
        if (i != name_at) type.push_back(decl[i]);
    if (name_at < decl.size()) p.name = decl[name_at];
    p.type = join(type);
    classify(p, type);
    return p;
}

std::string build_signature(const KernelDecl& d, const std::string& ret) {
    std::string s;
    if (d.is_template && d.template_args.empty()) {
        s += "template <";
        for (std::size_t i = 0; i < d.template_params.size(); ++i) {
            const auto& tp = d.template_params[i];
            s += (i ? ", " : "") + tp.kind + " " + tp.name;
            if (!tp.default_value.empty()) s += " = " + tp.default_value;
        }
        s += "> ";
    }
    s += ret + " " + d.name;
    if (!d.template_args.empty()) {
        s += "<";
        for (std::size_t i = 0; i < d.template_args.size(); ++i) s += (i ? ", " : "") + d.template_args[i];
        s += ">";
    }
    s += "(";
    for (std::size_t i = 0; i < d.params.size(); ++i) s += (i ? ", " : "") + param_text(d.params[i]);
    return s + ")";
}

TemplateBinding bind_template_args(const std::vector<TemplateParam>& params, bool is_template,
                                   const std::vector<std::string>& args, const std::string& name,
                                   const std::string& example_args) {
    std::size_t required = 0;
    for (const auto& tp : params)
        if (tp.default_value.empty()) ++required;
    if (!is_template || args.size() > params.size() || args.size() < required) {
        std::string want =
            std::to_string(required) + (required == params.size() ? "" : " to " + std::to_string(params.size()));
        throw std::invalid_argument(name + "<...> takes " + want + " template argument(s), " +
                                    std::to_string(args.size()) + " given; write it like " + name + "<" + example_args +
                                    ">");
    }
    TemplateBinding b;
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (i < args.size()) {
            b.args.push_back(args[i]);
        } else {
            // A default may name earlier parameters (class U = T, enable_if<is_integral<T>>):
            // they read as the arguments bound to them.
            std::vector<std::string> words;
            for (auto& w : word_tokens(params[i].default_value)) {
                auto bound = b.by_name.find(w);
                words.push_back(bound != b.by_name.end() ? bound->second : w);
            }
            b.args.push_back(join(words));
        }
        if (!params[i].name.empty()) b.by_name[params[i].name] = b.args.back();
    }
    return b;
}

}  // namespace xcuda::compile::detail
