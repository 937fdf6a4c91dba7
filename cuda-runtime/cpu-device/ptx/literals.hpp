// PTX's numeric literals as written: integers (decimal, 0x hex, 0b binary, 0 octal, an optional U
// suffix) and floats (0f/0F with the 8 hex digits of an f32, 0d/0D with the 16 of an f64, or
// decimal, which PTX reads as an f64).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace xcuda::cpu::ptx {

struct Literal {
    enum class Kind : std::uint8_t { integer, f32, f64 } kind = Kind::integer;
    std::uint64_t bits = 0;  // the integer (two's complement when negated), or the float's IEEE bits

    Literal negated() const;
    // The value as an f32 / f64 (an integer converts by value).
    std::uint64_t f32_bits() const;
    std::uint64_t f64_bits() const;
};

// nullopt when `text` is not a literal (bad digits, out of range, 0f with other than 8 digits).
std::optional<Literal> read_literal(std::string_view text);

}  // namespace xcuda::cpu::ptx
