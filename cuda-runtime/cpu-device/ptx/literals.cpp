#include "ptx/literals.hpp"

#include <charconv>
#include <cstring>
#include <limits>

namespace xcuda::cpu::ptx {

namespace {

int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

std::optional<std::uint64_t> read_digits(std::string_view digits, unsigned base) {
    if (digits.empty()) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : digits) {
        const int d = digit_value(c);
        if (d >= static_cast<int>(base)) return std::nullopt;
        if (value > (std::numeric_limits<std::uint64_t>::max() - static_cast<unsigned>(d)) / base) return std::nullopt;
        value = value * base + static_cast<unsigned>(d);
    }
    return value;
}

float as_float(std::uint64_t bits) {
    const auto b = static_cast<std::uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}
double as_double(std::uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}
std::uint64_t bits_of(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}
std::uint64_t bits_of(double d) {
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

}  // namespace

Literal Literal::negated() const {
    switch (kind) {
        case Kind::integer: return {kind, ~bits + 1};
        case Kind::f32: return {kind, bits ^ 0x80000000u};
        case Kind::f64: return {kind, bits ^ (std::uint64_t{1} << 63)};
    }
    return *this;
}

std::uint64_t Literal::f32_bits() const {
    switch (kind) {
        case Kind::integer: return bits_of(static_cast<float>(static_cast<std::int64_t>(bits)));
        case Kind::f32: return bits;
        case Kind::f64: return bits_of(static_cast<float>(as_double(bits)));
    }
    return bits;
}

std::uint64_t Literal::f64_bits() const {
    switch (kind) {
        case Kind::integer: return bits_of(static_cast<double>(static_cast<std::int64_t>(bits)));
        case Kind::f32: return bits_of(static_cast<double>(as_float(bits)));
        case Kind::f64: return bits;
    }
    return bits;
}

std::optional<Literal> read_literal(std::string_view text) {
    if (text.size() >= 2 && text[0] == '0') {
        const char p = text[1];
        if (p == 'f' || p == 'F' || p == 'd' || p == 'D') {
            const bool f32 = p == 'f' || p == 'F';
            const std::string_view digits = text.substr(2);
            if (digits.size() != (f32 ? 8u : 16u)) return std::nullopt;
            const auto bits = read_digits(digits, 16);
            if (!bits) return std::nullopt;
            return Literal{f32 ? Literal::Kind::f32 : Literal::Kind::f64, *bits};
        }
    }
    const bool decimal_float = text.find_first_of(".eE") != std::string_view::npos &&
                               !(text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'));
    if (decimal_float) {
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
        return Literal{Literal::Kind::f64, bits_of(value)};
    }
    if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) text.remove_suffix(1);
    std::optional<std::uint64_t> value;
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        value = read_digits(text.substr(2), 16);
    } else if (text.size() >= 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
        value = read_digits(text.substr(2), 2);
    } else if (text.size() >= 2 && text[0] == '0') {
        value = read_digits(text.substr(1), 8);
    } else {
        value = read_digits(text, 10);
    }
    if (!value) return std::nullopt;
    return Literal{Literal::Kind::integer, *value};
}

}  // namespace xcuda::cpu::ptx
