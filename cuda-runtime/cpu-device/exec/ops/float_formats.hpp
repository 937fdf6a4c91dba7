// The narrow floating-point formats PTX names (f16, bf16, tf32, e4m3, e5m2) and the conversions
// between them, f32, f64 and integers, bit-exact in every rounding mode, as cvt defines them;
// and the f16/bf16 arithmetic. Rounding is done on the integer significand (no host rounding
// mode is involved), so every result is the correctly rounded one, subnormals and overflow
// included.
//
// NaN results: f16 and bf16 0x7FFF, f32 and tf32 0x7FFFFFFF, e4m3 and e5m2 0x7F (the canonical
// NaNs NVIDIA's own host emulation of these conversions returns, cuda_fp16.hpp, cuda_bf16.hpp,
// cuda_fp8.hpp). A NaN converted to f64 keeps its sign and payload, quieted (f64 propagates NaNs:
// float_semantics.hpp).
#pragma once

#include "exec/ops/float_semantics.hpp"

#include <cstdint>

namespace xcuda::cpu::fp {

// tf32 values are f32 bit patterns whose low 13 bits are zero.
enum class Format : std::uint8_t { f16, bf16, tf32, f32, f64, e4m3, e5m2 };

inline constexpr std::uint16_t canonical_nan_f16 = 0x7FFFu;
inline constexpr std::uint16_t canonical_nan_bf16 = 0x7FFFu;

std::uint64_t canonical_nan(Format f) noexcept;
bool is_nan(std::uint64_t bits, Format f) noexcept;
bool is_subnormal(std::uint64_t bits, Format f) noexcept;

// The exact value of `bits` (a NaN gives a quiet NaN of no particular payload).
double to_double(std::uint64_t bits, Format f) noexcept;

// cvt between float formats: `bits` of format `from` rounded to `to` in mode r (widening ones are
// exact). Past the largest finite value the result is infinity or that largest value, as the
// rounding direction says; with `satfinite` always the largest finite value, infinities
// included. e4m3 has no infinity: an overflow without .satfinite gives its NaN.
std::uint64_t convert(std::uint64_t bits, Format from, Format to, Round r, bool satfinite = false) noexcept;
inline std::uint64_t from_double(double v, Format to, Round r, bool satfinite = false) noexcept {
    return convert(bits_of(v), Format::f64, to, r, satfinite);
}
// An integer, given by sign and magnitude, rounded to format f (cvt.frnd.ftype.itype).
std::uint64_t from_integer(bool negative, std::uint64_t magnitude, Format f, Round r) noexcept;

// cvt.irnd.itype.ftype: v rounded to an integral value in mode r (.rni .rzi .rmi .rpi), clamped
// to the range of a `bits`-bit integer (PTX saturates float-to-integer conversions by default);
// NaN gives 0. The result is the integer's two's-complement bits.
std::uint64_t to_integer(double v, Round r, unsigned bits, bool is_signed) noexcept;
// cvt.irnd.ftype.ftype: v rounded to an integral value of the same format; zeros, infinities and
// NaNs pass unchanged and a zero result keeps v's sign.
double round_integral(double v, Round r) noexcept;

// --- f16 and bf16 arithmetic (.rn, the only rounding these instructions take) -----------------

struct HalfMode {
    Format format = Format::f16;  // f16 or bf16
    bool ftz = false;             // .ftz (f16): subnormal inputs and results become signed zeros
    bool sat = false;             // .sat: clamped to [+0.0, 1.0], NaN gives +0.0
    bool relu = false;            // .relu: a negative result (-0.0 included) gives +0.0, a NaN the canonical NaN
};

// An operand's value (flushed under .ftz).
double half_value(std::uint16_t a, HalfMode m) noexcept;

// add/sub/mul/fma round the exact result once: products are exact in double, and a bf16 sum that
// a double cannot hold is rounded to odd before it is rounded to bf16, so no case double-rounds.
std::uint16_t half_add(std::uint16_t a, std::uint16_t b, HalfMode m) noexcept;
std::uint16_t half_sub(std::uint16_t a, std::uint16_t b, HalfMode m) noexcept;
std::uint16_t half_mul(std::uint16_t a, std::uint16_t b, HalfMode m) noexcept;
std::uint16_t half_fma(std::uint16_t a, std::uint16_t b, std::uint16_t c, HalfMode m) noexcept;
std::uint16_t half_min_max(std::uint16_t a, std::uint16_t b, bool is_max, HalfMode m, MinMax f) noexcept;
std::uint16_t half_neg(std::uint16_t a, HalfMode m) noexcept;
std::uint16_t half_abs(std::uint16_t a, HalfMode m) noexcept;
// ex2.approx and tanh.approx: the function of the exact operand, rounded to nearest.
std::uint16_t half_ex2_approx(std::uint16_t a, HalfMode m) noexcept;
std::uint16_t half_tanh_approx(std::uint16_t a, HalfMode m) noexcept;

}  // namespace xcuda::cpu::fp
