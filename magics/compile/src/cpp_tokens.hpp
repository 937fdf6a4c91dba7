// C++ tokens of a cell, for the scanners that read declarations and #includes without a C++
// front end: the one place that knows where comments, string literals and preprocessor lines
// begin and end. `#if 0` blocks are skipped (both branches of any other conditional are kept, as
// they cannot be evaluated here).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile::detail {

struct Token {
    enum class Kind { word, number, string, punct } kind;
    std::string text;  // "::" is one punct token; string/char literals keep their quotes
    int line;          // 1-based
};

// One preprocessor line: `#  include <a.h> // why` is {"include", "<a.h>", line}.
struct Directive {
    std::string name;      // "include", "define", "if", ...; "" for a lone '#'
    std::string argument;  // the rest: continuation lines joined, comments dropped, trimmed
    int line;              // 1-based, of the '#'
};

// The code of `source`: comments and preprocessor lines dropped.
// Never throws (bad_alloc aside) and never reads past the end, whatever `source` holds.
std::vector<Token> tokenize_cpp(std::string_view source);

// The preprocessor lines of `source` that the compiler sees as such (none from a comment, a
// string literal or an `#if 0` block), in order. Never throws (bad_alloc aside).
std::vector<Directive> preprocessor_directives(std::string_view source);

bool is_identifier_start(char c);
bool is_identifier_char(char c);

// const, volatile and the restrict spellings: words of a type that do not change what it holds.
bool is_cv_qualifier(const std::string& word);

// Index just past the group opened at `i` ("(", "[", "{" or "<"); `end` when it never closes.
// Inside <...>, parentheses may hold a '>' (a comparison in a default argument).
std::size_t skip_group(const std::vector<Token>& tokens, std::size_t i, std::size_t end);

}  // namespace xcuda::compile::detail
