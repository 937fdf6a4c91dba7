// C++ tokens of a cell, for the scanners that read declarations without a C++ front end.
// Comments and preprocessor lines are dropped; `#if 0` blocks are skipped (both branches of any
// other conditional are kept, as they cannot be evaluated here).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile::detail {

struct Token {
    enum class Kind { word, number, string, punct } kind;
    std::string text;   // "::" is one punct token; string/char literals keep their quotes
    int line;           // 1-based
};

// Never throws (bad_alloc aside) and never reads past the end, whatever `source` holds.
std::vector<Token> tokenize_cpp(std::string_view source);

bool is_identifier_start(char c);

}  // namespace xcuda::compile::detail
