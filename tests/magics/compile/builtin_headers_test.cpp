// The built-in standard headers, compiled by the real NVRTC through compile_cell (no GPU needed:
// every cell targets sm_90): each header gives a cell what it gives one compiled by nvcc.
#include "xcuda/compile/builtin_headers.hpp"
#include "xcuda/compile/compile_cell.hpp"

#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

using namespace xcuda::compile;

namespace {

// One cell per header: it uses what the header provides and fails to compile without it.
// `ptx_has` / `ptx_lacks`: what the PTX must (not) contain.
struct Case {
    const char* header;
    const char* body;
    std::vector<std::string> ptx_has;
    std::vector<std::string> ptx_lacks;
};

// `same<A, B>::v`: the cells' own is_same, for headers that do not bring <type_traits>.
const char* same =
    "template <class A, class B> struct same { static constexpr bool v = false; };\n"
    "template <class A> struct same<A, A> { static constexpr bool v = true; };\n";

const std::vector<Case>& cases() {
    static const std::vector<Case> c = {
        {"cstdio",
         R"(extern "C" __global__ void k(int n) { std::printf("%d %d\n", threadIdx.x, n); printf("x\n"); })",
         {"vprintf"},
         {}},
        {"stdio.h", R"(extern "C" __global__ void k(int n) { printf("%d %d\n", threadIdx.x, n); })", {"vprintf"}, {}},
        {"cassert",
         R"(extern "C" __global__ void k(int* p, int n) { int i = threadIdx.x; assert(i < n); p[i] = i; })",
         {"__assertfail"},
         {}},
        {"assert.h",
         R"(extern "C" __global__ void k(int* p, int n) { int i = threadIdx.x; assert(i < n); p[i] = i; })",
         {"__assertfail"},
         {}},
        // float in, float math out: std::sqrt(float) must be the float overload (no f64 in the PTX)
        {"cmath",
         R"(extern "C" __global__ void k(float* x) {
    x[0] = std::sqrt(x[0]) + std::fabs(x[1]) + std::abs(x[2]) + std::pow(x[3], 2.0f) + std::exp(x[4])
         + (std::isnan(x[5]) ? 1.0f : 0.0f) + std::floor(x[6]) + std::fmax(x[7], x[8]) + sqrtf(x[9]) + fabs(x[10]);
    if (x[11] == INFINITY) x[12] = NAN;
    x[13] = float(M_PI) * HUGE_VALF;
})",
         {"sqrt.rn.f32"},
         {"sqrt.rn.f64", ".f64"}},
        {"math.h",
         R"(extern "C" __global__ void k(float* x, double* d) {
    x[0] = sqrtf(x[0]) + sqrt(x[1]) + fabs(x[2]) + float(M_PI) + (x[3] < INFINITY);
    d[0] = sqrt(d[0]) + HUGE_VAL;
})",
         {"sqrt.rn.f32", "sqrt.rn.f64"},
         {}},
        {"cstdint",
         R"(static_assert(same<std::uint32_t, ::uint32_t>::v && same<std::int64_t, long long>::v, "");
static_assert(sizeof(std::uint8_t) == 1 && sizeof(std::int16_t) == 2 && sizeof(std::uintptr_t) == 8, "");
static_assert(UINT32_MAX == 4294967295u && INT64_MAX == 9223372036854775807LL && INT8_MIN == -128, "");
extern "C" __global__ void k(std::uint32_t* p, uint64_t* q) { p[0] = UINT32_MAX; q[0] = SIZE_MAX; })",
         {},
         {}},
        {"stdint.h",
         R"(static_assert(sizeof(uint32_t) == 4 && sizeof(int64_t) == 8 && UINT16_MAX == 65535, "");
extern "C" __global__ void k(uint32_t* p, int8_t s) { p[0] = UINT32_MAX + s; })",
         {},
         {}},
        {"climits",
         R"(static_assert(CHAR_BIT == 8 && INT_MAX == 2147483647 && INT_MIN == -INT_MAX - 1, "");
static_assert(UINT_MAX == 4294967295u && LLONG_MAX == 9223372036854775807LL && SHRT_MAX == 32767, "");
extern "C" __global__ void k(int* p) { p[0] = INT_MAX; })",
         {},
         {}},
        {"limits.h",
         R"(static_assert(CHAR_BIT == 8 && INT_MAX == 2147483647 && UCHAR_MAX == 255, "");
extern "C" __global__ void k(int* p) { p[0] = INT_MIN; })",
         {},
         {}},
        {"cfloat",
         R"(static_assert(FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53 && FLT_EPSILON == 1.0f / 8388608.0f, "");
static_assert(FLT_MAX > 3.4e38f && DBL_MAX > 1.79e308 && FLT_MIN < 1.2e-38f && FLT_RADIX == 2, "");
extern "C" __global__ void k(float* p, double* d) { p[0] = FLT_MAX; d[0] = DBL_EPSILON; })",
         {},
         {}},
        {"float.h",
         R"(static_assert(FLT_DIG == 6 && DBL_DIG == 15, "");
extern "C" __global__ void k(float* p) { p[0] = FLT_MAX; })",
         {},
         {}},
        {"cstdlib",
         R"(extern "C" __global__ void k(int* p) {
    int* q = static_cast<int*>(std::malloc(4 * sizeof(int)));
    q[0] = std::abs(p[0]) + EXIT_SUCCESS;
    p[1] = q[0];
    std::free(q);
})",
         {"malloc", "free"},
         {}},
        {"stdlib.h",
         R"(extern "C" __global__ void k(int* p) { int* q = (int*)malloc(16); q[0] = abs(p[0]); p[1] = q[0]; free(q); })",
         {"malloc", "free"},
         {}},
        {"cstring",
         R"(extern "C" __global__ void k(char* d, const char* s, int n) {
    std::memcpy(d, s, n);
    std::memset(d + n, 0, n);
    std::memmove(d + 1, d, n);
    d[2 * n] = std::memcmp(d, s, n) == 0 && std::memchr(s, 'a', n) != nullptr;
})",
         {},
         {}},
        {"string.h",
         R"(extern "C" __global__ void k(char* d, const char* s, int n) {
    memcpy(d, s, n); memset(d, 0, n); memmove(d + 1, d, n); d[n] = memcmp(d, s, n) == 0 && memchr(s, 'a', n) != NULL;
})",
         {},
         {}},
        {"cstddef",
         R"(struct S { int a; float b; };
static_assert(sizeof(std::size_t) == 8 && sizeof(std::ptrdiff_t) == 8 && same<std::nullptr_t, decltype(nullptr)>::v, "");
extern "C" __global__ void k(std::size_t* p) { p[0] = offsetof(S, b); })",
         {},
         {}},
        {"stddef.h",
         R"(struct S { int a; float b; };
extern "C" __global__ void k(size_t* p) { p[0] = offsetof(S, b); p[1] = NULL == 0; })",
         {},
         {}},
        {"type_traits",
         R"(template <typename T, typename = std::enable_if_t<std::is_floating_point<T>::value>>
__device__ T twice(T x) { return x + x; }
static_assert(std::is_same<float, std::remove_cv_t<const float>>::value, "");
static_assert(std::is_same_v<int, std::conditional_t<true, int, long>> && !std::is_integral_v<float>, "");
static_assert(std::integral_constant<int, 3>::value == 3 && std::is_trivially_copyable<float2>::value, "");
extern "C" __global__ void k(float* p) { p[0] = twice(p[0]); })",
         {},
         {}},
        {"utility",
         R"(template <typename T> __device__ T pass(T&& x) { return std::forward<T>(x); }
extern "C" __global__ void k(int* p) {
    int a = p[0], b = p[1];
    std::swap(a, b);
    std::pair<int, float> pr = std::make_pair(std::move(a), 2.0f);
    p[0] = pass(pr.first) + b + int(pr.second) + std::exchange(b, 5);
})",
         {},
         {}},
        {"limits",
         R"(static_assert(std::numeric_limits<float>::max() == 3.40282346638528859811704183484516925e+38F, "");
static_assert(std::numeric_limits<int>::max() == 2147483647 && std::numeric_limits<unsigned char>::digits == 8, "");
static_assert(std::numeric_limits<float>::has_infinity && std::numeric_limits<double>::is_iec559, "");
extern "C" __global__ void k(float* p) { p[0] = std::numeric_limits<float>::lowest() + std::numeric_limits<float>::infinity(); })",
         {},
         {}},
        {"algorithm",
         R"(struct Greater { __host__ __device__ constexpr bool operator()(int a, int b) const { return a > b; } };
static_assert(std::min(2, 3) == 2 && std::max(2.0f, 3.0f) == 3.0f && std::clamp(5, 0, 3) == 3, "");
static_assert(std::max(1, 2, Greater()) == 1 && std::min(1, 2, Greater()) == 2, "");
extern "C" __global__ void k(float* p) { p[0] = std::min(p[0], p[1]) + std::max<float>(p[2], 1); })",
         {},
         {}},
    };
    return c;
}

