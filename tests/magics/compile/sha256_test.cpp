#include "xcuda/compile/sha256.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;

TEST(Sha256, MatchesTheFipsTestVectors) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, GivesTheSameDigestWhateverTheChunking) {
    std::string data;
    for (int i = 0; i < 1000; ++i) data += char(i * 7);
    for (std::size_t step : {1u, 3u, 63u, 64u, 65u, 200u}) {
        Sha256 h;
        for (std::size_t at = 0; at < data.size(); at += step) h.update(std::string_view(data).substr(at, step));
        EXPECT_EQ(to_hex(h.finish()), sha256_hex(data)) << "step " << step;
    }
}

TEST(Sha256, FieldsCannotCollideByMovingBytesAcrossABoundary) {
    EXPECT_NE(to_hex(Sha256().field("ab").field("c").finish()), to_hex(Sha256().field("a").field("bc").finish()));
}

// RFC 4231 test cases 1, 2, 6 (short key, short text, key longer than a block).
TEST(HmacSha256, MatchesTheRfc4231TestVectors) {
    EXPECT_EQ(to_hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")),
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    EXPECT_EQ(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    EXPECT_EQ(to_hex(hmac_sha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")),
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256, ConstantTimeEqualityComparesWholeStrings) {
    EXPECT_TRUE(equal_in_constant_time("abc", "abc"));
    EXPECT_FALSE(equal_in_constant_time("abc", "abd"));
    EXPECT_FALSE(equal_in_constant_time("abc", "abcd"));
    EXPECT_TRUE(equal_in_constant_time("", ""));
}
