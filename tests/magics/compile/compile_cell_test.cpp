// compile_cell end to end with the real NVRTC (no GPU needed: every cell targets sm_90).
#include "xcuda/compile/compile_cell.hpp"

#include "temp_dir.hpp"
#include "xcuda/compile/builtin_headers.hpp"
#include "xcuda/rt/compiler.hpp"
#include "xcuda/rt/driver.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>

using namespace xcuda::compile;

namespace {

const char* saxpy = R"(extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

CellOptions opts(const std::string& line = "") {
    CellOptions o = parse_cell_options(line);
    if (o.arch.empty()) o.arch = "sm_90";
    return o;
}

// A session over a private cache directory with a compiler that counts its calls.
struct Fixture {
    TempDir tmp;
    std::shared_ptr<CompileCache> cache = std::make_shared<CompileCache>(tmp.path() / "xcuda");
    CompileSession session{cache};
    HeaderRegistry headers;

    CompileOutcome compile(const std::string& src, const std::string& line = "", const std::string& label = "cell_1") {
        return session.compile_cell(src, opts(line), headers, label);
    }
};

double ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

TEST(CompileCell, SaxpyGivesCubinPtxAndTheExternCKernel) {
    Fixture f;
    auto out = f.compile(saxpy);
    const CompiledModule& m = *out.module;
    EXPECT_EQ(out.cache, CacheLevel::none);
    EXPECT_EQ(m.cubin.substr(0, 4),
              "\x7f"
              "ELF");
    EXPECT_NE(m.ptx.find(".entry saxpy"), std::string::npos);
    EXPECT_EQ(m.arch, "sm_90");
    EXPECT_EQ(m.arch_source, ArchSource::option);
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_EQ(m.kernels[0].lowered_name, "saxpy");
    EXPECT_EQ(m.kernels[0].name_expression, "");
    EXPECT_EQ(m.kernels[0].decl.signature, "void saxpy(float a, const float* x, float* y, int n)");
    ASSERT_TRUE(m.kernels[0].resources);
    EXPECT_GT(m.kernels[0].resources->registers, 0);
    EXPECT_EQ(m.find("saxpy"), &m.kernels[0]);
    EXPECT_TRUE(m.notes.empty());
    EXPECT_EQ(m.nvrtc_options, (std::vector<std::string>{"-std=c++17"}));
    EXPECT_EQ(m.cache_key.size(), 64u);
}

TEST(CompileCell, CppKernelsInNamespacesGetTheirLoweredNames) {
    Fixture f;
    auto out = f.compile(R"(
namespace ns { __global__ void fill(int* p, int v) { p[threadIdx.x] = v; } }
__global__ void twice(float* p) { p[0] *= 2; }
__global__ void twice(double* p) { p[0] *= 2; }
)");
    const auto& m = *out.module;
    ASSERT_EQ(m.kernels.size(), 3u);
    EXPECT_EQ(m.kernels[0].name_expression, "&ns::fill");
    EXPECT_EQ(m.kernels[0].lowered_name, "_ZN2ns4fillEPii");
    EXPECT_EQ(m.kernels[1].name_expression, "static_cast<void(*)(float*)>(&twice)");
    EXPECT_EQ(m.kernels[1].lowered_name, "_Z5twicePf");
    EXPECT_EQ(m.kernels[2].lowered_name, "_Z5twicePd");
    for (const auto& k : m.kernels) {
        EXPECT_NE(m.ptx.find(".entry " + k.lowered_name), std::string::npos) << k.lowered_name;
        EXPECT_TRUE(k.resources) << k.lowered_name;
    }
    EXPECT_EQ(m.find("ns::fill"), &m.kernels[0]);
    EXPECT_EQ(m.find("fill"), &m.kernels[0]);
}

TEST(CompileCell, TemplateWithTwoInstantiations) {
    Fixture f;
    auto out = f.compile(R"(
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)",
                         "--instantiate 'axpy<float>' --instantiate axpy<double>");
    const auto& m = *out.module;
    ASSERT_EQ(m.kernels.size(), 2u);
    const CompiledKernel* fk = m.find("axpy", "float");
    const CompiledKernel* dk = m.find("axpy", "double");
    ASSERT_TRUE(fk && dk);
    EXPECT_EQ(fk->lowered_name, "_Z4axpyIfEvT_PKS0_PS0_i");
    EXPECT_EQ(dk->lowered_name, "_Z4axpyIdEvT_PKS0_PS0_i");
    EXPECT_EQ(fk->decl.signature, "void axpy<float>(float a, const float* x, float* y, int n)");
    EXPECT_EQ(dk->decl.params[1].scalar, ScalarType::float64);
    EXPECT_TRUE(m.notes.empty());
}

