// Parameter layouts come from the compiled PTX: hand-written entries for the parser's edge
// cases, and real NVRTC output for the types CUDA code passes by value.
#include "xcuda/compile/compile_cell.hpp"
#include "xcuda/compile/param_layout.hpp"

#include "temp_dir.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;
using Kind = ValueLayout::Kind;

namespace {

const char* ptx = R"(
.visible .entry other(
	.param .u32 other_param_0
)
{ ret; }
.visible .entry k(
	.param .u32 k_param_0,
	.param .f64 k_param_1,
	.param .align 8 .b8 k_param_2[24],
	.param .u64 .ptr .align 1 k_param_3,
	.param .align 16 .b8 k_param_4[16]
)
{ ret; }
.visible .entry none()
{ ret; }
)";

const CompiledKernel& kernel_of(const CompiledModule& m, const char* name, const char* instantiation = "") {
    const CompiledKernel* k = m.find(name, instantiation);
    if (!k) throw std::runtime_error(std::string("no kernel ") + name);
    return *k;
}

}  // namespace

TEST(PtxEntryParams, ReadsScalarsPointersAndAggregatesOfTheNamedEntry) {
    auto params = ptx_entry_params(ptx, "k");
    ASSERT_TRUE(params);
    ASSERT_EQ(params->size(), 5u);
    EXPECT_EQ((*params)[0].cls, PtxParam::Class::integer);
    EXPECT_EQ((*params)[0].size, 4u);
    EXPECT_EQ((*params)[1].cls, PtxParam::Class::floating);
    EXPECT_EQ((*params)[1].size, 8u);
    EXPECT_EQ((*params)[2].cls, PtxParam::Class::bytes);
    EXPECT_EQ((*params)[2].size, 24u);
    EXPECT_EQ((*params)[2].align, 8u);
    EXPECT_EQ((*params)[3].size, 8u);  // a pointer: .align 1 is its pointee's
    EXPECT_EQ((*params)[3].align, 8u);
    EXPECT_EQ((*params)[4].align, 16u);
    EXPECT_EQ(ptx_entry_params(ptx, "other")->size(), 1u);
    EXPECT_TRUE(ptx_entry_params(ptx, "none")->empty());
    EXPECT_FALSE(ptx_entry_params(ptx, "missing"));
    EXPECT_FALSE(ptx_entry_params(ptx, "ot"));  // a prefix of another entry's name
}

TEST(PtxEntryParams, NeverThrowsOnTruncatedText) {
    const std::string whole = ptx;
    for (std::size_t n = 0; n < whole.size(); ++n) ptx_entry_params(std::string_view(whole).substr(0, n), "k");
}

TEST(VectorType, KnowsCudaVectorAndComplexTypes) {
    bool is_complex = true;
    EXPECT_EQ(vector_type("float2", &is_complex), std::make_pair(ScalarType::float32, 2));
    EXPECT_FALSE(is_complex);
    EXPECT_EQ(vector_type("const double3"), std::make_pair(ScalarType::float64, 3));
    EXPECT_EQ(vector_type("uchar4"), std::make_pair(ScalarType::uint8, 4));
    EXPECT_EQ(vector_type("ulonglong2"), std::make_pair(ScalarType::uint64, 2));
    EXPECT_EQ(vector_type("double4_16a"), std::make_pair(ScalarType::float64, 4));
    EXPECT_EQ(vector_type("__half2"), std::make_pair(ScalarType::float16, 2));
    EXPECT_EQ(vector_type("cuDoubleComplex", &is_complex), std::make_pair(ScalarType::float64, 2));
    EXPECT_TRUE(is_complex);
    EXPECT_EQ(vector_type("cuda::std::complex<float>", &is_complex), std::make_pair(ScalarType::float32, 2));
    EXPECT_TRUE(is_complex);
    EXPECT_EQ(vector_type("float5").second, 0);
    EXPECT_EQ(vector_type("mycomplex<float>").second, 0);
    EXPECT_EQ(vector_type("Float2").second, 0);
}