// gtest prints a failing case's parameter: its header, not its bytes
void PrintTo(const Case& c, std::ostream* os) { *os << "<" << c.header << ">"; }

CellOptions opts(const std::string& line = "") {
    CellOptions o = parse_cell_options(line);
    if (o.arch.empty()) o.arch = "sm_90";
    return o;
}

struct Fixture {
    CompileSession session{nullptr};  // no cache: every cell is compiled by NVRTC
    HeaderRegistry headers;

    CompileOutcome compile(const std::string& src, const std::string& line = "") {
        return session.compile_cell(src, opts(line), headers, "cell_1");
    }
};

// NVRTC's message when a compile fails, so a failing case says why.
std::string compiled_or_why(Fixture& f, const std::string& src, const std::string& line, std::string& ptx) {
    try {
        ptx = f.compile(src, line).module->ptx;
        return "";
    } catch (const CellCompileError& e) {
        return e.log();
    }
}

class EachBuiltinHeader : public ::testing::TestWithParam<std::tuple<Case, std::string>> {};

}  // namespace

TEST(BuiltinHeaders, CoverTheCHeadersInBothSpellingsAndSomeOfTheCppLibrary) {
    std::set<std::string> names;
    for (const auto& [name, text] : builtin_headers()) names.insert(name);
    for (const char* want :
         {"cstdio",  "stdio.h",  "cmath",       "math.h",  "cassert", "assert.h", "cstdint", "stdint.h",
          "climits", "limits.h", "cfloat",      "float.h", "cstdlib", "stdlib.h", "cstring", "string.h",
          "cstddef", "stddef.h", "type_traits", "utility", "limits",  "algorithm"})
        EXPECT_TRUE(names.count(want)) << want;
    // every header a user can include has its case below (the helper is included by them)
    for (const auto& name : names) {
        bool tested = std::any_of(cases().begin(), cases().end(), [&](const Case& c) { return c.header == name; });
        EXPECT_TRUE(tested || name == "__xcuda_cccl.h") << name << " has no case in this file";
    }
    EXPECT_TRUE(std::is_sorted(builtin_headers().begin(), builtin_headers().end()));
}