TEST(CompileCell, UninstantiatedTemplateGetsANoteNotAnError) {
    Fixture f;
    auto out = f.compile("template <int N> __global__ void k(int* p) { p[0] = N; }\n");
    EXPECT_TRUE(out.module->kernels.empty());
    ASSERT_EQ(out.module->notes.size(), 1u);
    EXPECT_NE(out.module->notes[0].find("--instantiate 'k<256>'"), std::string::npos) << out.module->notes[0];
}

TEST(CompileCell, TheNotesInstantiationAdviceCompiles) {
    Fixture f;
    const std::string cell =
        "enum Mode { fast, exact };\n"
        "template <typename T, int N, bool Check, Mode M, int Unroll = 4>\n"
        "__global__ void k(T* p) { if (Check) p[0] = T(N * Unroll + M); }\n";
    auto out = f.compile(cell);
    ASSERT_EQ(out.module->notes.size(), 1u);
    const std::string& note = out.module->notes[0];
    auto open = note.find("--instantiate '");
    ASSERT_NE(open, std::string::npos) << note;
    auto close = note.find('\'', open + 15);
    const std::string advice = note.substr(open, close + 1 - open);
    EXPECT_EQ(advice, "--instantiate 'k<float, 256, true, static_cast<Mode>(0)>'");
    auto bound = f.compile(cell, advice);
    ASSERT_EQ(bound.module->kernels.size(), 1u);
    EXPECT_FALSE(bound.module->kernels[0].lowered_name.empty());
}

TEST(CompileCell, InstantiateOfAnUnknownTemplateNamesTheTemplates) {
    Fixture f;
    try {
        f.compile("template <typename T> __global__ void axpy(T* p) {}\n", "--instantiate 'saxpy<float>'");
        FAIL() << "no error";
    } catch (const ParseError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--instantiate saxpy<float>: this cell has no __global__ template or template variable named saxpy "
                  "(its template kernels: axpy)");
    }
    EXPECT_EQ(f.session.compiler_calls(), 0u);
}

TEST(CompileCell, Fp16AndCooperativeGroupsCompile) {
    Fixture f;
    auto half = f.compile(R"(#include <cuda_fp16.h>
extern "C" __global__ void hadd(const __half* a, __half* b, int n) {
    int i = threadIdx.x;
    if (i < n) b[i] = __hadd(a[i], b[i]);
}
)");
    ASSERT_EQ(half.module->kernels.size(), 1u);
    EXPECT_EQ(half.module->kernels[0].decl.params[0].scalar, ScalarType::float16);
    auto cg = f.compile(R"(#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void reduce(const float* in, float* out) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ float s[256];
    s[block.thread_rank()] = in[block.thread_rank()];
    block.sync();
    if (block.thread_rank() == 0) *out = s[0];
}
)");
    ASSERT_EQ(cg.module->kernels.size(), 1u);
    ASSERT_TRUE(cg.module->kernels[0].resources);
    EXPECT_EQ(cg.module->kernels[0].resources->shared_bytes, 1024u);
}

TEST(CompileCell, CompileErrorPointsAtTheCellLineAndColumn) {
    Fixture f;
    try {
        f.compile("extern \"C\" __global__ void k(float* y) {\n    y[0] = foo;\n}\n", "", "cell_7");
        FAIL() << "no error";
    } catch (const CellCompileError& e) {
        EXPECT_EQ(e.line(), 2);
        EXPECT_EQ(e.column(), 12);
        EXPECT_EQ(std::string(e.what()),
                  "cell_7:2:12: error: identifier \"foo\" is undefined\n        y[0] = foo;\n               ^");
        EXPECT_NE(e.log().find("cell.cu(2)"), std::string::npos);
    }
    // a failed compile is not cached
    const std::size_t calls = f.session.compiler_calls();
    EXPECT_THROW(f.compile("extern \"C\" __global__ void k(float* y) {\n    y[0] = foo;\n}\n"), CellCompileError);
    EXPECT_GT(f.session.compiler_calls(), calls);
}

