// NVRTC's whole argument list for a cell, put together in one place (rt::nvrtc_arguments) from
// the cell's options (the option table, nvrtc_options) and what the session adds to the call
// (arch, toolkit dirs, the private precompiled-header directory, -minimal, ptxas -v). The lists
// below are the ones compile_cell and rt::compile built before that place existed; the retries
// differ from the first call only as they did then.
#include "xcuda/compile/compile_cell.hpp"

#include "temp_dir.hpp"
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

// What a session hands its compiler for `source` and `line` (arch sm_90): the first call, and the
// retry when the first is made to fail.
std::vector<xcuda::rt::CompileOptions> calls_for(const TempDir& tmp, const std::string& source, const std::string& line,
                                                 bool fail_first) {
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
    options.arch = "sm_90";
    HeaderRegistry headers;
    s.compile_cell(source, options, headers);
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