TEST_P(EachBuiltinHeader, GivesTheCellWhatNvccsDoes) {
    const auto& [c, line] = GetParam();
    Fixture f;
    std::string src = std::string("#include <") + c.header + ">\n" + same + c.body + "\n";
    std::string ptx;
    std::string why = compiled_or_why(f, src, line, ptx);
    ASSERT_EQ(why, "") << src;
    for (const auto& s : c.ptx_has) EXPECT_NE(ptx.find(s), std::string::npos) << s << " not in the PTX of " << c.header;
    for (const auto& s : c.ptx_lacks) EXPECT_EQ(ptx.find(s), std::string::npos) << s << " in the PTX of " << c.header;
    // the quoted spelling finds the same header
    std::string quoted = std::string("#include \"") + c.header + "\"\n" + same + c.body + "\n";
    EXPECT_EQ(compiled_or_why(f, quoted, line, ptx), "");
}

INSTANTIATE_TEST_SUITE_P(BuiltinHeaders, EachBuiltinHeader,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::Values(std::string(""), std::string("--std c++20"),
                                                              std::string("-- -default-device"))),
                         [](const ::testing::TestParamInfo<EachBuiltinHeader::ParamType>& info) {
                             std::string name = std::get<0>(info.param).header;
                             const std::string& line = std::get<1>(info.param);
                             name += line.empty() ? "_cxx17" : line == "--std c++20" ? "_cxx20" : "_default_device";
                             std::replace(name.begin(), name.end(), '.', '_');
                             return name;
                         });

