#include "ptx/lexer.hpp"

namespace xcuda::cpu::ptx {

namespace {

bool is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}
bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_punct(char c) {
    switch (c) {
        case '{':
        case '}':
        case '(':
        case ')':
        case '[':
        case ']':
        case ',':
        case ';':
        case ':':
        case '@':
        case '!':
        case '+':
        case '-':
        case '|':
        case '<':
        case '>':
        case '=': return true;
        default: return false;
    }
}

}  // namespace

std::string describe(const Token& token) {
    if (token.kind == TokenKind::end) return "the end of the text";
    if (token.kind == TokenKind::string) return "\"" + std::string(token.text) + "\"";
    return "'" + std::string(token.text) + "'";
}

void Lexer::fail(const std::string& message) const { throw ParseError(line_, message); }

void Lexer::skip_space_and_comments() {
    const std::size_t n = text_.size();
    while (pos_ < n) {
        const char c = text_[pos_];
        if (c == '\n') {
            ++line_;
            ++pos_;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++pos_;
        } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '/') {
            const std::size_t eol = text_.find('\n', pos_);
            pos_ = eol == std::string_view::npos ? n : eol;
        } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '*') {
            const int start_line = line_;
            const std::size_t close = text_.find("*/", pos_ + 2);
            if (close == std::string_view::npos) {
                throw ParseError(start_line, "unterminated comment: '/*' without a closing '*/'");
            }
            for (std::size_t i = pos_; i < close; ++i) line_ += text_[i] == '\n';
            pos_ = close + 2;
        } else {
            return;
        }
    }
}

Token Lexer::scan() {
    skip_space_and_comments();
    Token token;
    token.line = line_;
    token.offset = pos_;
    const std::size_t n = text_.size();
    if (pos_ >= n) {
        token.kind = TokenKind::end;
        return token;
    }
    const std::size_t start = pos_;
    const char c = text_[pos_];
    // A word or directive continues through ".name" pieces (words only: opcodes and %tid.x) and
    // "::name" pieces (ld.shared::cluster, .shared::cta), so an opcode is a single token.
    auto scan_name = [&](bool dots) {
        while (pos_ < n) {
            const char d = text_[pos_];
            if (is_ident_char(d)) {
                ++pos_;
            } else if (dots && d == '.' && pos_ + 1 < n && is_ident_char(text_[pos_ + 1])) {
                pos_ += 2;
            } else if (d == ':' && pos_ + 2 < n && text_[pos_ + 1] == ':' && is_ident_char(text_[pos_ + 2])) {
                pos_ += 3;
            } else {
                break;
            }
        }
    };
    if (is_ident_start(c)) {
        ++pos_;
        scan_name(true);
        token.kind = TokenKind::word;
    } else if (c == '.' && pos_ + 1 < n && is_ident_start(text_[pos_ + 1]) && text_[pos_ + 1] != '%') {
        ++pos_;
        scan_name(false);
        token.kind = TokenKind::directive;
    } else if (is_digit(c)) {
        // Hex digits, float exponents and the U suffix are all letters or digits; a '.' between
        // digits is a decimal point, and a sign directly after an exponent's 'e' belongs to it.
        ++pos_;
        const bool hex_like = c == '0' && pos_ < n &&
                              (text_[pos_] == 'x' || text_[pos_] == 'X' || text_[pos_] == 'f' || text_[pos_] == 'F' ||
                               text_[pos_] == 'd' || text_[pos_] == 'D');
        while (pos_ < n) {
            const char d = text_[pos_];
            if (is_ident_char(d) || (d == '.' && !hex_like && pos_ + 1 < n && is_digit(text_[pos_ + 1]))) {
                ++pos_;
            } else if ((d == '+' || d == '-') && !hex_like && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')) {
                ++pos_;
            } else {
                break;
            }
        }
        token.kind = TokenKind::number;
    } else if (c == '"') {
        ++pos_;
        while (pos_ < n && text_[pos_] != '"' && text_[pos_] != '\n') pos_ += text_[pos_] == '\\' ? 2 : 1;
        if (pos_ >= n || text_[pos_] != '"') fail("unterminated string: '\"' without a closing '\"' on its line");
        token.kind = TokenKind::string;
        token.text = text_.substr(start + 1, pos_ - start - 1);
        ++pos_;
        return token;
    } else if (is_punct(c)) {
        ++pos_;
        token.kind = TokenKind::punct;
    } else {
        fail(std::string("unexpected character '") + c + "'");
    }
    token.text = text_.substr(start, pos_ - start);
    return token;
}

void Lexer::skip_to_closing_brace(int open_line) {
    if (peeked_) {
        pos_ = lookahead_.offset;
        line_ = lookahead_.line;
        peeked_ = false;
    }
    int depth = 1;
    const std::size_t n = text_.size();
    while (pos_ < n) {
        const char c = text_[pos_];
        if (c == '\n') {
            ++line_;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}') {
            if (--depth == 0) {
                ++pos_;
                return;
            }
        } else if (c == '"') {
            ++pos_;
            while (pos_ < n && text_[pos_] != '"' && text_[pos_] != '\n') pos_ += text_[pos_] == '\\' ? 2 : 1;
            continue;
        } else if (c == '/' && pos_ + 1 < n && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*')) {
            skip_space_and_comments();
            continue;
        }
        ++pos_;
    }
    throw ParseError(open_line, "'{' without a closing '}'");
}

std::string_view Lexer::slice(std::size_t begin, std::size_t end) const {
    std::string_view s = text_.substr(begin, end - begin);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

}  // namespace xcuda::cpu::ptx
