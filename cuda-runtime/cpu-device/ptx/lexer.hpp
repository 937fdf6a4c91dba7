// PTX text as tokens, on demand: the parser pulls one token at a time (with one of lookahead), so
// what it skips unread (debug sections) costs a scan of its characters and nothing more.
#pragma once

#include "ptx/parser.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace xcuda::cpu::ptx {

enum class TokenKind : std::uint8_t {
    end,        // the end of the text
    word,       // ld.global.u32, %r1, %tid.x, $L__BB0_3, shared::cluster pieces stay inside the word
    directive,  // .reg, .b32, .shared::cluster (one dot-name: `.v4.f32` is two directives)
    number,     // 42, 0x1F, 0f3F800000, 0d3FF0000000000000, 1.5e3, 9.0 (as written; the parser reads it)
    string,     // "nounroll" (without the quotes, escapes as written)
    punct,      // one of { } ( ) [ ] , ; : @ ! + - | < > =
};

struct Token {
    TokenKind kind = TokenKind::end;
    std::string_view text;   // a view into the PTX text
    int line = 0;            // 1-based
    std::size_t offset = 0;  // of the token's first character in the PTX text

    bool is(char c) const { return kind == TokenKind::punct && text[0] == c; }
    bool is_directive(std::string_view name) const { return kind == TokenKind::directive && text == name; }
};

class Lexer {
public:
    explicit Lexer(std::string_view text) : text_(text) {}

    const Token& peek() {
        if (!peeked_) {
            lookahead_ = scan();
            peeked_ = true;
        }
        return lookahead_;
    }
    Token next() {
        if (peeked_) {
            peeked_ = false;
            return lookahead_;
        }
        return scan();
    }

    // Skips raw text through the '}' that closes a '{' just consumed: the contents of a debug
    // section or an unknown directive's block are never tokenised.
    void skip_to_closing_brace(int open_line);

    // The text between two offsets, trimmed (a .callprototype's signature).
    std::string_view slice(std::size_t begin, std::size_t end) const;

    // Characters not yet scanned.
    std::size_t remaining() const { return text_.size() - pos_; }

    // The line of the last character scanned: where "found the end of the text" is reported.
    int line() const { return line_; }

private:
    Token scan();
    void skip_space_and_comments();
    [[noreturn]] void fail(const std::string& message) const;

    std::string_view text_;
    std::size_t pos_ = 0;
    int line_ = 1;
    Token lookahead_;
    bool peeked_ = false;
};

// For messages: the token as written, or "the end of the text".
std::string describe(const Token& token);

}  // namespace xcuda::cpu::ptx