namespace {

// A session whose compiler is NVRTC, recording the arguments of every call.
struct RecordingFixture {
    TempDir tmp;
    std::vector<std::vector<std::string>> calls;
    CompileSession session{std::make_shared<CompileCache>(tmp.path() / "xcuda"),
                           [this](std::string_view src, const xcuda::rt::CompileOptions& o) {
                               calls.push_back(xcuda::rt::nvrtc_arguments(o, o.arch, {}));
                               return xcuda::rt::compile(src, o);
                           }};
    HeaderRegistry headers;

    bool minimal(std::size_t call) const {
        const auto& o = calls.at(call);
        return std::find(o.begin(), o.end(), "-minimal") != o.end();
    }
};

bool nvrtc_knows_minimal() {
    auto [major, minor] = xcuda::rt::nvrtc_version();
    return major > 12 || (major == 12 && minor >= 4);
}

}  // namespace

TEST(CompileCell, CellsThatIncludeOrNameNothingLeftOutCompileWithMinimal) {
    if (!nvrtc_knows_minimal()) GTEST_SKIP() << "NVRTC before 12.4 has no -minimal";
    RecordingFixture f;
    f.session.compile_cell(saxpy, opts(), f.headers);
    f.session.compile_cell(std::string("#include <cuda_fp16.h>\n") + saxpy, opts(), f.headers);
    f.session.compile_cell("extern \"C\" __global__ void k(unsigned long long* t) { *t = cudaTextureObject_t(); }",
                           opts(), f.headers);
    f.session.compile_cell(
        "#include <cstdio>\n#include <cassert>\nextern \"C\" __global__ void k(int n) "
        "{ assert(n > 0); printf(\"%d\\n\", n); }\n",
        opts(), f.headers);
    ASSERT_EQ(f.calls.size(), 4u);
    EXPECT_TRUE(f.minimal(0));
    EXPECT_FALSE(f.minimal(1)) << "a header may need what -minimal leaves out";
    EXPECT_FALSE(f.minimal(2)) << "the cell names a runtime API type";
    EXPECT_FALSE(f.minimal(3)) << "the built-in standard headers are headers too";
}

TEST(CompileCell, ACellThatFailsWithMinimalIsCompiledAgainWithout) {
    if (!nvrtc_knows_minimal()) GTEST_SKIP() << "NVRTC before 12.4 has no -minimal";
    RecordingFixture f;
    // The type's name is pasted together, so only the compiler can tell the cell needs it.
    auto out = f.session.compile_cell(
        "#define CAT(a, b) a##b\n"
        "extern \"C\" __global__ void k(unsigned long long* t) { *t = CAT(cuda, TextureObject_t)(); }\n",
        opts(), f.headers);
    ASSERT_EQ(f.calls.size(), 2u);
    EXPECT_TRUE(f.minimal(0));
    EXPECT_FALSE(f.minimal(1));
    EXPECT_EQ(out.module->kernels.size(), 1u);
    // A real error is reported as the whole language's compiler reports it.
    try {
        f.session.compile_cell("extern \"C\" __global__ void k(float* y) {\n    y[0] = foo;\n}\n", opts(), f.headers,
                               "cell_7");
        FAIL() << "no error";
    } catch (const CellCompileError& e) {
        EXPECT_EQ(std::string(e.what()).substr(0, 49), "cell_7:2:12: error: identifier \"foo\" is undefined");
    }
    ASSERT_EQ(f.calls.size(), 4u);
    EXPECT_FALSE(f.minimal(3));
}

TEST(CompileCell, UnsupportedArchListsTheSupportedOnes) {
    Fixture f;
    try {
        f.compile(saxpy, "--arch sm_10");
        FAIL() << "no error";
    } catch (const ParseError& e) {
        std::string what = e.what();
        EXPECT_EQ(what.find("--arch sm_10 is not supported by NVRTC "), 0u) << what;
        EXPECT_NE(what.find("sm_90"), std::string::npos) << what;
        EXPECT_EQ(e.token(), "sm_10");
    }
    EXPECT_EQ(f.session.compiler_calls(), 0u);
    EXPECT_NO_THROW(f.compile(saxpy, "--arch sm_90a"));
    EXPECT_NO_THROW(f.compile(saxpy, "--arch compute_90"));
}

