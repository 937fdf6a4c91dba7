#include "xcuda/compile/cache_entry.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;

namespace {

const std::string key(64, 'a');
const std::string secret(32, 's');

CachePayload sample() {
    CachePayload p;
    p.cubin = std::string(
                  "\x7f"
                  "ELF\0\1\2",
                  7) +
              std::string(300, 'c');
    p.ptx = ".version 9.0\n.target sm_90\n";
    p.log = "ptxas info    : Used 8 registers\n";
    p.lowered_names = {{"&ns::k", "_ZN2ns1kEPi"}, {"&axpy<float>", "_Z4axpyIfEvT_PS0_"}};
    return p;
}

}  // namespace

TEST(CacheEntry, RoundTrips) {
    std::string bytes = serialize_cache_entry(key, sample(), secret);
    auto back = parse_cache_entry(bytes, key, secret);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, sample());
    EXPECT_EQ(bytes.substr(0, 8), std::string("XCUDACC\0", 8));
}

TEST(CacheEntry, EmptyPayloadRoundTrips) {
    auto back = parse_cache_entry(serialize_cache_entry(key, {}, secret), key, secret);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, CachePayload{});
}

TEST(CacheEntry, WrongKeyIsAMiss) {
    std::string bytes = serialize_cache_entry(key, sample(), secret);
    EXPECT_FALSE(parse_cache_entry(bytes, std::string(64, 'b'), secret));
    EXPECT_FALSE(parse_cache_entry(bytes, "", secret));
}

TEST(CacheEntry, EveryTruncationIsAMiss) {
    std::string bytes = serialize_cache_entry(key, sample(), secret);
    for (std::size_t n = 0; n < bytes.size(); ++n)
        EXPECT_FALSE(parse_cache_entry(bytes.substr(0, n), key, secret)) << n;
}

TEST(CacheEntry, EveryFlippedByteIsAMiss) {
    std::string bytes = serialize_cache_entry(key, sample(), secret);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::string bad = bytes;
        bad[i] = char(bad[i] ^ 0x01);
        EXPECT_FALSE(parse_cache_entry(bad, key, secret)) << "byte " << i;
    }
}

TEST(CacheEntry, TrailingBytesAreAMiss) {
    EXPECT_FALSE(parse_cache_entry(serialize_cache_entry(key, sample(), secret) + "x", key, secret));
}

TEST(CacheEntry, OtherFormatVersionIsAMiss) {
    std::string bytes = serialize_cache_entry(key, sample(), secret);
    bytes[8] = char(cache_format_version + 1);
    EXPECT_FALSE(parse_cache_entry(bytes, key, secret));
}

TEST(CacheEntry, AnEntryTaggedUnderAnotherSecretIsAMiss) {
    // another user's entry copied in, or one forged with a recomputed checksum
    std::string bytes = serialize_cache_entry(key, sample(), std::string(32, 'x'));
    EXPECT_FALSE(parse_cache_entry(bytes, key, secret));
    EXPECT_TRUE(parse_cache_entry(bytes, key, std::string(32, 'x')));
}
