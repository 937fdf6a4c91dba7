#include "xcuda/compile/kernel_signature.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

using namespace xcuda::compile;

TEST(KernelSignature, ExternCSaxpy) {
    auto ks = parse_kernels(R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)");
    ASSERT_EQ(ks.size(), 1u);
    const auto& k = ks[0];
    EXPECT_EQ(k.name, "saxpy");
    EXPECT_EQ(k.qualified_name, "saxpy");
    EXPECT_TRUE(k.is_extern_c);
    EXPECT_TRUE(k.is_definition);
    EXPECT_FALSE(k.is_template);
    EXPECT_EQ(k.line, 2);
    EXPECT_EQ(k.signature, "void saxpy(float a, const float* x, float* y, int n)");
    ASSERT_EQ(k.params.size(), 4u);
    EXPECT_EQ(k.params[0].kind, ParamKind::scalar);
    EXPECT_EQ(k.params[0].scalar, ScalarType::float32);
    EXPECT_EQ(k.params[1].kind, ParamKind::pointer);
    EXPECT_EQ(k.params[1].scalar, ScalarType::float32);
    EXPECT_TRUE(k.params[1].pointee_const);
    EXPECT_EQ(k.params[1].name, "x");
    EXPECT_FALSE(k.params[2].pointee_const);
    EXPECT_EQ(k.params[3].scalar, ScalarType::int32);
}

TEST(KernelSignature, NamespacesGiveQualifiedNames) {
    auto ks = parse_kernels(R"(
namespace outer {
namespace inner { __global__ void k1(int* p) { p[0] = 1; } }
struct S { int x; };
__global__ void k2(S s, double d) {}
}
namespace a::b { __global__ void k3() {} }
namespace { __global__ void k4(unsigned long long n) {} }
__global__ void k5(void) {}
)");
    ASSERT_EQ(ks.size(), 5u);
    EXPECT_EQ(ks[0].qualified_name, "outer::inner::k1");
    EXPECT_FALSE(ks[0].is_extern_c);
    EXPECT_EQ(ks[1].qualified_name, "outer::k2");
    EXPECT_EQ(ks[1].params[0].kind, ParamKind::other);
    EXPECT_EQ(ks[1].params[0].type, "S");
    EXPECT_EQ(ks[1].params[1].scalar, ScalarType::float64);
    EXPECT_EQ(ks[2].qualified_name, "a::b::k3");
    EXPECT_TRUE(ks[2].params.empty());
    EXPECT_EQ(ks[3].qualified_name, "k4");  // anonymous namespace: reachable unqualified
    EXPECT_EQ(ks[3].params[0].scalar, ScalarType::uint64);
    EXPECT_TRUE(ks[4].params.empty());
    EXPECT_EQ(ks[4].signature, "void k5()");
}

TEST(KernelSignature, SkipsCommentsStringsAndPreprocessorLines) {
    auto ks = parse_kernels(R"(
// __global__ void fake1(int x) {}
/* __global__ void fake2(int x) {}
   still a comment */
#define DECL __global__ void fake3(int)
#if 0 /* __global__ void fake4() */
#endif
const char* s = "__global__ void fake5(int) {";
const char c = '{';
const char* r = R"x(__global__ void fake6() { )x";
__global__ void real(int n) { printf("}{ __global__ void fake7() %d\n", n); }
)");
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(ks[0].name, "real");
    EXPECT_EQ(ks[0].line, 11);
}

TEST(KernelSignature, TemplatesLaunchBoundsAttributesAndSpecifiers) {
    auto ks = parse_kernels(R"(
template <typename T, int BLOCK = 256>
__global__ void __launch_bounds__(BLOCK, 2)
axpy(T a,
     const T* __restrict__ x,   // input
     T* __restrict__ y,
     int n = 0)
{
}
static __global__ __launch_bounds__(128) void scaled(float* const out, const int& r, float, unsigned) {}
[[nodiscard]] __global__ void __attribute__((noinline)) attr(__half h, bool b, size_t n, char c) {}
)");
    ASSERT_EQ(ks.size(), 3u);
    const auto& t = ks[0];
    EXPECT_TRUE(t.is_template);
    ASSERT_EQ(t.template_params.size(), 2u);
    EXPECT_EQ(t.template_params[0].kind, "typename");
    EXPECT_EQ(t.template_params[0].name, "T");
    EXPECT_EQ(t.template_params[1].kind, "int");
    EXPECT_EQ(t.template_params[1].default_value, "256");
    EXPECT_EQ(t.line, 3);
    EXPECT_EQ(
        t.signature,
        "template <typename T, int BLOCK = 256> void axpy(T a, const T* __restrict__ x, T* __restrict__ y, int n = 0)");
    EXPECT_EQ(t.params[1].kind, ParamKind::pointer);
    EXPECT_EQ(t.params[1].pointee, "T");
    EXPECT_EQ(t.params[1].scalar, ScalarType::none);
    EXPECT_EQ(t.params[3].default_value, "0");

    const auto& s = ks[1];
    EXPECT_EQ(s.name, "scaled");
    EXPECT_EQ(s.params[0].kind, ParamKind::pointer);  // float* const: the pointer is const, not the floats
    EXPECT_FALSE(s.params[0].pointee_const);
    EXPECT_EQ(s.params[0].scalar, ScalarType::float32);
    EXPECT_TRUE(s.params[1].is_reference);
    EXPECT_EQ(s.params[1].kind, ParamKind::other);
    EXPECT_EQ(s.params[2].name, "");  // unnamed
    EXPECT_EQ(s.params[2].scalar, ScalarType::float32);
    EXPECT_EQ(s.params[3].name, "");
    EXPECT_EQ(s.params[3].scalar, ScalarType::uint32);
    EXPECT_EQ(s.signature, "void scaled(float* const out, const int& r, float, unsigned)");

    const auto& a = ks[2];
    EXPECT_EQ(a.name, "attr");
    EXPECT_EQ(a.params[0].scalar, ScalarType::float16);
    EXPECT_EQ(a.params[1].scalar, ScalarType::bool_);
    EXPECT_EQ(a.params[2].scalar, ScalarType::uint64);
    EXPECT_EQ(a.params[3].scalar, ScalarType::int8);
}