TEST(CompileCell, NvrtcOptionErrorsAreShownAsSuch) {
    Fixture f;
    try {
        f.compile(saxpy, "-- --bogus-flag");
        FAIL() << "no error";
    } catch (const CellCompileError& e) {
        EXPECT_EQ(std::string(e.what()), "nvrtc: error: unrecognized option --bogus-flag found");
        EXPECT_EQ(e.line(), 0);
    }
}

TEST(CompileCell, WarningsAreRelabelledForTheCellThatAsks) {
    Fixture f;
    const char* src = "__global__ void k() { int unused; }\n";
    auto a = f.compile(src, "", "cell_1");
    ASSERT_EQ(a.module->warnings.size(), 1u);
    EXPECT_EQ(a.module->warnings[0].file, "cell_1");
    auto b = f.compile(src, "", "cell_2");
    EXPECT_EQ(b.cache, CacheLevel::memory);
    EXPECT_EQ(b.module->warnings[0].file, "cell_2");
    EXPECT_EQ(a.module->warnings[0].file, "cell_1");  // shared module untouched
}

TEST(CompileCell, RerunIsAMemoryHitWithNoCompilerCall) {
    // Behaviour only: how fast a hit is belongs to bench/ (compile part, "memory hit"); a time
    // limit here failed under the sanitizer build about half the time.
    Fixture f;
    auto first = f.compile(saxpy, "", "cell_1");
    auto again = f.compile(saxpy, "", "cell_2");  // a re-run gets a new execution count
    EXPECT_EQ(f.session.compiler_calls(), 1u);
    EXPECT_EQ(again.cache, CacheLevel::memory);
    EXPECT_EQ(again.module, first.module);
    for (int i = 0; i < 200; ++i) {
        auto hit = f.compile(saxpy);
        ASSERT_EQ(hit.cache, CacheLevel::memory);
        ASSERT_EQ(hit.module, first.module);  // the same module object: nothing copied
    }
    EXPECT_EQ(f.session.compiler_calls(), 1u);
}

TEST(CompileCell, RerunIsFoundByItsTextWithoutParsingOrHashing) {
    Fixture f;
    auto first = f.compile(saxpy, "-D N=4", "cell_1");
    EXPECT_EQ(f.session.key_derivations(), 1u);
    for (const char* label : {"cell_2", "cell_3", "cell_4"}) {
        auto again = f.compile(saxpy, "-D N=4", label);
        EXPECT_EQ(again.cache, CacheLevel::memory);
        EXPECT_EQ(again.module, first.module);
    }
    EXPECT_EQ(f.session.key_derivations(), 1u);
    EXPECT_EQ(f.session.compiler_calls(), 1u);
    // anything else the call is given is another call: an option, the arch, the text
    f.compile(saxpy, "-D N=5");
    f.compile(saxpy, "-D N=4 --arch sm_80");
    f.compile(std::string(saxpy) + " ", "-D N=4");
    EXPECT_EQ(f.session.key_derivations(), 4u);
    EXPECT_EQ(f.session.compiler_calls(), 4u);
}

TEST(CompileCell, RerunAfterTheCacheIsClearedCompilesAgain) {
    Fixture f;
    f.compile(saxpy);
    f.cache->clear();
    EXPECT_EQ(f.compile(saxpy).cache, CacheLevel::none);
    EXPECT_EQ(f.session.compiler_calls(), 2u);
    EXPECT_EQ(f.compile(saxpy).cache, CacheLevel::memory);
}

TEST(CompileCell, AnyHeaderChangeSendsARerunTheLongWay) {
    Fixture f;
    f.headers.set("scale.cuh", "#define SCALE 2.0f\n");
    const char* user = "#include \"scale.cuh\"\nextern \"C\" __global__ void k(float* p) { p[0] *= SCALE; }\n";
    f.compile(user);
    f.headers.set("other.cuh", "#define OTHER 1\n");  // not included: the derived key is the same
    EXPECT_EQ(f.compile(user).cache, CacheLevel::memory);
    EXPECT_EQ(f.session.key_derivations(), 2u);
    EXPECT_EQ(f.compile(user).cache, CacheLevel::memory);
    EXPECT_EQ(f.session.key_derivations(), 2u);          // known again under the new headers
    f.headers.set("scale.cuh", "#define SCALE 3.0f\n");  // redefined: compiled again
    EXPECT_EQ(f.compile(user).cache, CacheLevel::none);
    f.headers.erase("scale.cuh");
    EXPECT_THROW(f.compile(user), CellCompileError);
    EXPECT_EQ(f.session.compiler_calls(), 3u);
}

