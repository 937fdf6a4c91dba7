#pragma once

#include <string>

namespace xcuda::rt {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr Dim3() = default;
    constexpr Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr unsigned long long volume() const { return 1ULL * x * y * z; }
    std::string str() const {
        return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
    }
};

constexpr bool operator==(const Dim3& a, const Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

}  // namespace xcuda::rt