TEST(KernelSignature, ExternCBlocksAndDeclarationThenDefinition) {
    auto ks = parse_kernels(R"(
extern "C" {
__global__ void fwd(int* p);
__global__ void other(long n, short s, unsigned char u, signed char sc, long long ll) {}
}
extern "C" __global__ void fwd(int* p) { *p = 3; }
__global__ void decl_only(float*);
)");
    ASSERT_EQ(ks.size(), 3u);
    EXPECT_EQ(ks[0].name, "fwd");
    EXPECT_TRUE(ks[0].is_definition);
    EXPECT_TRUE(ks[0].is_extern_c);
    EXPECT_EQ(ks[0].line, 6);
    EXPECT_TRUE(ks[1].is_extern_c);
    EXPECT_EQ(ks[1].params[0].scalar, ScalarType::int64);
    EXPECT_EQ(ks[1].params[1].scalar, ScalarType::int16);
    EXPECT_EQ(ks[1].params[2].scalar, ScalarType::uint8);
    EXPECT_EQ(ks[1].params[3].scalar, ScalarType::int8);
    EXPECT_EQ(ks[1].params[4].scalar, ScalarType::int64);
    EXPECT_FALSE(ks[2].is_definition);
    EXPECT_FALSE(ks[2].is_extern_c);
    EXPECT_EQ(ks[2].params[0].kind, ParamKind::pointer);
}

TEST(KernelSignature, IgnoresDeviceFunctionsStructsAndBodies) {
    auto ks = parse_kernels(R"(
struct Vec { float x, y; __device__ float dot(const Vec& o) const { return x * o.x + y * o.y; } };
__device__ float helper(float a) { if (a > 0) { return a; } return -a; }
__global__ void k(Vec v, float2 f, int** pp, float arr[4]) { __shared__ float s[32]; }
int table[] = {1, 2, 3};
)");
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(ks[0].params[0].kind, ParamKind::other);
    EXPECT_EQ(ks[0].params[1].kind, ParamKind::other);
    EXPECT_EQ(ks[0].params[2].kind, ParamKind::pointer);
    EXPECT_EQ(ks[0].params[2].pointer_depth, 2);
    EXPECT_EQ(ks[0].params[2].pointee, "int*");
    EXPECT_EQ(ks[0].params[2].scalar, ScalarType::none);
    EXPECT_EQ(ks[0].params[3].kind, ParamKind::pointer);
    EXPECT_EQ(ks[0].params[3].name, "arr");
    EXPECT_EQ(ks[0].params[3].scalar, ScalarType::float32);
}

TEST(KernelSignature, GlobalAfterTheReturnTypeAndQualifiedDefinition) {
    auto ks = parse_kernels(R"(
namespace ns { __global__ void later(int); }
void __global__ ns::later(int n) {}
)");
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(ks[0].qualified_name, "ns::later");
    EXPECT_TRUE(ks[0].is_definition);
    EXPECT_EQ(ks[0].signature, "void later(int n)");
}

TEST(KernelSignature, IfZeroBlocksAreSkipped) {
    auto ks = parse_kernels(R"(
#if 0
__global__ void off1(int x) {}
#ifdef NESTED
__global__ void off2() {}
#endif
#else
__global__ void on1(int x) {}
#endif
#  if   0  // trailing comment
__global__ void off3() {}
#elif defined(X)
__global__ void on2() {}
#endif
#if 1
__global__ void on3() {}
#endif
)");
    std::vector<std::string> names;
    for (const auto& k : ks) names.push_back(k.name);
    EXPECT_EQ(names, (std::vector<std::string>{"on1", "on2", "on3"}));
    EXPECT_EQ(ks[0].line, 8);
}

