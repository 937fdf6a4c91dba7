#include <xcuda/rt/ptxas_info.hpp>

#include <gtest/gtest.h>

#include <limits>

using xcuda::rt::parse_ptxas_info;

namespace {

// Verbatim from NVRTC 13.0 (-arch=sm_80 -Xptxas=-v).
const char* const sm80_log =
    "ptxas info    : 4 bytes gmem, 256 bytes cmem[3], 16 bytes cmem[4]\n"
    "ptxas info    : Compiling entry function '_Z3bigPd' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z3bigPd\n"
    "ptxas         .     2400 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 38 registers, used 0 barriers, 2400 bytes cumulative stack size, 360 bytes cmem[0]\n"
    "ptxas info    : Compile time = 35.804 ms\n"
    "ptxas info    : Compiling entry function '_Z4axpyIfEvT_PS0_' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z4axpyIfEvT_PS0_\n"
    "ptxas         .     400 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 400 bytes cumulative stack size, 512 bytes smem, 368 bytes "
    "cmem[0]\n"
    "ptxas info    : Compile time = 12.051 ms\n"
    "ptxas info    : Compiling entry function 'saxpy' for 'sm_80'\n"
    "ptxas info    : Function properties for saxpy\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 0 barriers, 380 bytes cmem[0]\n"
    "ptxas info    : Compile time = 0.949 ms\n";

}  // namespace

TEST(ParsePtxasInfo, ReadsEveryEntryFunctionOfAnSm80Log) {
    auto k = parse_ptxas_info(sm80_log);
    ASSERT_EQ(k.size(), 3u);
    const auto& big = k.at("_Z3bigPd");
    EXPECT_EQ(big.arch, "sm_80");
    EXPECT_EQ(big.registers, 38);
    EXPECT_EQ(big.stack_frame_bytes, 2400u);
    EXPECT_EQ(big.cumulative_stack_bytes, 2400u);
    EXPECT_EQ(big.constant_bytes, 360u);
    const auto& axpy = k.at("_Z4axpyIfEvT_PS0_");
    EXPECT_EQ(axpy.barriers, 1);
    EXPECT_EQ(axpy.shared_bytes, 512u);
    EXPECT_EQ(axpy.stack_frame_bytes, 400u);
    EXPECT_EQ(k.at("saxpy").registers, 10);
    EXPECT_EQ(k.at("saxpy").constant_bytes, 380u);
}

TEST(ParsePtxasInfo, ReadsSpillsAfterARegisterLimitOverride) {
    auto k = parse_ptxas_info(
        "ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24\n"
        "ptxas info    : Overriding maximum register limit 256 for '_Z3bigPd' with  24 of maxrregcount option\n"
        "ptxas info    : 4 bytes gmem\n"
        "ptxas info    : Compiling entry function '_Z3bigPd' for 'sm_90'\n"
        "ptxas info    : Function properties for _Z3bigPd\n"
        "ptxas         .     2480 bytes stack frame, 124 bytes spill stores, 220 bytes spill loads\n"
        "ptxas info    : Used 24 registers, used 0 barriers, 2480 bytes cumulative stack size\n");
    ASSERT_EQ(k.size(), 1u);
    const auto& big = k.at("_Z3bigPd");
    EXPECT_EQ(big.arch, "sm_90");
    EXPECT_EQ(big.registers, 24);
    EXPECT_EQ(big.spill_store_bytes, 124u);
    EXPECT_EQ(big.spill_load_bytes, 220u);
    EXPECT_EQ(big.constant_bytes, 0u);
}

TEST(ParsePtxasInfo, IgnoresPropertiesOfNonEntryFunctions) {
    auto k = parse_ptxas_info(
        "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
        "ptxas info    : Function properties for vprintf\n"
        "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Function properties for k\n"
        "ptxas         .     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 20 registers, used 0 barriers, 24 bytes cumulative stack size\n");
    ASSERT_EQ(k.count("vprintf"), 0u);
    EXPECT_EQ(k.at("k").stack_frame_bytes, 16u);
    EXPECT_EQ(k.at("k").spill_store_bytes, 0u);
    EXPECT_EQ(k.at("k").cumulative_stack_bytes, 24u);
}

TEST(ParsePtxasInfo, ReturnsNothingForLogsWithoutPtxasLines) {
    EXPECT_TRUE(parse_ptxas_info("").empty());
    EXPECT_TRUE(parse_ptxas_info("cell.cu(3): error: identifier \"x\" is undefined\n").empty());
}

TEST(ParsePtxasInfo, SurvivesTruncatedAndHostileInput) {
    EXPECT_TRUE(parse_ptxas_info("ptxas info    : Compiling entry function 'unterminated").empty());
    EXPECT_TRUE(parse_ptxas_info("ptxas info    : Used 12 registers\n").empty());  // no entry yet
    auto k = parse_ptxas_info(
        "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
        "ptxas info    : Used 99999999999999999999999999999 registers, 18446744073709551615 bytes smem, "
        "18446744073709551615 bytes cmem[0], 5 bytes cmem[2]\n"
        "ptxas info    : Used , , ,,,\n"
        "ptxas\n");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k.at("k").registers, std::numeric_limits<int>::max());  // saturated, not wrapped
    EXPECT_EQ(k.at("k").shared_bytes, std::numeric_limits<std::size_t>::max());
    EXPECT_EQ(k.at("k").constant_bytes, std::numeric_limits<std::size_t>::max());
    std::string noise(1000, '\0');
    EXPECT_TRUE(parse_ptxas_info(noise).empty());
}
