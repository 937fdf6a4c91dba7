// NVRTC's whole argument list for a cell, put together in one place (rt::nvrtc_arguments) from
// the cell's options (the option table, nvrtc_options) and what the session adds to the call
// (arch, toolkit dirs, the private precompiled-header directory, -minimal, ptxas -v). The lists
// below are the ones compile_cell and rt::compile built before that place existed; the retries
// differ from the first call only as they did then.
#include "xcuda/compile/compile_cell.hpp"

#include "temp_dir.hpp"
#include "written_down.hpp"
#include "xcuda/rt/compiler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace xcuda::compile;

namespace {

const std::vector<std::string> toolkit = {"/toolkit/include", "/toolkit/include/cccl"};

bool nvrtc_knows_minimal() {
    auto [major, minor] = xcuda::rt::nvrtc_version();
    return major > 12 || (major == 12 && minor >= 4);
}

// Every call a session makes to its compiler for `source` and `line` (arch sm_90 unless the line
// names one). `fail_first`: the first call is refused, as NVRTC refuses a cell. `cell_may_fail`: a
// cell that ends in an error (a -dc cell's fake CUBIN cannot be device-linked, a refused cell ends in
// a CellCompileError) still gives the calls it made.
std::vector<xcuda::rt::CompileOptions> calls_for(const TempDir& tmp, const std::string& source, const std::string& line,
                                                 bool fail_first, bool cell_may_fail = false) {
    std::vector<xcuda::rt::CompileOptions> seen;
    CompileSession s(std::make_shared<CompileCache>(tmp.path() / "xcuda"),
                     [&](std::string_view, const xcuda::rt::CompileOptions& o) {
                         seen.push_back(o);
                         if (fail_first && seen.size() == 1)
                             throw xcuda::rt::CompileError(o.program_name, {}, "cell.cu(1): error: needs more");
                         xcuda::rt::CompileResult r;
                         r.cubin = "fake";
                         return r;
                     });
    CellOptions options = parse_cell_options(line);
    if (options.arch.empty()) options.arch = "sm_90";
    HeaderRegistry headers;
    try {
        s.compile_cell(source, options, headers);
    } catch (const xcuda::rt::CudaError&) {
        if (!cell_may_fail) throw;
    }
    return seen;
}

const char* cell = "extern \"C\" __global__ void k(float* y) { y[0] = 1; }\n";

}  // namespace

TEST(NvrtcArguments, ARepresentativeCellGetsTheWholeListInOrder) {
    if (!nvrtc_knows_minimal()) GTEST_SKIP() << "NVRTC before 12.4 has no -minimal";
    TempDir tmp;
    auto seen = calls_for(tmp, cell, "--std c++20 -D N=4 -I /inc --fast-math --lineinfo -- -pch -G", false);
    ASSERT_EQ(seen.size(), 1u);
    const std::string pch_dir = seen[0].pch_dir;
    ASSERT_FALSE(pch_dir.empty());
    EXPECT_EQ(std::filesystem::path(pch_dir).parent_path(), tmp.path() / "xcuda");
    EXPECT_EQ(xcuda::rt::nvrtc_arguments(seen[0], seen[0].arch, toolkit),
              (std::vector<std::string>{"-arch=sm_90", "-I/toolkit/include", "-I/toolkit/include/cccl", "-std=c++20",
                                        "-DN=4", "-I/inc", "-use_fast_math", "-lineinfo", "-pch", "-G",
                                        "--pch-dir=" + pch_dir, "--pch-messages=false", "-minimal", "-Xptxas=-v"}));
    // The module remembers the cell's part alone: it is what the cache key hashes.
    EXPECT_EQ(seen[0].options,
              (std::vector<std::string>{"-std=c++20", "-DN=4", "-I/inc", "-use_fast_math", "-lineinfo", "-pch", "-G"}));
}

