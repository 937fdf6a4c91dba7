#include <gtest/gtest.h>

#include "xcuda/report/resources_report.hpp"

using namespace xcuda::report;

namespace {

KernelResources kernel(std::string name, int regs, std::size_t shared = 0) {
    KernelResources k;
    k.name = std::move(name);
    k.arch = "sm_90";
    k.registers = regs;
    k.shared_bytes = shared;
    k.constant_bytes = 380;
    return k;
}

}  // namespace

TEST(ResourcesReport, OneRowPerKernelWithOccupancyAndLimiter) {
    Rich r = resources_report({kernel("saxpy", 16), kernel("heavy", 64)});
    EXPECT_NE(r.plain.find("Occupancy @256"), std::string::npos);
    EXPECT_NE(r.plain.find("saxpy   sm_90"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("heavy: Occupancy 50% at 256 threads/block"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("limited by registers"), std::string::npos);
    EXPECT_NE(r.plain.find("380 B"), std::string::npos);
    std::size_t rows = 0;
    for (auto p = r.html.find("<tr>"); p != std::string::npos; p = r.html.find("<tr>", p + 1)) ++rows;
    EXPECT_EQ(rows, 3u);  // header + 2 kernels
}

TEST(ResourcesReport, SpillsAreCalledOut) {
    KernelResources k = kernel("spilly", 255);
    k.spill_store_bytes = 16;
    k.spill_load_bytes = 24;
    Rich r = resources_report({k});
    EXPECT_NE(r.plain.find("spilly: Spills 16 B stored / 24 B loaded"), std::string::npos) << r.plain;
    EXPECT_NE(r.html.find("xcuda-warn"), std::string::npos);
}

TEST(ResourcesReport, UnknownArchSaysWhyThereIsNoOccupancy) {
    KernelResources k = kernel("old", 32);
    k.arch = "sm_61";
    Rich r = resources_report({k});
    EXPECT_NE(r.plain.find("architecture \"sm_61\" is not in the built-in table"), std::string::npos) << r.plain;
}

TEST(ResourcesReport, DeviceLimitsAndBlockSizeOptionsAreUsed) {
    ResourcesOptions opt;
    opt.limits = limits_for_arch("sm_75");
    opt.block_size = 1024;
    Rich r = resources_report({kernel("k", 32)}, opt);
    EXPECT_NE(r.plain.find("Occupancy @1024"), std::string::npos);
    EXPECT_NE(r.plain.find("Limits of the current device (sm_75)"), std::string::npos);
    EXPECT_NE(r.plain.find("k: Occupancy 100% at 1024 threads/block"), std::string::npos) << r.plain;
}

TEST(ResourcesReport, EscapesKernelNames) {
    Rich r = resources_report({kernel("<script>", 16)});
    EXPECT_EQ(r.html.find("<script>"), std::string::npos);
    EXPECT_NE(r.html.find("&lt;script&gt;"), std::string::npos);
}

TEST(ResourcesReport, NoKernelsSaysSo) {
    EXPECT_NE(resources_report({}).plain.find("defines no kernels"), std::string::npos);
}
