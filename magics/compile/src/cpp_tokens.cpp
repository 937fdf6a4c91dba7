#include "cpp_tokens.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace xcuda::compile::detail {
namespace {

// A directive's logical line (from '#', comments dropped) split into its name and argument.
Directive split_directive(const std::string& text, int line) {
    std::size_t i = 1;
    auto space = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    space();
    const std::size_t w = i;
    while (i < text.size() && is_identifier_char(text[i])) ++i;
    Directive d{text.substr(w, i - w), {}, line};
    space();
    d.argument = text.substr(i);
    while (!d.argument.empty() && std::isspace(static_cast<unsigned char>(d.argument.back()))) d.argument.pop_back();
    return d;
}

// Follows #if 0 ... #else/#elif/#endif in `depth` (0: not skipping).
void track_conditional(const Directive& d, int& depth) {
    const bool opens = d.name == "if" || d.name == "ifdef" || d.name == "ifndef";
    if (depth == 0) {
        if (d.name == "if" && d.argument == "0") depth = 1;
    } else if (opens) {
        ++depth;
    } else if (d.name == "endif") {
        --depth;
    } else if (depth == 1 && (d.name == "else" || d.name == "elif" || d.name == "elifdef" || d.name == "elifndef")) {
        depth = 0;
    }
}

// Walks `src` once, handing each token of code outside `#if 0` blocks to
// on_token(kind, text, line) and each preprocessor line outside them to on_directive(Directive).
template <typename OnToken, typename OnDirective>
void scan(std::string_view src, OnToken&& on_token, OnDirective&& on_directive) {
    using Kind = Token::Kind;
    std::size_t i = 0;
    const std::size_t n = src.size();
    int line = 1;
    bool line_start = true;
    int skip_depth = 0;
    auto emit = [&](Kind kind, std::string_view text, int at) {
        if (skip_depth == 0) on_token(kind, text, at);
    };
    auto skip_block_comment = [&] {  // at "/*"
        i += 2;
        while (i < n && !(src[i] == '*' && i + 1 < n && src[i + 1] == '/')) {
            if (src[i] == '\n') ++line;
            ++i;
        }
        i = std::min(n, i + 2);
    };
    while (i < n) {
        char c = src[i];
        if (c == '\n') {
            ++line;
            line_start = true;
            ++i;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && src[i + 1] == '/') {
            while (i < n && src[i] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && src[i + 1] == '*') {
            skip_block_comment();
            continue;
        }
        if (c == '#' && line_start) {  // a directive, with its continuation lines
            const int at = line;
            std::string directive;
            while (i < n && src[i] != '\n') {
                if (src[i] == '"') {  // #include "a//b.h": no comment starts inside the quotes
                    const std::size_t s = i++;
                    while (i < n && src[i] != '"' && src[i] != '\n') ++i;
                    if (i < n && src[i] == '"') ++i;
                    directive.append(src.substr(s, i - s));
                    continue;
                }
                if (src[i] == '\\' && i + 1 < n && src[i + 1] == '\n') {
                    ++line;
                    i += 2;
                } else if (src[i] == '\\' && i + 2 < n && src[i + 1] == '\r' && src[i + 2] == '\n') {
                    ++line;
                    i += 3;
                } else if (src[i] == '/' && i + 1 < n && src[i + 1] == '*') {
                    skip_block_comment();
                } else if (src[i] == '/' && i + 1 < n && src[i + 1] == '/') {
                    while (i < n && src[i] != '\n') ++i;
                } else {
                    directive += src[i];
                    ++i;
                }
            }
            Directive d = split_directive(directive, at);
            if (skip_depth == 0) on_directive(d);
            track_conditional(d, skip_depth);
            continue;
        }
        line_start = false;
        const int at = line;
        if (is_identifier_start(c)) {
            const std::size_t s = i;
            while (i < n && is_identifier_char(src[i])) ++i;
            const std::string_view word = src.substr(s, i - s);
            const bool raw = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
            if (i < n && src[i] == '"' && raw) {  // R"delim( ... )delim"
                const std::size_t open = src.find('(', i);
                const std::string delim =
                    open == std::string_view::npos ? "" : std::string(src.substr(i + 1, open - i - 1));
                const std::string close = ")" + delim + "\"";
                const std::size_t end = open == std::string_view::npos ? std::string_view::npos : src.find(close, open);
                const std::size_t stop = end == std::string_view::npos ? n : end + close.size();
                for (std::size_t k = i; k < stop; ++k)
                    if (src[k] == '\n') ++line;
                emit(Kind::string, src.substr(s, stop - s), at);
                i = stop;
                continue;
            }
            if (!(i < n && (src[i] == '"' || src[i] == '\'') &&
                  (word == "u8" || word == "u" || word == "U" || word == "L"))) {
                emit(Kind::word, word, at);
                continue;
            }
            c = src[i];  // an encoding prefix: the literal follows
        }
        if (c == '"' || c == '\'') {
            const std::size_t s = i++;
            while (i < n && src[i] != c && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < n && src[i + 1] != '\n') ++i;
                ++i;
            }
            if (i < n && src[i] == c) ++i;
            emit(Kind::string, src.substr(s, i - s), at);
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
            const std::size_t s = i;
            while (i < n) {
                const char d = src[i];
                if (is_identifier_char(d) || d == '.') {
                    ++i;
                } else if (d == '\'' && i + 1 < n && std::isalnum(static_cast<unsigned char>(src[i + 1]))) {
                    ++i;  // digit separator
                } else if ((d == '+' || d == '-') && i > s && std::strchr("eEpP", src[i - 1])) {
                    ++i;
                } else {
                    break;
                }
            }
            emit(Kind::number, src.substr(s, i - s), at);
            continue;
        }
        if (c == ':' && i + 1 < n && src[i + 1] == ':') {
            emit(Kind::punct, "::", at);
            i += 2;
            continue;
        }
        emit(Kind::punct, src.substr(i, 1), at);
        ++i;
    }
}

}  // namespace

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

bool is_cv_qualifier(const std::string& w) {
    return w == "const" || w == "volatile" || w == "__restrict__" || w == "__restrict" || w == "restrict";
}

std::vector<Token> tokenize_cpp(std::string_view source) {
    std::vector<Token> out;
    scan(
        source,
        [&](Token::Kind kind, std::string_view text, int line) {
            out.push_back({kind, std::string(text), line});
        },
        [](const Directive&) {});
    return out;
}

std::vector<Directive> preprocessor_directives(std::string_view source) {
    std::vector<Directive> out;
    scan(
        source, [](Token::Kind, std::string_view, int) {}, [&](Directive d) { out.push_back(std::move(d)); });
    return out;
}

std::size_t skip_group(const std::vector<Token>& t, std::size_t i, std::size_t end) {
    const std::string open = t[i].text;
    const std::string close = open == "(" ? ")" : open == "[" ? "]" : open == "{" ? "}" : ">";
    int depth = 0;
    for (; i < end; ++i) {
        if (t[i].kind != Token::Kind::punct) continue;
        if (t[i].text == open) {
            ++depth;
        } else if (t[i].text == close) {
            if (--depth == 0) return i + 1;
        } else if (open == "<" && t[i].text == "(") {
            i = skip_group(t, i, end) - 1;
        }
    }
    return end;
}

}  // namespace xcuda::compile::detail
