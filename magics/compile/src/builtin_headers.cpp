#include "xcuda/compile/builtin_headers.hpp"

#include <algorithm>

// The texts live here as raw strings rather than as files under share/: the compile layer then
// needs no data directory at run time (a pip wheel, the device bundle and the build tree all
// work alike) and no generator step at build time. Each text names itself in its first line, as
// NVRTC's diagnostics show a header's name and line ("cmath(3): error ...").
//
// What they stand on (NVRTC 13, checked with `namespace std { using ::NAME; }` per name):
// NVRTC declares printf, malloc, free, memcpy, memset, __assertfail, abs/labs/llabs, size_t,
// ptrdiff_t, NULL and the C math functions with their float overloads (sqrt(float), fabs(float)),
// all in the global namespace; not isnormal, fpclassify, memmove, memcmp, strlen, abort, the
// long double functions, nor any gcc __builtin_* but __builtin_bit_cast. So the C headers are
// using-declarations of those into std (one entity under two names: `using namespace std;`
// stays unambiguous) and a few macros; the C++ headers are CCCL's <cuda/std/...>.

namespace xcuda::compile {
namespace {

// Included first by every header over CCCL: says why a C++14 cell fails (CCCL's own #error
// names libcu++, which the cell never mentioned), and lowers CCCL's type-list unroll limit
// from NVRTC's 16 to the 10 it uses under nvcc: the 16-way preprocessor expansion made
// <cuda/std/type_traits> take 1.5 s to compile and 10 takes 0.1 s (NVRTC 13.0, sm_90, this
// machine). It only trades recursion depth for unrolling in CCCL's metaprograms.
constexpr const char* xcuda_cccl =
    R"hdr(// xcuda built-in: what the standard headers over CCCL's <cuda/std/...> need first
#pragma once
#if __cplusplus < 201703L
#error "this standard header maps to CCCL's <cuda/std/...>, which needs C++17: compile the cell with --std c++17 or later"
#endif
#ifndef _CCCL_META_UNROLL_LIMIT
#define _CCCL_META_UNROLL_LIMIT 10
#endif
)hdr";

constexpr const char* assert_h =
    R"hdr(// xcuda built-in <assert.h>: assert fails through NVRTC's __assertfail, as nvcc's does
// No include guard, as in the C library: each inclusion defines assert for the NDEBUG then in effect.
#undef assert
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#else
#define assert(e) (static_cast<bool>(e) ? static_cast<void>(0) \
                   : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
)hdr";

constexpr const char* cassert = R"hdr(// xcuda built-in <cassert>
#include <assert.h>
)hdr";

constexpr const char* stdio_h = R"hdr(// xcuda built-in <stdio.h>: printf (device printf) is an NVRTC built-in
#pragma once
)hdr";

constexpr const char* cstdio = R"hdr(// xcuda built-in <cstdio>
#pragma once
#include <stdio.h>
namespace std { using ::printf; using ::size_t; }
)hdr";

constexpr const char* stddef_h = R"hdr(// xcuda built-in <stddef.h>: size_t, ptrdiff_t and NULL are NVRTC built-ins
#pragma once
#ifndef offsetof
#define offsetof(type, member) ((::size_t)&reinterpret_cast<const volatile char&>(((type*)0)->member))
#endif
)hdr";

constexpr const char* cstddef = R"hdr(// xcuda built-in <cstddef>
#pragma once
#include <stddef.h>
namespace std { using ::size_t; using ::ptrdiff_t; using nullptr_t = decltype(nullptr); }
)hdr";

constexpr const char* stdlib_h =
    R"hdr(// xcuda built-in <stdlib.h>: malloc and free (the device heap), abs, labs and llabs are NVRTC built-ins
#pragma once
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
)hdr";

constexpr const char* cstdlib = R"hdr(// xcuda built-in <cstdlib>
#pragma once
#include <stdlib.h>
namespace std { using ::malloc; using ::free; using ::abs; using ::labs; using ::llabs; using ::size_t; }
)hdr";

