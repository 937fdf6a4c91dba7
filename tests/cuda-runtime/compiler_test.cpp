#include <xcuda/rt/compiler.hpp>
#include <xcuda/rt/errors.hpp>

#include <gtest/gtest.h>

#include <algorithm>

using namespace xcuda::rt;

namespace {

const char* const saxpy_src = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

CompileOptions for_arch(const std::string& arch, const std::string& program = "cell_1.cu") {
    CompileOptions o;
    o.program_name = program;
    o.arch = arch;
    return o;
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST(Compile, SaxpyToSm90GivesPtxWithTheEntryAndAnElfCubin) {
    auto r = compile(saxpy_src, for_arch("sm_90"));
    EXPECT_EQ(r.arch, "sm_90");
    EXPECT_TRUE(contains(r.ptx, ".entry saxpy")) << r.ptx;
    EXPECT_TRUE(contains(r.ptx, ".target sm_90")) << r.ptx;
    ASSERT_GE(r.cubin.size(), 4u);
    EXPECT_EQ(r.cubin.substr(0, 4), std::string("\x7f"
                                                "ELF"));
    EXPECT_NE(r.ptx.back(), '\0');
    EXPECT_TRUE(r.log.empty() || r.log.back() != '\0');
    EXPECT_NE(std::find(r.options.begin(), r.options.end(), "-arch=sm_90"), r.options.end());
}

TEST(Compile, ComputeArchGivesPtxOnly) {
    auto r = compile(saxpy_src, for_arch("compute_80"));
    EXPECT_TRUE(contains(r.ptx, ".target sm_80"));
    EXPECT_TRUE(r.cubin.empty());
    EXPECT_TRUE(r.resources.empty());
}

TEST(Compile, ReportsResourceUsageForSm80AndSm90) {
    for (const std::string arch : {"sm_80", "sm_90"}) {
        auto r = compile(saxpy_src, for_arch(arch));
        ASSERT_EQ(r.resources.count("saxpy"), 1u) << arch << " log:\n" << r.log;
        const auto& k = r.resources.at("saxpy");
        EXPECT_EQ(k.arch, arch);
        EXPECT_GT(k.registers, 0);
        EXPECT_LE(k.registers, 255);
        EXPECT_EQ(k.spill_store_bytes, 0u);
        EXPECT_EQ(k.shared_bytes, 0u);
    }
}

TEST(Compile, ResourceUsageSurvivesRecompilingTheSameSource) {
    // NVRTC may answer a repeated compile from the driver's cache without running ptxas.
    for (int i = 0; i < 3; ++i) {
        auto r = compile(saxpy_src, for_arch("sm_90"));
        ASSERT_EQ(r.resources.count("saxpy"), 1u) << "compile " << i << " log:\n" << r.log;
    }
    auto o = for_arch("sm_90");
    o.resource_usage = false;
    auto plain = compile(saxpy_src, o);
    EXPECT_TRUE(plain.resources.empty());
    EXPECT_EQ(std::find(plain.options.begin(), plain.options.end(), "--no-cache"), plain.options.end());
}

TEST(Compile, KeepsNvrtcsCacheWhenPtxasAnswered) {
    // --no-cache (ptxas again) only when the driver's cache answered without resource lines:
    // a compile that has them keeps NVRTC's own options.
    auto r = compile(saxpy_src, for_arch("sm_80"));
    ASSERT_EQ(r.resources.count("saxpy"), 1u);
    if (std::find(r.options.begin(), r.options.end(), "--no-cache") != r.options.end()) {
        GTEST_SKIP() << "the driver's cache answered sm_80 here too; the retry path ran instead";
    }
    EXPECT_NE(std::find(r.options.begin(), r.options.end(), "-Xptxas=-v"), r.options.end());
}

TEST(Compile, RunsNvrtcWithTheArgumentsNvrtcArgumentsPutsTogether) {
    auto o = for_arch("sm_90");
    o.options = {"-std=c++17", "-DN=4"};
    auto r = compile(saxpy_src, o);
    const bool retried = std::find(r.options.begin(), r.options.end(), "--no-cache") != r.options.end();
    EXPECT_EQ(r.options, nvrtc_arguments(o, "sm_90", toolkit_include_dirs(), retried));
}

TEST(Compile, ReportsSharedMemoryStackAndSpills) {
    const char* src = R"(
__global__ void tile(float* p) {
    __shared__ float s[256];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[255 - threadIdx.x];
}
__global__ void heavy(double* p) {
    double v[300];
    for (int i = 0; i < 300; i++) v[i] = p[i * 7];
    for (int k = 0; k < 300; k++) p[k] = v[(k * 13) % 300] * v[k];
}
)";
    auto o = for_arch("sm_90");
    o.options = {"--maxrregcount=24"};
    auto r = compile(src, o);
    ASSERT_EQ(r.resources.count("_Z4tilePf"), 1u) << r.log;
    EXPECT_EQ(r.resources.at("_Z4tilePf").shared_bytes, 1024u);
    EXPECT_EQ(r.resources.at("_Z4tilePf").barriers, 1);
    ASSERT_EQ(r.resources.count("_Z5heavyPd"), 1u) << r.log;
    EXPECT_GE(r.resources.at("_Z5heavyPd").stack_frame_bytes, 2400u);
    EXPECT_LE(r.resources.at("_Z5heavyPd").registers, 24);
    EXPECT_GT(r.resources.at("_Z5heavyPd").spill_store_bytes, 0u) << r.log;
}

TEST(Compile, TemplateInstantiationsGetTheirLoweredNames) {
    const char* src = R"(
template <class T> __global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";
    auto o = for_arch("sm_90");
    o.name_expressions = {"axpy<float>", "axpy<double>"};
    auto r = compile(src, o);
    ASSERT_EQ(r.lowered_names.size(), 2u);
    EXPECT_EQ(r.lowered_names.at("axpy<float>"), "_Z4axpyIfEvT_PKS0_PS0_i");
    EXPECT_EQ(r.lowered_names.at("axpy<double>"), "_Z4axpyIdEvT_PKS0_PS0_i");
    for (const auto& [expr, mangled] : r.lowered_names) {
        EXPECT_TRUE(contains(r.ptx, ".entry " + mangled)) << expr;
        EXPECT_EQ(r.resources.count(mangled), 1u) << expr;
    }
}

TEST(Compile, ToolkitHeadersCompileFromACell) {
    const char* src = R"(
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cuda/std/cmath>
namespace cg = cooperative_groups;
extern "C" __global__ void halves(const __half* x, float* y) {
    cg::thread_block block = cg::this_thread_block();
    y[block.thread_rank()] = cuda::std::fabs(__half2float(x[block.thread_rank()]));
}
)";
    auto r = compile(src, for_arch("sm_90"));
    EXPECT_TRUE(contains(r.ptx, ".entry halves"));
}

