#include "cpp_tokens.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>


namespace xcuda::compile::detail {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Follows #if 0 ... #else/#elif/#endif in `depth` (0: not skipping). `directive` starts at '#'.
void track_conditional(const std::string& directive, int& depth) {
    std::size_t i = 1;
    auto space = [&] {
        while (i < directive.size() && (directive[i] == ' ' || directive[i] == '\t')) ++i;
    };
    space();
    const std::size_t w = i;
    while (i < directive.size() && ident_char(directive[i])) ++i;
    const std::string word = directive.substr(w, i - w);
    space();
    std::string rest = directive.substr(i);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
    const bool opens = word == "if" || word == "ifdef" || word == "ifndef";
    if (depth == 0) {
        if (word == "if" && rest == "0") depth = 1;
    } else if (opens) {
        ++depth;
    } else if (word == "endif") {
        --depth;
    } else if (depth == 1 && (word == "else" || word == "elif" || word == "elifdef" || word == "elifndef")) {
        depth = 0;
    }
}

}  // namespace

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::vector<Token> tokenize_cpp(std::string_view src) {
    using Kind = Token::Kind;
    std::vector<Token> out;
    std::size_t i = 0;
    const std::size_t n = src.size();
    int line = 1;
    bool line_start = true;
    int skip_depth = 0;
    auto emit = [&](Kind kind, std::string text, int at) {
        if (skip_depth == 0) out.push_back({kind, std::move(text), at});
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
            std::string directive;
            while (i < n && src[i] != '\n') {
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
            track_conditional(directive, skip_depth);
            continue;
        }
        line_start = false;
        const int at = line;
        if (is_identifier_start(c)) {
            const std::size_t s = i;
            while (i < n && ident_char(src[i])) ++i;
            std::string word(src.substr(s, i - s));
            const bool raw = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
            if (i < n && src[i] == '"' && raw) {  // R"delim( ... )delim"
                const std::size_t open = src.find('(', i);
                const std::string delim = open == std::string_view::npos ? "" : std::string(src.substr(i + 1, open - i - 1));
                const std::string close = ")" + delim + "\"";
                const std::size_t end = open == std::string_view::npos ? std::string_view::npos : src.find(close, open);
                const std::size_t stop = end == std::string_view::npos ? n : end + close.size();
                for (std::size_t k = i; k < stop; ++k)
                    if (src[k] == '\n') ++line;
                emit(Kind::string, std::string(src.substr(s, stop - s)), at);
                i = stop;
                continue;
            }
            if (!(i < n && (src[i] == '"' || src[i] == '\'') &&
                  (word == "u8" || word == "u" || word == "U" || word == "L"))) {
                emit(Kind::word, std::move(word), at);
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
            emit(Kind::string, std::string(src.substr(s, i - s)), at);
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(src[i + 1])))) {
            const std::size_t s = i;
            while (i < n) {
                const char d = src[i];
                if (ident_char(d) || d == '.') {
                    ++i;
                } else if (d == '\'' && i + 1 < n && std::isalnum(static_cast<unsigned char>(src[i + 1]))) {
                    ++i;  // digit separator
                } else if ((d == '+' || d == '-') && i > s && std::strchr("eEpP", src[i - 1])) {
                    ++i;
                } else {
                    break;
                }
            }
            emit(Kind::number, std::string(src.substr(s, i - s)), at);
            continue;
        }
        if (c == ':' && i + 1 < n && src[i + 1] == ':') {
            emit(Kind::punct, "::", at);
            i += 2;
            continue;
        }
        emit(Kind::punct, std::string(1, c), at);
        ++i;
    }
    return out;
}

}  // namespace xcuda::compile::detail