TEST(CompileCell, RelocatableCellsAreNeverFoundByTheirText) {
    // a -dc cell links against the other -dc cells every time it runs
    Fixture f;
    const char* cell = "extern \"C\" __global__ void k(int* p) { p[0] = 1; }\n";
    f.compile(cell, "-- -dc");
    f.compile(cell, "-- -dc");
    EXPECT_EQ(f.session.key_derivations(), 2u);
    EXPECT_EQ(f.session.compiler_calls(), 1u);  // its relocatable object is still cached
}

TEST(CompileCell, FastCompileBuildsNeverMixWithDefaultOnes) {
    auto [major, minor] = xcuda::rt::nvrtc_version();
    if (unsupported_by_nvrtc(opts("--fast-compile"), major, minor))
        GTEST_SKIP() << "NVRTC before 12.9 has no --Ofast-compile";
    RecordingFixture f;
    auto o = opts();
    auto fast = opts("--fast-compile");
    auto mid = opts("--fast-compile=mid");
    auto a = f.session.compile_cell(saxpy, o, f.headers);
    auto b = f.session.compile_cell(saxpy, fast, f.headers);
    auto c = f.session.compile_cell(saxpy, mid, f.headers);
    ASSERT_EQ(f.calls.size(), 3u);
    EXPECT_NE(a.module->cache_key, b.module->cache_key);
    EXPECT_NE(b.module->cache_key, c.module->cache_key);
    EXPECT_NE(std::find(f.calls[1].begin(), f.calls[1].end(), "--Ofast-compile=max"), f.calls[1].end());
    EXPECT_NE(std::find(f.calls[2].begin(), f.calls[2].end(), "--Ofast-compile=mid"), f.calls[2].end());
    EXPECT_EQ(b.module->kernels.at(0).lowered_name, "saxpy");
    EXPECT_EQ(f.session.compile_cell(saxpy, fast, f.headers).module, b.module);
    EXPECT_EQ(f.session.compile_cell(saxpy, o, f.headers).module, a.module);
    EXPECT_EQ(f.calls.size(), 3u);
}

TEST(CompileCell, DiskHitInAFreshSessionCompilesNothing) {
    Fixture f;
    auto first = f.compile(R"(namespace ns { __global__ void k(int* p) { p[0] = 1; } }
template <typename T> __global__ void t(T* p) { p[0] = T(2); }
)",
                           "--instantiate t<int>");
    CompileSession fresh(std::make_shared<CompileCache>(f.tmp.path() / "xcuda"));
    auto t0 = std::chrono::steady_clock::now();
    auto hit = fresh.compile_cell(R"(namespace ns { __global__ void k(int* p) { p[0] = 1; } }
template <typename T> __global__ void t(T* p) { p[0] = T(2); }
)",
                                  opts("--instantiate t<int>"), f.headers, "cell_9");
    std::printf("[ bench    ] disk hit: %.3f ms (cold compile was %.1f ms)\n",
                ms(std::chrono::steady_clock::now() - t0), first.milliseconds);
    EXPECT_EQ(hit.cache, CacheLevel::disk);
    EXPECT_EQ(fresh.compiler_calls(), 0u);
    EXPECT_EQ(hit.module->cubin, first.module->cubin);
    ASSERT_EQ(hit.module->kernels.size(), 2u);
    EXPECT_EQ(hit.module->kernels[0].lowered_name, first.module->kernels[0].lowered_name);
    EXPECT_EQ(hit.module->kernels[1].lowered_name, first.module->kernels[1].lowered_name);
    EXPECT_EQ(hit.module->kernels[1].instantiation, "int");
    EXPECT_TRUE(hit.module->kernels[0].resources);
}

TEST(CompileCell, DamagedDiskEntryIsRecompiled) {
    Fixture f;
    auto first = f.compile(saxpy);
    auto path = f.cache->entry_path(first.module->cache_key);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
    CompileSession fresh(std::make_shared<CompileCache>(f.tmp.path() / "xcuda"));
    auto again = fresh.compile_cell(saxpy, opts(), f.headers);
    EXPECT_EQ(again.cache, CacheLevel::none);
    EXPECT_EQ(fresh.compiler_calls(), 1u);
    EXPECT_EQ(again.module->cubin, first.module->cubin);
}

