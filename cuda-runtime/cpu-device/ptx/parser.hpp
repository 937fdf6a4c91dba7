// PTX text -> ptx::Module. Strict about syntax, lenient about meaning: debug sections and
// directives it has no use for are skipped, and opcodes are not checked against the ISA (the
// decoder decides what it can run).
#pragma once

#include "ptx/ast.hpp"

#include <stdexcept>
#include <string>
#include <string_view>

namespace xcuda::cpu::ptx {

// what(): "PTX line 12: expected ';' after the operands of 'ld.global.u32', found '}'".
class ParseError : public std::runtime_error {
public:
    ParseError(int line, const std::string& message);
    int line() const noexcept { return line_; }

private:
    int line_;
};

Module parse(std::string_view text);

}  // namespace xcuda::cpu::ptx
