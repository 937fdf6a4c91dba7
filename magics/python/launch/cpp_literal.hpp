#pragma once
// C++ default arguments as Python values, so `k(x, n)` can omit a trailing `float scale = 1.0f`.
// Only literals are read (what defaults almost always are); anything else (a constant's
// name, an expression) is refused when the call needs it, naming the default.
#include <pybind11/pybind11.h>

#include <string_view>

namespace xcuda::magics {

// 42, -7, 0x1F, 0b101, 017, 1'000, 10u, 5ull -> int; 1.0f, .5, 1e-3, -2.5L -> float;
// true/false -> bool; nullptr, NULL, 0 for a pointer -> None (the caller decides);
// 'a' -> int. A null object when `text` is not such a literal.
pybind11::object python_value_of_cpp_literal(std::string_view text);

}  // namespace xcuda::magics