TEST(NvrtcArguments, TheRetryWithoutMinimalDiffersOnlyByMinimal) {
    if (!nvrtc_knows_minimal()) GTEST_SKIP() << "NVRTC before 12.4 has no -minimal";
    TempDir tmp;
    auto seen = calls_for(tmp, cell, "-D N=4 -- -pch", true);
    ASSERT_EQ(seen.size(), 2u);
    std::vector<std::string> first = xcuda::rt::nvrtc_arguments(seen[0], seen[0].arch, toolkit);
    const std::vector<std::string> retry = xcuda::rt::nvrtc_arguments(seen[1], seen[1].arch, toolkit);
    ASSERT_EQ(first.end() - 2, std::find(first.begin(), first.end(), "-minimal"));
    first.erase(first.end() - 2);
    EXPECT_EQ(retry, first);
}

TEST(NvrtcArguments, TheRetryBypassingTheComputeCacheAddsNoCacheLast) {
    TempDir tmp;
    auto seen = calls_for(tmp, cell, "-- -G", false);
    ASSERT_EQ(seen.size(), 1u);
    std::vector<std::string> first = xcuda::rt::nvrtc_arguments(seen[0], "sm_90", toolkit);
    first.push_back("--no-cache");
    EXPECT_EQ(xcuda::rt::nvrtc_arguments(seen[0], "sm_90", toolkit, true), first);
}

TEST(NvrtcArguments, WhatACellOrTheCallLeavesOutIsNotThere) {
    xcuda::rt::CompileOptions o;
    o.options = {"-std=c++17"};
    // PTX only: ptxas does not run, so there are no resource lines to ask for
    EXPECT_EQ(
        xcuda::rt::nvrtc_arguments(o, "compute_90", toolkit),
        (std::vector<std::string>{"-arch=compute_90", "-I/toolkit/include", "-I/toolkit/include/cccl", "-std=c++17"}));
    o.toolkit_includes = false;
    o.resource_usage = false;
    EXPECT_EQ(xcuda::rt::nvrtc_arguments(o, "sm_90", toolkit), (std::vector<std::string>{"-arch=sm_90", "-std=c++17"}));
    // a cell that includes a header, or names its own pch directory, gets neither -minimal nor ours
    TempDir tmp;
    auto seen = calls_for(tmp, std::string("#include <cuda_fp16.h>\n") + cell, "-- -pch --pch-dir=/mine", false);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(xcuda::rt::nvrtc_arguments(seen[0], "sm_90", toolkit),
              (std::vector<std::string>{"-arch=sm_90", "-I/toolkit/include", "-I/toolkit/include/cccl", "-std=c++17",
                                        "-pch", "--pch-dir=/mine", "-Xptxas=-v"}));
}

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

// calls_for's calls, one line each: NVRTC's whole argument list (the private pch directory written
// as <pch>) and the name expressions.
std::string calls_text(const std::string& source, const std::string& line, bool fail_first = false) {
    TempDir tmp;
    const auto seen = calls_for(tmp, source, line, fail_first, /*cell_may_fail=*/true);
    std::string out = "[" + line + "]" + (fail_first ? " refused first" : "") + "\n";
    for (const auto& o : seen) {
        std::vector<std::string> args = xcuda::rt::nvrtc_arguments(o, o.arch, toolkit);
        for (auto& a : args) {
            if (!o.pch_dir.empty() && a == "--pch-dir=" + o.pch_dir) a = "--pch-dir=<pch>";
        }
        out += "  " + o.program_name + ": " + joined(args) + "\n";
        if (!o.name_expressions.empty()) out += "    names: " + joined(o.name_expressions) + "\n";
    }
    return out;
}

}  // namespace