constexpr const char* string_h =
    R"hdr(// xcuda built-in <string.h>: memcpy and memset are NVRTC built-ins, memmove, memcmp and memchr CCCL's
#pragma once
#include <__xcuda_cccl.h>
#include <cuda/std/cstring>
using cuda::std::memmove;
using cuda::std::memcmp;
using cuda::std::memchr;
)hdr";

constexpr const char* cstring = R"hdr(// xcuda built-in <cstring>
#pragma once
#include <string.h>
namespace std { using ::memcpy; using ::memset; using ::memmove; using ::memcmp; using ::memchr; using ::size_t; }
)hdr";

constexpr const char* stdint_h =
    R"hdr(// xcuda built-in <stdint.h>: CCCL's <cuda/std/cstdint> declares int8_t ... uintmax_t and INT8_MAX ... in the global namespace for NVRTC
#pragma once
#include <__xcuda_cccl.h>
#include <cuda/std/cstdint>
)hdr";

constexpr const char* cstdint = R"hdr(// xcuda built-in <cstdint>
#pragma once
#include <stdint.h>
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::int_least8_t; using ::int_least16_t; using ::int_least32_t; using ::int_least64_t;
using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t; using ::uint_least64_t;
using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;
using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
)hdr";

constexpr const char* limits_h =
    R"hdr(// xcuda built-in <limits.h>: CCCL's <cuda/std/climits> defines CHAR_BIT, INT_MAX, ... for NVRTC
#pragma once
#include <__xcuda_cccl.h>
#include <cuda/std/climits>
)hdr";

constexpr const char* climits = R"hdr(// xcuda built-in <climits>
#pragma once
#include <limits.h>
)hdr";

// CCCL's <cuda/std/cfloat> defines nothing for NVRTC; these are IEEE-754 binary32/binary64's.
constexpr const char* float_h = R"hdr(// xcuda built-in <float.h>: float is IEEE-754 binary32, double binary64
#pragma once
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define FLT_DIG 6
#define FLT_DECIMAL_DIG 9
#define FLT_MIN_EXP (-125)
#define FLT_MIN_10_EXP (-37)
#define FLT_MAX_EXP 128
#define FLT_MAX_10_EXP 38
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define DBL_MANT_DIG 53
#define DBL_DIG 15
#define DBL_DECIMAL_DIG 17
#define DBL_MIN_EXP (-1021)
#define DBL_MIN_10_EXP (-307)
#define DBL_MAX_EXP 1024
#define DBL_MAX_10_EXP 308
#define DBL_MAX 1.79769313486231570814527423731704357e+308
#define DBL_MIN 2.22507385850720138309023271733240406e-308
#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324
#define DBL_EPSILON 2.22044604925031308084726333618164062e-16
#define DECIMAL_DIG 17
#define FLT_EVAL_METHOD 0
)hdr";

constexpr const char* cfloat = R"hdr(// xcuda built-in <cfloat>
#pragma once
#include <float.h>
)hdr";

// INFINITY and NAN are guarded: CCCL's <cuda/std/cmath> defines them too (differently), and a
// cell including it first must not get a redefinition warning.
constexpr const char* math_h =
    R"hdr(// xcuda built-in <math.h>: the math functions (float overloads too) are NVRTC built-ins
#pragma once
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#ifndef INFINITY
#define INFINITY __builtin_bit_cast(float, 0x7f800000u)
#endif
#ifndef NAN
#define NAN __builtin_bit_cast(float, 0x7fc00000u)
#endif
#define HUGE_VALF __builtin_bit_cast(float, 0x7f800000u)
#define HUGE_VAL __builtin_bit_cast(double, 0x7ff0000000000000ull)
typedef float float_t;
typedef double double_t;
)hdr";

constexpr const char* cmath =
    R"hdr(// xcuda built-in <cmath>: std:: names for NVRTC's built-in math functions (float overloads included)