TEST(CompileCell, NoCacheBypassesMemoryAndDisk) {
    Fixture f;
    f.compile(saxpy);
    auto out = f.compile(saxpy, "--no-cache");
    EXPECT_EQ(out.cache, CacheLevel::none);
    EXPECT_EQ(f.session.compiler_calls(), 2u);
    EXPECT_EQ(f.cache->info().disk_entries, 1u);  // the --no-cache compile stored nothing new either
}

TEST(CompileCell, OptionsArchAndSourceChangeTheKey) {
    Fixture f;
    std::string k0 = f.compile(saxpy).module->cache_key;
    EXPECT_NE(f.compile(saxpy, "-D N=1").module->cache_key, k0);
    EXPECT_NE(f.compile(saxpy, "--arch sm_80").module->cache_key, k0);
    EXPECT_NE(f.compile(std::string(saxpy) + "\n").module->cache_key, k0);
    EXPECT_NE(f.compile(saxpy, "--fast-math").module->cache_key, k0);
    EXPECT_EQ(f.compile(saxpy, "-n other --sass --resources").module->cache_key, k0);  // display-only options
    // --ptx compiles with line info (so the view can show the cell's lines): the same key as --lineinfo.
    EXPECT_EQ(f.compile(saxpy, "--ptx").module->cache_key, f.compile(saxpy, "--lineinfo").module->cache_key);
}

TEST(CompileCell, HeaderChangeRecompilesItsUsersOnly) {
    Fixture f;
    f.headers.set("scale.cuh", "#define SCALE 2.0f\n");
    f.headers.set("other.cuh", "#define OTHER 1\n");
    const char* user = "#include \"scale.cuh\"\nextern \"C\" __global__ void k(float* p) { p[0] *= SCALE; }\n";
    auto a = f.compile(user);
    EXPECT_EQ(a.module->headers_used, (std::vector<std::string>{"scale.cuh"}));
    f.headers.set("other.cuh", "#define OTHER 2\n");
    EXPECT_EQ(f.compile(user).cache, CacheLevel::memory);  // unrelated header changed
    f.headers.set("scale.cuh", "#define SCALE 3.0f\n");
    auto c = f.compile(user);
    EXPECT_EQ(c.cache, CacheLevel::none);
    EXPECT_NE(c.module->cache_key, a.module->cache_key);
    EXPECT_NE(c.module->cubin, a.module->cubin);
    EXPECT_EQ(f.session.compiler_calls(), 2u);
}

TEST(CompileCell, CellWithoutKernelsCompilesWithANote) {
    Fixture f;
    auto out = f.compile("__device__ int helper(int x) { return x + 1; }\n");
    EXPECT_TRUE(out.module->kernels.empty());
    ASSERT_EQ(out.module->notes.size(), 1u);
    EXPECT_EQ(out.module->notes[0], "the cell defines no __global__ function; nothing to bind");
}

TEST(CompileCell, DefaultArchIsTheDevicesOrSm90) {
    Fixture f;
    ArchSource src;
    std::string arch = f.session.default_arch(&src);
    if (xcuda::rt::driver_available()) {
        EXPECT_EQ(src, ArchSource::device);
    } else {
        EXPECT_EQ(arch, "sm_90");
        EXPECT_EQ(src, ArchSource::fallback);
    }
    auto out = f.session.compile_cell(saxpy, parse_cell_options(""), f.headers);
    EXPECT_EQ(out.module->arch, arch);
    EXPECT_EQ(out.module->arch_source, src);
    f.session.set_default_arch("sm_80");
    EXPECT_EQ(f.session.compile_cell(saxpy, parse_cell_options(""), f.headers).module->arch, "sm_80");
}