TEST(TypeAliases, TypedefsAndUsingDeclarationsResolveToScalarsAndPointers) {
    const char* src = R"(
typedef unsigned int uint;
using real = double;
typedef real real_t;          // a chain
typedef void (*fn)(int);      // not a type a parameter can be read as
using namespace cuda;         // not an alias
extern "C" __global__ void k(uint n, real_t x, uint* out, const real* in, fn f) {}
)";
    auto aliases = parse_type_aliases(src);
    EXPECT_EQ(aliases.at("uint"), "unsigned int");
    EXPECT_EQ(aliases.count("fn"), 0u);
    auto decl = parse_kernels(src).at(0);
    resolve_type_aliases(decl, aliases);
    EXPECT_EQ(decl.params[0].kind, ParamKind::scalar);
    EXPECT_EQ(decl.params[0].scalar, ScalarType::uint32);
    EXPECT_EQ(decl.params[0].type, "uint");  // as written, for messages
    EXPECT_EQ(decl.params[1].scalar, ScalarType::float64);
    EXPECT_EQ(decl.params[2].kind, ParamKind::pointer);
    EXPECT_EQ(decl.params[2].scalar, ScalarType::uint32);
    EXPECT_EQ(decl.params[3].scalar, ScalarType::float64);
    EXPECT_TRUE(decl.params[3].pointee_const);
    EXPECT_EQ(decl.params[4].kind, ParamKind::other);
}

TEST(ValueLayouts, ByValueParametersOfACompiledCellGetThePtxSizes) {
    TempDir tmp;
    CompileSession session{std::make_shared<CompileCache>(std::nullopt)};
    HeaderRegistry headers;
    CellOptions o = parse_cell_options("");
    o.arch = "sm_90";
    const char* src = R"(
#include <cuComplex.h>
struct S { int a; double b; char c; };
struct alignas(16) Wide { float v; };
enum E { e0, e1 };
namespace ns { struct P { short x, y; }; }
typedef unsigned int uint;
extern "C" __global__ void k(S s, float3 f3, cuFloatComplex z, E e, ns::P p, Wide w, uint u, int* q) {}
template <typename T> __global__ void t(T v) {}
)";
    o.instantiate = {"t<double2>"};
    auto out = session.compile_cell(src, o, headers, "cell_1");
    const auto& k = kernel_of(*out.module, "k");
    ASSERT_EQ(k.layouts.size(), 8u);
    EXPECT_EQ(k.layouts[0].kind, Kind::bytes);
    EXPECT_EQ(k.layouts[0].size, 24u);
    EXPECT_EQ(k.layouts[0].align, 8u);
    EXPECT_EQ(k.layouts[1].kind, Kind::vector);
    EXPECT_EQ(k.layouts[1].size, 12u);
    EXPECT_EQ(k.layouts[1].components, 3);
    EXPECT_EQ(k.layouts[2].kind, Kind::complex);
    EXPECT_EQ(k.layouts[2].element, ScalarType::float32);
    EXPECT_EQ(k.layouts[3].kind, Kind::integer);
    EXPECT_EQ(k.layouts[3].size, 4u);
    EXPECT_EQ(k.layouts[4].kind, Kind::bytes);
    EXPECT_EQ(k.layouts[4].size, 4u);
    EXPECT_EQ(k.layouts[5].align, 16u);
    EXPECT_EQ(k.layouts[6].kind, Kind::declared);  // the alias made it a uint32 scalar
    EXPECT_EQ(k.decl.params[6].scalar, ScalarType::uint32);
    EXPECT_EQ(k.layouts[7].kind, Kind::declared);
    const auto& t = kernel_of(*out.module, "t", "double2");  // through the mangled name of t<double2>
    ASSERT_EQ(t.layouts.size(), 1u);
    EXPECT_EQ(t.layouts[0].kind, Kind::vector);
    EXPECT_EQ(t.layouts[0].size, 16u);
    EXPECT_EQ(t.layouts[0].align, 16u);
}