TEST(KernelSignature, SplitTemplateExpr) {
    std::string name;
    std::vector<std::string> args;
    ASSERT_TRUE(split_template_expr("ns::axpy<float, 4>", name, args));
    EXPECT_EQ(name, "ns::axpy");
    EXPECT_EQ(args, (std::vector<std::string>{"float", "4"}));
    ASSERT_TRUE(split_template_expr("k<Pair<int, float>, (3 > 2)>", name, args));
    EXPECT_EQ(args.size(), 2u);
    EXPECT_EQ(args[0], "Pair<int, float>");
    EXPECT_FALSE(split_template_expr("axpy", name, args));
    EXPECT_FALSE(split_template_expr("<float>", name, args));
    EXPECT_FALSE(split_template_expr("axpy<float", name, args));
}

TEST(KernelSignature, InstantiateSubstitutesTypeParameters) {
    auto ks = parse_kernels("template <typename T, int B = 128> __global__ void axpy(T a, const T* x, T* y, int n) {}");
    ASSERT_EQ(ks.size(), 1u);
    KernelDecl f = instantiate(ks[0], {"float"});
    EXPECT_EQ(f.template_args, (std::vector<std::string>{"float", "128"}));
    EXPECT_EQ(f.signature, "void axpy<float, 128>(float a, const float* x, float* y, int n)");
    EXPECT_EQ(f.params[0].scalar, ScalarType::float32);
    EXPECT_EQ(f.params[1].kind, ParamKind::pointer);
    EXPECT_EQ(f.params[1].scalar, ScalarType::float32);
    EXPECT_TRUE(f.params[1].pointee_const);
    KernelDecl d = instantiate(ks[0], {"unsigned int", "64"});
    EXPECT_EQ(d.params[0].scalar, ScalarType::uint32);
    EXPECT_EQ(d.params[2].scalar, ScalarType::uint32);
    EXPECT_THROW(instantiate(ks[0], {}), std::invalid_argument);
    EXPECT_THROW(instantiate(ks[0], {"float", "1", "2"}), std::invalid_argument);
}

TEST(KernelSignature, ADefaultNamingAnEarlierParameterReadsItsArgument) {
    auto ks = parse_kernels(
        "template <typename T, typename U = T, typename = typename std::enable_if<std::is_integral<T>::value>::type>"
        " __global__ void shift(T* a, U b) {}");
    ASSERT_EQ(ks.size(), 1u);
    KernelDecl k = instantiate(ks[0], {"int"});
    EXPECT_EQ(k.template_args,
              (std::vector<std::string>{"int", "int", "typename std::enable_if<std::is_integral<int>::value>::type"}));
    EXPECT_EQ(k.params[1].scalar, ScalarType::int32);
}

TEST(KernelSignature, ExampleTemplateArgumentsFitEachParameterKind) {
    auto ks = parse_kernels(
        "enum class Mode { a, b };\n"
        "template <typename T, int N, bool B, char C, unsigned U, std::size_t S, Mode M, auto A,"
        " class D = int, int E = 2> __global__ void k(T* p) {}");
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(example_template_args(ks[0]), "float, 256, true, 1, 256, 256, static_cast<Mode>(0), 256");
    EXPECT_EQ(example_template_args(parse_kernels("template <class T = float> __global__ void d(T* p) {}")[0]), "");
    try {
        instantiate(ks[0], {"float"});
        FAIL() << "instantiated with too few arguments";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(
            std::string(e.what()).find("write it like k<float, 256, true, 1, 256, 256, static_cast<Mode>(0), 256>"),
            std::string::npos)
            << e.what();
    }
}

TEST(KernelSignature, NeverThrowsOnTruncatedOrHostileInput) {
    const std::string cell =
        R"(template <typename T> __global__ void k(T* __restrict__ x, int n = (3 > 2)) { x[0] = 1; }
extern "C" { namespace q { __global__ void z(const char* s) {} } })";
    for (std::size_t cut = 0; cut <= cell.size(); ++cut) EXPECT_NO_THROW(parse_kernels(cell.substr(0, cut)));
    EXPECT_NO_THROW(parse_kernels("}}}}} __global__ ( ) ) ( template < < < extern \"C\" {{{"));
    EXPECT_NO_THROW(parse_kernels(std::string("__global__ void k(\0int x) {}", 27)));
    EXPECT_NO_THROW(parse_kernels("\"unterminated\n__global__ void k(int) {}"));
    EXPECT_TRUE(parse_kernels("R\"delim-without-paren").empty());  // found by fuzz_kernel_signature
    EXPECT_TRUE(parse_kernels("R\"x( unterminated raw string __global__ void k() {}").empty());
}

TEST(KernelSignature, AMegabyteCellParsesQuickly) {
    std::string cell;
    int n = 0;
    for (; cell.size() < (1u << 20); ++n)
        cell += "// kernel " + std::to_string(n) + "\nextern \"C\" __global__ void k" + std::to_string(n) +
                "(const float* __restrict__ x, float* y, int n) { if (threadIdx.x < n) y[threadIdx.x] = x[0]; }\n";
    auto t0 = std::chrono::steady_clock::now();
    auto ks = parse_kernels(cell);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ bench    ] parse_kernels: %zu kernels in a %zu-byte cell in %.1f ms\n", ks.size(), cell.size(), ms);
    EXPECT_EQ(ks.size(), std::size_t(n));
    EXPECT_LT(ms, 2000.0);
}