TEST(Compile, FindsTheToolkitIncludeDirs) {
    auto dirs = toolkit_include_dirs();
    ASSERT_FALSE(dirs.empty());
    EXPECT_TRUE(contains(dirs.front(), "include"));
}

TEST(Compile, InMemoryHeadersAndIncludePathsAreUsed) {
    auto o = for_arch("sm_90");
    o.headers = {{"scale.cuh", "#define SCALE 3.0f\n"}};
    auto r = compile("#include \"scale.cuh\"\nextern \"C\" __global__ void k(float* p) { *p *= SCALE; }\n", o);
    EXPECT_TRUE(contains(r.ptx, ".entry k"));
}

TEST(Compile, ErrorThrowsCompileErrorWhoseLogNamesTheLine) {
    auto o = for_arch("sm_90", "cell_7.cu");
    o.options = {"-std=c++17"};
    try {
        compile("extern \"C\" __global__ void k(float* p) {\n  *p = undefined_name;\n}\n", o);
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_TRUE(contains(e.log(), "cell_7.cu(2)")) << e.log();
        EXPECT_TRUE(contains(e.log(), "undefined_name")) << e.log();
        EXPECT_NE(e.log().back(), '\0');
        EXPECT_EQ(e.program_name(), "cell_7.cu");
        EXPECT_NE(std::find(e.options().begin(), e.options().end(), "-std=c++17"), e.options().end());
        EXPECT_TRUE(contains(e.what(), "cell_7.cu")) << e.what();
        EXPECT_TRUE(contains(e.what(), "undefined_name")) << e.what();
    }
}

TEST(Compile, InvalidOptionThrowsCompileError) {
    auto o = for_arch("sm_90");
    o.options = {"--no-such-option"};
    EXPECT_THROW(compile(saxpy_src, o), CompileError);
}

TEST(Compile, NvrtcVersionAndSupportedArchsAreReported) {
    auto [major, minor] = nvrtc_version();
    EXPECT_GE(major, 12);
    EXPECT_GE(minor, 0);
    auto archs = supported_archs();
    EXPECT_NE(std::find(archs.begin(), archs.end(), "sm_90"), archs.end());
}