// The argument lists of representative cells, as written down: a change to what NVRTC is called
// with must be made here too, on purpose.
TEST(NvrtcArguments, RepresentativeCellsCallNvrtcAsWrittenDown) {
    auto [major, minor] = xcuda::rt::nvrtc_version();
    if (major < 12 || (major == 12 && minor < 9))
        GTEST_SKIP() << "the lists name -minimal (NVRTC 12.4+) and --Ofast-compile (12.9+); this NVRTC is " << major
                     << "." << minor;
    const std::string includes = std::string("#include <cuda_fp16.h>\n") + cell;
    const std::string launches =
        "__global__ void child(float* y) { y[0] = 1; }\n"
        "__global__ void parent(float* y) { child<<<1, 1>>>(y); }\n";
    const std::string templated =
        "template <typename T> __global__ void axpy(T a, T* y) { y[0] += a; }\n"
        "__device__ float table[4];\n";
    std::string all;
    for (const char* line : {"",
                             "--arch compute_90",
                             "--arch sm_90a",
                             "--std c++20 -D N=4 -D M -I /inc -I/more",
                             "--fast-math",
                             "--lineinfo",
                             "--ptx",
                             "--fast-compile",
                             "--fast-compile=mid",
                             "-- -G",
                             "-- -dc",
                             "-- -rdc=true",
                             "-- --device-c",
                             "-- -pch",
                             "-- --pch",
                             "-- -pch --pch-dir=/mine",
                             "-- --pch-dir=/mine",
                             "-- -minimal",
                             "-- --minimal",
                             "--no-cache -- -pch -dc -minimal",
                             "--fast-math -- -G -pch -rdc=true"})
        all += calls_text(cell, line);
    for (const char* line : {"", "-- -pch", "-- -minimal", "-- -dc"}) all += calls_text(cell, line, true);
    for (const char* line : {"", "-- -pch"}) all += calls_text(includes, line);
    for (const char* line : {"", "-- -dc"}) all += calls_text(launches, line);
    all += calls_text(templated, "--instantiate 'axpy<float>' --instantiate 'axpy<double>'");
    expect_as_written_down("nvrtc_calls", all, R"golden([]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -minimal -Xptxas=-v
[--arch compute_90]
  cell.cu: -arch=compute_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -minimal
[--arch sm_90a]
  cell.cu: -arch=sm_90a -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -minimal -Xptxas=-v
[--std c++20 -D N=4 -D M -I /inc -I/more]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++20 -DN=4 -DM -I/inc -I/more -minimal -Xptxas=-v
[--fast-math]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -use_fast_math -minimal -Xptxas=-v
[--lineinfo]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -lineinfo -minimal -Xptxas=-v
[--ptx]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -lineinfo -minimal -Xptxas=-v
[--fast-compile]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 --Ofast-compile=max -minimal -Xptxas=-v
[--fast-compile=mid]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 --Ofast-compile=mid -minimal -Xptxas=-v
[-- -G]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -G -minimal -Xptxas=-v
[-- -dc]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -dc -minimal -Xptxas=-v
[-- -rdc=true]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -rdc=true -minimal -Xptxas=-v
[-- --device-c]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 --device-c -minimal -Xptxas=-v
[-- -pch]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -pch --pch-dir=<pch> --pch-messages=false -minimal -Xptxas=-v
[-- --pch]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 --pch --pch-dir=<pch> --pch-messages=false -minimal -Xptxas=-v
[-- -pch --pch-dir=/mine]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -pch --pch-dir=/mine -minimal -Xptxas=-v
[-- --pch-dir=/mine]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 --pch-dir=/mine -minimal -Xptxas=-v
[-- -minimal]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -minimal -Xptxas=-v
[-- --minimal]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 --minimal -Xptxas=-v
[--no-cache -- -pch -dc -minimal]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -pch -dc -minimal --pch-dir=<pch> --pch-messages=false -Xptxas=-v
[--fast-math -- -G -pch -rdc=true]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -use_fast_math -G -pch -rdc=true --pch-dir=<pch> --pch-messages=false -minimal -Xptxas=-v
[] refused first
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -minimal -Xptxas=-v
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -Xptxas=-v
[-- -pch] refused first
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -pch --pch-dir=<pch> --pch-messages=false -minimal -Xptxas=-v
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -pch --pch-dir=<pch> --pch-messages=false -Xptxas=-v
[-- -minimal] refused first
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -minimal -Xptxas=-v
[-- -dc] refused first
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -dc -minimal -Xptxas=-v
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -dc -Xptxas=-v
[]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -Xptxas=-v
[-- -pch]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -pch --pch-dir=<pch> --pch-messages=false -Xptxas=-v
[]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -Xptxas=-v
    names: &child &parent
[-- -dc]
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -dc -Xptxas=-v
    names: &child &parent
[--instantiate 'axpy<float>' --instantiate 'axpy<double>']
  cell.cu: -arch=sm_90 -I/toolkit/include -I/toolkit/include/cccl -std=c++17 -minimal -Xptxas=-v
    names: &axpy<float> &axpy<double> &table
)golden");
}