TEST(CompileCell, InjectedCompilerSeesTheOptions) {
    xcuda::rt::CompileOptions seen;
    CompileSession s(nullptr, [&](std::string_view src, const xcuda::rt::CompileOptions& o) {
        seen = o;
        xcuda::rt::CompileResult r;
        r.cubin = "fake";
        r.lowered_names["&k"] = "_Z1kv";
        return r;
    });
    HeaderRegistry h;
    h.set("a.cuh", "");
    auto out = s.compile_cell("#include \"a.cuh\"\n__global__ void k() {}\n", opts("--lineinfo -I/x -- -G"), h);
    EXPECT_EQ(seen.arch, "sm_90");
    EXPECT_EQ(seen.program_name, "cell.cu");
    EXPECT_EQ(seen.options, (std::vector<std::string>{"-std=c++17", "-I/x", "-lineinfo", "-G"}));
    // the registered header the cell includes, then every built-in standard header
    ASSERT_EQ(seen.headers.size(), 1u + builtin_headers().size());
    EXPECT_EQ(seen.headers[0].name, "a.cuh");
    EXPECT_EQ(seen.headers[1].name, builtin_headers()[0].first);
    EXPECT_EQ(seen.name_expressions, (std::vector<std::string>{"&k"}));
    EXPECT_TRUE(seen.resource_usage);
    EXPECT_EQ(out.module->kernels[0].lowered_name, "_Z1kv");
    // no cache at all: every call compiles
    s.compile_cell("#include \"a.cuh\"\n__global__ void k() {}\n", opts("--lineinfo -I/x -- -G"), h);
    EXPECT_EQ(s.compiler_calls(), 2u);
}

TEST(CompileCell, VariablesGetLoweredNamesAndTemplateVariablesTheirInstantiations) {
    Fixture f;
    auto out = f.compile(R"(
__constant__ float coeffs[16];
__device__ int counter;
namespace ns { __device__ float table[4]; }
template <typename T> __device__ T lut[8];
extern "C" __global__ void k(float* y) { y[0] = coeffs[0] + counter + ns::table[0] + lut<float>[0]; }
)",
                         "--instantiate 'lut<float>'");
    const auto& m = *out.module;
    ASSERT_EQ(m.globals.size(), 4u);
    EXPECT_EQ(m.globals[0].decl.key(), "coeffs");
    EXPECT_EQ(m.globals[0].lowered_name, "coeffs");
    EXPECT_EQ(m.globals[1].lowered_name, "counter");
    EXPECT_EQ(m.globals[2].decl.key(), "ns::table");
    EXPECT_EQ(m.globals[2].name_expression, "&ns::table");
    EXPECT_EQ(m.globals[2].lowered_name, "_ZN2ns5tableE");
    EXPECT_EQ(m.globals[3].decl.key(), "lut<float>");
    EXPECT_EQ(m.globals[3].decl.type, "float");
    EXPECT_EQ(m.globals[3].lowered_name, "_Z3lutIfE");
    for (const auto& g : m.globals) EXPECT_NE(m.ptx.find(g.lowered_name), std::string::npos) << g.lowered_name;
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_TRUE(m.notes.empty());
}

TEST(CompileCell, VariablesNoKernelUsesAreStillInTheModule) {
    Fixture f;
    auto out = f.compile("namespace { __device__ int unused_hidden; }\nstatic __constant__ int unused_static[3];\n");
    const auto& m = *out.module;
    ASSERT_EQ(m.globals.size(), 2u);
    for (const auto& g : m.globals) EXPECT_NE(m.ptx.find(g.lowered_name), std::string::npos) << g.lowered_name;
    EXPECT_TRUE(m.notes.empty());
}

TEST(CompileCell, UninstantiatedTemplateVariableGetsANote) {
    Fixture f;
    auto out = f.compile("template <int N> __device__ int scratch[N];\n");
    EXPECT_TRUE(out.module->globals.empty());
    ASSERT_EQ(out.module->notes.size(), 1u);
    EXPECT_NE(out.module->notes[0].find("--instantiate 'scratch<256>'"), std::string::npos) << out.module->notes[0];
}

