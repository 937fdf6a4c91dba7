#include <gtest/gtest.h>

#include "xcuda/report/units.hpp"

using namespace xcuda::report;

TEST(FormatDuration, PicksUnitSoTheNumberHasOneToThreeIntegerDigits) {
    EXPECT_EQ(format_duration(0.0000123), "12.3 µs");
    EXPECT_EQ(format_duration(1.5e-9), "1.50 ns");
    EXPECT_EQ(format_duration(850e-9), "850 ns");
    EXPECT_EQ(format_duration(0.00123), "1.23 ms");
    EXPECT_EQ(format_duration(0.123), "123 ms");
    EXPECT_EQ(format_duration(2.5), "2.50 s");
    EXPECT_EQ(format_duration(125.0), "125 s");
    EXPECT_EQ(format_duration(0.0), "0 ns");
}

TEST(FormatDuration, RoundingUpToAThousandMovesToTheNextUnit) {
    EXPECT_EQ(format_duration(999.7e-6), "1.00 ms");
    EXPECT_EQ(format_duration(9.996e-6), "10.0 µs");
}

TEST(FormatDurationAs, UsesTheReferenceUnitAndResolution) {
    EXPECT_EQ(format_duration_as(0.4e-6, 12.3e-6), "0.4 µs");
    EXPECT_EQ(format_duration_as(0.41e-6, 1.23e-6), "0.41 µs");
    // Far below the resolution: still one significant digit, not "0.0".
    EXPECT_EQ(format_duration_as(0.002e-6, 12.3e-6), "0.002 µs");
    EXPECT_EQ(format_duration_as(0.0, 12.3e-6), "0.0 µs");
}

TEST(FormatBytes, UsesBinaryUnitsAndDropsATrailingZero) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(812), "812 B");
    EXPECT_EQ(format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(format_bytes(48 * 1024), "48 KiB");
    EXPECT_EQ(format_bytes(227 * 1024), "227 KiB");
    EXPECT_EQ(format_bytes(std::uint64_t(80) << 30), "80 GiB");
    EXPECT_EQ(format_bytes(1023 * 1024 + 1000), "1 MiB");
}

TEST(FormatBandwidth, QuotesDecimalGigabytesPerSecond) {
    EXPECT_EQ(format_bandwidth(3.35e12), "3350 GB/s");
    EXPECT_EQ(format_bandwidth(45.67e9), "45.7 GB/s");
    EXPECT_EQ(format_bandwidth(1.234e9), "1.23 GB/s");
}

TEST(FormatPercent, RoundsToAnIntegerPercent) {
    EXPECT_EQ(format_percent(0.75), "75%");
    EXPECT_EQ(format_percent(1.0 / 3.0), "33%");
    EXPECT_EQ(format_percent(1.0), "100%");
}

TEST(FormatPercent, KeepsTheAskedDecimals) {
    EXPECT_EQ(format_percent(0.5123, 1), "51.2%");
    EXPECT_EQ(format_percent(1.0, 1), "100.0%");
    EXPECT_EQ(format_percent(0.00049, 1), "0.0%");
}

TEST(FormatSi, PicksTheDecimalPrefixSoTheNumberHasOneToThreeIntegerDigits) {
    EXPECT_EQ(format_si(6.7e13, "FLOP/s"), "67.0 TFLOP/s");
    EXPECT_EQ(format_si(1.3e14, "FLOP/s"), "130 TFLOP/s");
    EXPECT_EQ(format_si(512, "FLOP"), "512 FLOP");
    EXPECT_EQ(format_si(4.194304e6, "FLOP"), "4.19 MFLOP");
    EXPECT_EQ(format_si(999.7e9, "FLOP/s"), "1.00 TFLOP/s");  // rounding moves to the next prefix
    EXPECT_EQ(format_si(0.0, "FLOP"), "0 FLOP");
}

TEST(FormatCount, GroupsThousands) {
    EXPECT_EQ(format_count(0), "0");
    EXPECT_EQ(format_count(999), "999");
    EXPECT_EQ(format_count(12345), "12,345");
    EXPECT_EQ(format_count(1000000), "1,000,000");
}
