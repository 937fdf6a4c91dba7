#include "xcuda/report/units.hpp"

#include <cmath>
#include <cstdio>

namespace xcuda::report {
namespace {

struct Unit {
    double scale;
    const char* name;
};
constexpr Unit kTimeUnits[] = {{1e-9, "ns"}, {1e-6, "µs"}, {1e-3, "ms"}, {1.0, "s"}};

std::string fixed(double value, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    return buf;
}

// Decimals that give `digits` significant digits for |value| (0 for values >= 10^(digits-1)).
int decimals_for(double value, int digits) {
    if (value == 0.0) return 0;
    int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    int d = digits - 1 - magnitude;
    return d < 0 ? 0 : d;
}

double round_to(double value, int decimals) {
    double f = std::pow(10.0, decimals);
    return std::round(value * f) / f;
}

// `digits` significant digits, counted after rounding (9.996 -> "10.0", not "10.00").
std::string significant(double value, int digits) {
    return fixed(value, decimals_for(round_to(value, decimals_for(value, digits)), digits));
}

// Index into kTimeUnits for `seconds`, chosen after rounding so 999.7 µs prints "1.00 ms".
std::size_t time_unit_for(double seconds, int digits) {
    double s = std::fabs(seconds);
    std::size_t i = 0;
    while (i + 1 < std::size(kTimeUnits) && s >= kTimeUnits[i + 1].scale) ++i;
    double v = s / kTimeUnits[i].scale;
    if (i + 1 < std::size(kTimeUnits) && round_to(v, decimals_for(v, digits)) >= 1000.0) ++i;
    return i;
}

}  // namespace

std::string format_duration(double seconds, int digits) {
    if (!std::isfinite(seconds)) return "n/a";
    std::size_t i = time_unit_for(seconds, digits);
    double v = seconds / kTimeUnits[i].scale;
    return significant(v, digits) + " " + kTimeUnits[i].name;
}

std::string format_duration_as(double seconds, double reference_seconds, int digits) {
    if (!std::isfinite(seconds) || !std::isfinite(reference_seconds)) return "n/a";
    std::size_t i = time_unit_for(reference_seconds, digits);
    double ref = reference_seconds / kTimeUnits[i].scale;
    double v = seconds / kTimeUnits[i].scale;
    int decimals = decimals_for(round_to(ref, decimals_for(ref, digits)), digits);
    // A spread far below the reference's resolution still shows one significant digit.
    int limit = decimals + 3;
    while (v != 0.0 && round_to(v, decimals) == 0.0 && decimals < limit) ++decimals;
    return fixed(v, decimals) + " " + kTimeUnits[i].name;
}

std::string format_bytes(std::uint64_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = static_cast<double>(bytes) / 1024.0;
    std::size_t i = 0;
    while (i + 1 < std::size(units) && std::round(v * 10.0) / 10.0 >= 1024.0) {
        v /= 1024.0;
        ++i;
    }
    std::string s = fixed(v, v < 100.0 ? 1 : 0);
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s + " " + units[i];
}

std::string format_bandwidth(double bytes_per_second) {
    if (!std::isfinite(bytes_per_second) || bytes_per_second < 0) return "n/a";
    double gbs = bytes_per_second / 1e9;
    int decimals = gbs < 10.0 ? 2 : gbs < 100.0 ? 1 : 0;
    return fixed(gbs, decimals) + " GB/s";
}

std::string format_percent(double fraction, int decimals) {
    if (!std::isfinite(fraction)) return "n/a";
    return fixed(round_to(fraction * 100.0, decimals), decimals) + "%";
}

std::string format_si(double value, const std::string& unit, int digits) {
    if (!std::isfinite(value)) return "n/a";
    static const char* const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    std::size_t i = 0;
    double v = value;
    // Chosen after rounding, so 999.7e9 prints "1.00 T" rather than "1000 G".
    while (i + 1 < std::size(prefixes) && std::fabs(round_to(v, decimals_for(v, digits))) >= 1000.0) {
        v /= 1000.0;
        ++i;
    }
    return significant(v, digits) + " " + prefixes[i] + unit;
}

std::string format_intensity(double flop_per_byte) {
    if (!std::isfinite(flop_per_byte)) return "n/a";
    return significant(flop_per_byte, 3) + " FLOP/byte";
}

std::string format_count(std::uint64_t count) {
    std::string digits = std::to_string(count), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace xcuda::report