TEST(CompileCell, PrecompiledHeadersGoToAPrivateDirectoryUnderTheCacheNotTmp) {
    TempDir tmp;
    std::vector<std::string> seen;
    auto fake = [&](std::string_view, const xcuda::rt::CompileOptions& o) {
        seen = xcuda::rt::nvrtc_arguments(o, o.arch, {});
        xcuda::rt::CompileResult r;
        r.cubin = "fake";
        return r;
    };
    auto cache = std::make_shared<CompileCache>(tmp.path() / "xcuda");
    CompileSession s(cache, fake);
    HeaderRegistry h;
    auto first = s.compile_cell("extern \"C\" __global__ void k() {}\n", opts("-- -pch"), h);
    auto dir_at =
        std::find_if(seen.begin(), seen.end(), [](const std::string& o) { return o.rfind("--pch-dir=", 0) == 0; });
    ASSERT_NE(dir_at, seen.end());
    const std::string dir_option = *dir_at;
    const std::filesystem::path dir = dir_option.substr(10);
    EXPECT_EQ(dir.parent_path(), tmp.path() / "xcuda");
    EXPECT_EQ(dir.filename().string().rfind("pch-" + std::to_string(::getpid()) + "-", 0), 0u) << dir;
    EXPECT_EQ(std::filesystem::status(dir).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_all);  // mkdtemp: 0700
    EXPECT_NE(std::find(seen.begin(), seen.end(), "--pch-messages=false"), seen.end());
    // the directory names this process: it stays out of the cache key
    CompileSession other(std::make_shared<CompileCache>(tmp.path() / "other"), fake);
    auto second = other.compile_cell("extern \"C\" __global__ void k() {}\n", opts("-- -pch"), h);
    EXPECT_EQ(first.module->cache_key, second.module->cache_key);
    // a directory the cell names is left alone; no -pch, no directory
    s.compile_cell("extern \"C\" __global__ void k2() {}\n", opts("-- -pch --pch-dir=/mine"), h);
    EXPECT_EQ(
        std::count_if(seen.begin(), seen.end(), [](const std::string& o) { return o.rfind("--pch-dir", 0) == 0; }), 1);
    s.compile_cell("extern \"C\" __global__ void k3() {}\n", opts(""), h);
    EXPECT_EQ(std::count_if(seen.begin(), seen.end(), [](const std::string& o) { return o.rfind("--pch", 0) == 0; }),
              0);
}

TEST(CompileCell, ThePrecompiledHeaderDirectoryGoesWithTheSession) {
    // NVRTC removes its files at exit but not the directory: one per session piled up.
    TempDir tmp;
    std::string dir_option;
    auto fake = [&](std::string_view, const xcuda::rt::CompileOptions& o) {
        for (const auto& option : xcuda::rt::nvrtc_arguments(o, o.arch, {}))
            if (option.rfind("--pch-dir=", 0) == 0) dir_option = option;
        xcuda::rt::CompileResult r;
        r.cubin = "fake";
        return r;
    };
    HeaderRegistry h;
    {
        CompileSession s(std::make_shared<CompileCache>(tmp.path() / "xcuda"), fake);
        s.compile_cell("extern \"C\" __global__ void k() {}\n", opts("-- -pch"), h);
        ASSERT_FALSE(dir_option.empty());
        EXPECT_TRUE(std::filesystem::is_directory(dir_option.substr(10)));
    }
    EXPECT_FALSE(std::filesystem::exists(dir_option.substr(10)));
    EXPECT_TRUE(std::filesystem::is_directory(tmp.path() / "xcuda"));  // the cache stays
}

TEST(CompileCell, AdoptedPayloadBindsLikeTheCompileWithoutCallingTheCompiler) {
    Fixture f;
    const std::string src = std::string(saxpy) + R"(
template <typename T> __global__ void axpy(T a, const T* x, T* y, int n) {}
)";
    auto compiled = f.compile(src, "--instantiate 'axpy<float>'");
    const CompiledModule& m = *compiled.module;
    CachePayload payload{m.cubin, m.ptx, m.log, {}};
    for (const auto& k : m.kernels)
        if (!k.name_expression.empty()) payload.lowered_names.emplace_back(k.name_expression, k.lowered_name);

    CompileSession elsewhere{nullptr};
    auto adopted = elsewhere.adopt_cell(src, opts("--instantiate 'axpy<float>'"), f.headers, m.arch, payload, "cell_2");
    EXPECT_EQ(elsewhere.compiler_calls(), 0u);
    const CompiledModule& a = *adopted.module;
    EXPECT_EQ(a.cubin, m.cubin);
    EXPECT_EQ(a.arch, "sm_90");
    ASSERT_EQ(a.kernels.size(), m.kernels.size());
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        EXPECT_EQ(a.kernels[i].lowered_name, m.kernels[i].lowered_name);
        EXPECT_EQ(a.kernels[i].decl.signature, m.kernels[i].decl.signature);
        EXPECT_EQ(a.kernels[i].instantiation, m.kernels[i].instantiation);
        EXPECT_EQ(a.kernels[i].resources.has_value(), m.kernels[i].resources.has_value());
        EXPECT_EQ(a.kernels[i].layouts.size(), m.kernels[i].layouts.size());
    }
    EXPECT_EQ(a.cell_label, "cell_2");
}
