// Human-readable quantities with the unit chosen so the number has 1-3 integer digits.
#pragma once

#include <cstdint>
#include <string>

namespace xcuda::report {

// 0.0000123 -> "12.3 µs"; ns, µs, ms, s; `digits` significant digits (default 3).
std::string format_duration(double seconds, int digits = 3);

// Formats `seconds` in the unit format_duration would pick for `reference_seconds`, so a
// spread prints as "12.3 µs ± 0.41 µs" rather than "12.3 µs ± 410 ns".
std::string format_duration_as(double seconds, double reference_seconds, int digits = 3);

// 1536 -> "1.5 KiB"; bytes below 1024 as "812 B".
std::string format_bytes(std::uint64_t bytes);

// Decimal GB/s as GPU vendors quote bandwidth: 3.35e12 B/s -> "3350 GB/s".
std::string format_bandwidth(double bytes_per_second);

// 0.75 -> "75%", 0.3333 -> "33%" (nearest integer percent); with decimals = 1,
// 0.5123 -> "51.2%".
std::string format_percent(double fraction, int decimals = 0);

// Decimal (SI) prefix so the number has 1-3 integer digits, `digits` significant digits:
// (6.7e13, "FLOP/s") -> "67.0 TFLOP/s", (512, "FLOP") -> "512 FLOP".
std::string format_si(double value, const std::string& unit, int digits = 3);

// Arithmetic intensity without a prefix, which would read as a unit: 0.08333 ->
// "0.0833 FLOP/byte", 19412 -> "19412 FLOP/byte".
std::string format_intensity(double flop_per_byte);

// 12345 -> "12,345", for counts a reader compares digit by digit (samples, events).
std::string format_count(std::uint64_t count);

}  // namespace xcuda::report
