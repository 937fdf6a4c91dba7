#include <xcuda/report/line_counts_report.hpp>

#include <gtest/gtest.h>

using namespace xcuda::report;

namespace {

KernelLineCounts strided_kernel() {
    KernelLineCounts k;
    k.kernel = "gather";
    k.launches = 1;
    k.cell_lines = {"__global__ void gather(const float* in, float* out) {", "    float v = in[threadIdx.x * 32];",
                    "    out[threadIdx.x] = v;", "}"};
    LineCounts load;
    load.line = 2;
    load.instructions = 4;
    load.thread_instructions = 128;
    load.requests = 1;
    load.sectors = 32;
    LineCounts store;
    store.line = 3;
    store.instructions = 2;
    store.thread_instructions = 48;  // a partial warp: 75% of the lanes
    store.requests = 1;
    store.sectors = 4;
    k.lines = {load, store};
    return k;
}

}  // namespace

TEST(LineCountsReport, ShowsEachLinesCountsBesideItsSourceAndTheSectorsPerRequest) {
    const Rich r = line_counts_report({strided_kernel()});
    EXPECT_NE(r.plain.find("gather on the CPU device: 6 warp instructions (176 thread instructions"), std::string::npos)
        << r.plain;
    EXPECT_NE(r.plain.find("2 global memory requests (18.0 sectors each"), std::string::npos) << r.plain;
    // The strided load's row: 32 sectors for its one request; the store's: 75% of the lanes busy.
    EXPECT_NE(r.plain.find("32.0"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("75%"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("float v = in[threadIdx.x * 32];"), std::string::npos);
    EXPECT_NE(r.html.find("xcuda-heat"), std::string::npos);
    EXPECT_NE(r.html.find("in[threadIdx.x * 32];"), std::string::npos);
}

TEST(LineCountsReport, RepeatedLinesAddUpAndCountsOffTheCellAreSaidSeparately) {
    KernelLineCounts k = strided_kernel();
    LineCounts more = k.lines[0];
    LineCounts header;
    header.line = 0;  // inside a header, with no call site in the cell
    header.instructions = 5;
    k.lines.push_back(more);
    k.lines.push_back(header);
    const Rich r = line_counts_report({k});
    EXPECT_NE(r.plain.find("15 warp instructions"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("5 warp instructions are on no line of this cell"), std::string::npos) << r.plain;
}

TEST(LineCountsReport, NoKernelIsOneSentence) {
    const Rich r = line_counts_report({});
    EXPECT_NE(r.plain.find("No kernel ran on the CPU device"), std::string::npos);
}
