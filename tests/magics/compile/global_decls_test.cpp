#include "xcuda/compile/global_decls.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace xcuda::compile;

namespace {

std::vector<std::string> keys(const std::vector<GlobalDecl>& gs) {
    std::vector<std::string> out;
    for (const auto& g : gs) out.push_back(g.key());
    return out;
}

}  // namespace

TEST(GlobalDecls, ConstantArrayAndDeviceScalar) {
    auto gs = parse_globals(R"(
__constant__ float coeffs[16];
__device__ int counter;
extern "C" __global__ void k(float* y) { y[0] = coeffs[0] + counter; }
)");
    ASSERT_EQ(gs.size(), 2u);
    EXPECT_EQ(gs[0].name, "coeffs");
    EXPECT_EQ(gs[0].space, MemorySpace::constant);
    EXPECT_EQ(gs[0].type, "float");
    EXPECT_EQ(gs[0].extents, (std::vector<std::string>{"16"}));
    EXPECT_EQ(gs[0].line, 2);
    EXPECT_EQ(gs[0].declaration, "__constant__ float coeffs[16]");
    EXPECT_EQ(gs[1].qualified_name, "counter");
    EXPECT_EQ(gs[1].space, MemorySpace::device);
    EXPECT_EQ(gs[1].type, "int");
    EXPECT_TRUE(gs[1].extents.empty());
}

TEST(GlobalDecls, NamespacesQualifyAndFunctionBodiesAreSkipped) {
    auto gs = parse_globals(R"(
namespace outer { namespace inner { __device__ unsigned long long total; } }
namespace a::b { __constant__ double table[2][3] = {{1, 2, 3}, {4, 5, 6}}; }
namespace { __device__ float hidden; }
__device__ float helper(float x) { __shared__ float s[32]; static __device__ int no; return x; }
__global__ void k() { __device__ int inside; }
struct S { float x; };
)");
    EXPECT_EQ(keys(gs), (std::vector<std::string>{"outer::inner::total", "a::b::table", "hidden"}));
    EXPECT_EQ(gs[0].type, "unsigned long long");
    EXPECT_EQ(gs[1].extents, (std::vector<std::string>{"2", "3"}));
}

TEST(GlobalDecls, SharedExternTypedefsAndFunctionDeclarationsAreNotVariables) {
    auto gs = parse_globals(R"(
extern __shared__ float smem[];
__shared__ int tile[16];
extern __device__ int elsewhere;
extern "C" __device__ int declared_c;
__device__ float f(float);
__device__ __forceinline__ float g(float x) { return x; }
typedef __device__ int not_a_var;
#if 0
__device__ int switched_off;
#endif
// __device__ int in_a_comment;
const char* s = "__device__ int in_a_string;";
)");
    EXPECT_TRUE(gs.empty()) << keys(gs).size() << " found, first " << (gs.empty() ? "" : gs[0].key());
}

TEST(GlobalDecls, SeveralDeclaratorsPointersQualifiersAndInitializers) {
    auto gs = parse_globals(R"(
static __device__ int a = 1, *b, c[4] = {1, 2, 3, 4};
__device__ const float* const table_ptr = nullptr;
volatile __device__ int flag{0};
__device__ __managed__ float managed_sum;
__device__ int aligned __attribute__((aligned(16))) = 3;
__device__ float2 points[4];
__device__ cuda::std::atomic<int> ticket;
)");
    ASSERT_EQ(keys(gs), (std::vector<std::string>{"a", "b", "c", "table_ptr", "flag", "managed_sum", "aligned",
                                                  "points", "ticket"}));
    EXPECT_EQ(gs[1].type, "int*");
    EXPECT_EQ(gs[2].extents, (std::vector<std::string>{"4"}));
    EXPECT_EQ(gs[3].type, "float*");
    EXPECT_EQ(gs[4].type, "int");
    EXPECT_EQ(gs[5].space, MemorySpace::managed);
    EXPECT_EQ(gs[7].type, "float2");
    EXPECT_EQ(gs[8].type, "cuda::std::atomic<int>");
}

TEST(GlobalDecls, TemplateVariablesInstantiateTypeAndExtents) {
    auto gs = parse_globals(R"(
namespace lut_ns { template <typename T, int N = 8> __device__ T lut[N]; }
)");
    ASSERT_EQ(gs.size(), 1u);
    EXPECT_TRUE(gs[0].is_template);
    EXPECT_EQ(gs[0].qualified_name, "lut_ns::lut");
    ASSERT_EQ(gs[0].template_params.size(), 2u);
    EXPECT_EQ(gs[0].template_params[1].default_value, "8");
    const GlobalDecl g = instantiate_global(gs[0], {"double"});
    EXPECT_EQ(g.key(), "lut_ns::lut<double, 8>");
    EXPECT_EQ(g.type, "double");
    EXPECT_EQ(g.extents, (std::vector<std::string>{"8"}));
    EXPECT_EQ(g.declaration, "__device__ double lut_ns::lut<double, 8>[8]");
    EXPECT_THROW(instantiate_global(gs[0], {}), std::invalid_argument);
    EXPECT_THROW(instantiate_global(gs[0], {"float", "2", "3"}), std::invalid_argument);
}

TEST(GlobalDecls, ElementLayoutOfScalarsVectorsPointersAndStructs) {
    EXPECT_EQ(element_layout("float").scalar, ScalarType::float32);
    EXPECT_EQ(element_layout("float").components, 1);
    EXPECT_EQ(element_layout("float2").scalar, ScalarType::float32);
    EXPECT_EQ(element_layout("float2").components, 2);
    EXPECT_EQ(element_layout("uint4").scalar, ScalarType::uint32);
    EXPECT_EQ(element_layout("double4_32a").components, 4);
    EXPECT_EQ(element_layout("longlong3").scalar, ScalarType::int64);
    EXPECT_EQ(element_layout("__half2").scalar, ScalarType::float16);
    EXPECT_EQ(element_layout("int*").scalar, ScalarType::uint64);
    EXPECT_EQ(element_layout("Params").components, 0);
    EXPECT_EQ(element_layout("float5").components, 0);
    EXPECT_EQ(element_layout("cuda::std::atomic<int>").components, 0);
}

TEST(GlobalDecls, LiteralExtents) {
    EXPECT_EQ(literal_extent("16"), 16);
    EXPECT_EQ(literal_extent("0x10"), 16);
    EXPECT_EQ(literal_extent("4u"), 4);
    EXPECT_EQ(literal_extent("1'024"), 1024);
    EXPECT_EQ(literal_extent("010"), 8);
    EXPECT_FALSE(literal_extent("N"));
    EXPECT_FALSE(literal_extent("2 * N"));
    EXPECT_FALSE(literal_extent(""));
    EXPECT_FALSE(literal_extent("99999999999999999999"));
}

TEST(GlobalDecls, NeverThrowsOnTruncatedInput) {
    const std::string src = "namespace n { template <typename T> __device__ T v[4] = {1, 2}; __constant__ int c[";
    for (std::size_t i = 0; i <= src.size(); ++i) EXPECT_NO_THROW(parse_globals(src.substr(0, i)));
}