#pragma once
#include <math.h>
namespace std {
using ::float_t; using ::double_t;
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::remquo; using ::fma;
using ::fmax; using ::fmin; using ::fdim; using ::nan;
using ::exp; using ::exp2; using ::expm1; using ::log; using ::log10; using ::log2; using ::log1p;
using ::pow; using ::sqrt; using ::cbrt; using ::hypot;
using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; using ::atan; using ::atan2;
using ::sinh; using ::cosh; using ::tanh; using ::asinh; using ::acosh; using ::atanh;
using ::erf; using ::erfc; using ::tgamma; using ::lgamma;
using ::ceil; using ::floor; using ::trunc; using ::round; using ::lround; using ::llround;
using ::nearbyint; using ::rint; using ::lrint; using ::llrint;
using ::frexp; using ::ldexp; using ::modf; using ::scalbn; using ::scalbln; using ::ilogb; using ::logb;
using ::nextafter; using ::copysign;
using ::isfinite; using ::isinf; using ::isnan; using ::signbit;
}
)hdr";

// The C++ headers bring in all of cuda::std rather than a list of names: the list differs
// between CCCL versions (CUDA 12 and 13), and a name missing from it would break every cell.
constexpr const char* type_traits = R"hdr(// xcuda built-in <type_traits>: CCCL's <cuda/std/type_traits> as std::
#pragma once
#include <__xcuda_cccl.h>
#include <cuda/std/type_traits>
namespace std { using namespace cuda::std; }
)hdr";

constexpr const char* utility =
    R"hdr(// xcuda built-in <utility>: CCCL's <cuda/std/utility> (swap, move, forward, pair, ...) as std::
#pragma once
#include <__xcuda_cccl.h>
#include <cuda/std/utility>
namespace std { using namespace cuda::std; }
)hdr";

constexpr const char* limits = R"hdr(// xcuda built-in <limits>: CCCL's <cuda/std/limits> (numeric_limits) as std::
#pragma once
#include <__xcuda_cccl.h>
#include <cuda/std/limits>
namespace std { using namespace cuda::std; }
)hdr";

// CCCL ships no public <cuda/std/algorithm>; min, max and clamp are what kernels use of it.
// Templates, so NVRTC's non-template ::min/::max overloads stay the better match under
// `using namespace std;`.
constexpr const char* algorithm = R"hdr(// xcuda built-in <algorithm>: std::min, std::max and std::clamp only
#pragma once
namespace std {
template <class T> __host__ __device__ constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <class T, class Less> __host__ __device__ constexpr const T& min(const T& a, const T& b, Less less) { return less(b, a) ? b : a; }
template <class T> __host__ __device__ constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
template <class T, class Less> __host__ __device__ constexpr const T& max(const T& a, const T& b, Less less) { return less(a, b) ? b : a; }
template <class T> __host__ __device__ constexpr const T& clamp(const T& v, const T& lo, const T& hi) { return v < lo ? lo : hi < v ? hi : v; }
}
)hdr";

}  // namespace

const std::vector<std::pair<std::string, std::string>>& builtin_headers() {
    static const std::vector<std::pair<std::string, std::string>> headers = [] {
        std::vector<std::pair<std::string, std::string>> h{
            {"__xcuda_cccl.h", xcuda_cccl},
            {"algorithm", algorithm},
            {"assert.h", assert_h},
            {"cassert", cassert},
            {"cfloat", cfloat},
            {"climits", climits},
            {"cmath", cmath},
            {"cstddef", cstddef},
            {"cstdint", cstdint},
            {"cstdio", cstdio},
            {"cstdlib", cstdlib},
            {"cstring", cstring},
            {"float.h", float_h},
            {"limits", limits},
            {"limits.h", limits_h},
            {"math.h", math_h},
            {"stddef.h", stddef_h},
            {"stdint.h", stdint_h},
            {"stdio.h", stdio_h},
            {"stdlib.h", stdlib_h},
            {"string.h", string_h},
            {"type_traits", type_traits},
            {"utility", utility},
        };
        std::sort(h.begin(), h.end());
        return h;
    }();
    return headers;
}

}  // namespace xcuda::compile