TEST(BuiltinHeaders, UsingNamespaceStdLeavesNoCallAmbiguous) {
    // std::sqrt is ::sqrt under another name, and std::min a template, so NVRTC's own global
    // overloads and the std:: names never compete.
    Fixture f;
    std::string ptx;
    EXPECT_EQ(compiled_or_why(f, R"(#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <type_traits>
#include <utility>
#include <limits>
using namespace std;
extern "C" __global__ void k(float* x, int* i, unsigned u) {
    x[0] = sqrt(x[0]) + fabs(x[1]) + abs(x[2]) + pow(x[3], 2.0f) + floor(x[4]) + max(x[5], 1.0f) + min(x[6], x[7]);
    i[0] = abs(i[1]) + min(i[2], 3) + int(max(u, 3u)) + numeric_limits<int>::max();
    swap(x[0], x[1]);
}
)",
                              "", ptx),
              "");
}

TEST(BuiltinHeaders, StdAndCcclNamesAreTheSameEntities) {
    Fixture f;
    std::string ptx;
    EXPECT_EQ(compiled_or_why(f, R"(#include <cuda/std/cmath>
#include <cmath>
#include <cstdint>
#include <cuda/std/cstdint>
#include <type_traits>
#include <cfloat>
#include <limits>
static_assert(std::is_same<std::uint32_t, cuda::std::uint32_t>::value, "");
static_assert(std::is_same<std::numeric_limits<float>, cuda::std::numeric_limits<float>>::value, "");
static_assert(FLT_MAX == std::numeric_limits<float>::max() && FLT_MIN == std::numeric_limits<float>::min(), "");
static_assert(FLT_TRUE_MIN == std::numeric_limits<float>::denorm_min() && FLT_EPSILON == std::numeric_limits<float>::epsilon(), "");
static_assert(DBL_MAX == std::numeric_limits<double>::max() && DBL_MIN == std::numeric_limits<double>::min(), "");
static_assert(DBL_TRUE_MIN == std::numeric_limits<double>::denorm_min() && DBL_EPSILON == std::numeric_limits<double>::epsilon(), "");
extern "C" __global__ void k(float* p) { p[0] = std::sqrt(p[0]) + cuda::std::sqrt(p[1]) + INFINITY; }
)",
                              "", ptx),
              "");
}

TEST(BuiltinHeaders, NdebugTurnsAssertOffForTheIncludesThatFollow) {
    Fixture f;
    auto off = f.compile(
        "#define NDEBUG\n#include <cassert>\n"
        "extern \"C\" __global__ void k(int* p, int n) { assert(p[0] < n); p[0] = n; }\n");
    EXPECT_EQ(off.module->ptx.find("__assertfail"), std::string::npos);
    // as with the C library, a later inclusion without NDEBUG turns it on again
    auto on = f.compile(
        "#define NDEBUG\n#include <cassert>\n#undef NDEBUG\n#include <assert.h>\n"
        "extern \"C\" __global__ void k(int* p, int n) { assert(p[0] < n); p[0] = n; }\n");
    EXPECT_NE(on.module->ptx.find("__assertfail"), std::string::npos);
}

TEST(BuiltinHeaders, AssertNamesTheExpressionAndTheFile) {
    Fixture f;
    auto out = f.compile("#include <cassert>\n\nextern \"C\" __global__ void k(int* p, int n) { assert(p[0] < n); }\n");
    const std::string& ptx = out.module->ptx;
    // what __assertfail prints: the expression and the file are strings in the PTX
    auto has_bytes = [&](const std::string& text) {
        std::string bytes;
        for (unsigned char ch : text) bytes += (bytes.empty() ? "" : ", ") + std::to_string(ch);
        return ptx.find(bytes) != std::string::npos;
    };
    EXPECT_TRUE(has_bytes("p[0] < n")) << ptx;
    EXPECT_TRUE(has_bytes("cell.cu"));
}

TEST(BuiltinHeaders, ARegisteredHeaderOfTheSameNameWins) {
    Fixture f;
    const std::string cell =
        "#include <cstdint>\nstatic_assert(MINE == 7, \"\");\n"
        "extern \"C\" __global__ void k(int* p) { p[0] = MINE; }\n";
    EXPECT_THROW(f.compile(cell), CellCompileError);
    f.headers.set("cstdint", "#define MINE 7\n");
    auto out = f.compile(cell);
    EXPECT_EQ(out.module->headers_used, (std::vector<std::string>{"cstdint"}));
    // and where the built-in one is included by another header, the registered one is found too
    f.headers.set("mine.cuh", "#include <cstdint>\n");
    EXPECT_NO_THROW(f.compile("#include \"mine.cuh\"\nstatic_assert(MINE == 7, \"\");\n__global__ void k() {}\n"));
}

TEST(BuiltinHeaders, AreFoundFromRegisteredHeadersAndFromIncludeDirs) {
    Fixture f;
    f.headers.set("util.cuh",
                  "#pragma once\n#include <cstdint>\n#include <cmath>\n"
                  "__device__ inline std::uint32_t root(float x) { return std::uint32_t(std::sqrt(x)); }\n");
    EXPECT_NO_THROW(
        f.compile("#include \"util.cuh\"\nextern \"C\" __global__ void k(std::uint32_t* p) { p[0] = root(9.f); }\n"));
    // a header NVRTC reads from an -I dir, which no scan of the cell sees
    TempDir dir;
    std::ofstream(dir.path() / "lib.cuh") << "#pragma once\n#include <cstdio>\n#include <limits>\n"
                                             "__device__ inline void say(int v) { std::printf(\"%d\\n\", v); }\n";
    auto out =
        f.compile("#include \"lib.cuh\"\nextern \"C\" __global__ void k() { say(std::numeric_limits<int>::max()); }\n",
                  "-I " + dir.path().string());
    EXPECT_NE(out.module->ptx.find("vprintf"), std::string::npos);
}

TEST(BuiltinHeaders, ACpp14CellIsToldToCompileWithCpp17) {
    Fixture f;
    // the ones NVRTC's built-ins serve work in any dialect
    EXPECT_NO_THROW(
        f.compile("#include <cstdio>\n#include <cmath>\n#include <cassert>\n__global__ void k(float* x) "
                  "{ assert(x); printf(\"%f\\n\", std::sqrt(x[0])); }\n",
                  "--std c++14"));
    try {
        f.compile("#include <cstdint>\n__global__ void k(std::uint32_t* p) {}\n", "--std c++14");
        FAIL() << "compiled";
    } catch (const CellCompileError& e) {
        EXPECT_NE(e.log().find("compile the cell with --std c++17 or later"), std::string::npos) << e.log();
    }
}

TEST(BuiltinHeaders, CcclHeadersCompileWithNvccsUnrollLimit) {
    // 16 (CCCL's choice for NVRTC) made <type_traits> alone take 1.5 s to compile.
    Fixture f;
    EXPECT_NO_THROW(
        f.compile("#include <type_traits>\nstatic_assert(_CCCL_META_UNROLL_LIMIT == 10, \"\");\n"
                  "__global__ void k() {}\n"));
    // a cell that includes CCCL itself first keeps CCCL's own choice
    EXPECT_NO_THROW(
        f.compile("#include <cuda/std/type_traits>\n#include <type_traits>\n"
                  "static_assert(_CCCL_META_UNROLL_LIMIT == 16, \"\");\n__global__ void k() {}\n"));
}

TEST(BuiltinHeaders, AHeaderRegisteredUnderABuiltinsNameIsInEveryCellsCacheKey) {
    // NVRTC gets it in the built-in's place for every cell, and a header read from an -I dir may
    // include it where no scan of the cell can see.
    Fixture f;
    const char* cell = "__global__ void k() {}\n";
    const std::string k0 = f.compile(cell).module->cache_key;
    f.headers.set("other.cuh", "#define X 1\n");
    EXPECT_EQ(f.compile(cell).module->cache_key, k0);
    f.headers.set("stdio.h", "#define X 1\n");
    const std::string k1 = f.compile(cell).module->cache_key;
    EXPECT_NE(k1, k0);
    f.headers.set("stdio.h", "#define X 2\n");
    EXPECT_NE(f.compile(cell).module->cache_key, k1);
}
