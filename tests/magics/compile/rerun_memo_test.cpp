#include "xcuda/compile/rerun_memo.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;

TEST(RerunMemo, FindsWhatACallRememberedWhileTheHeadersStayAtItsGeneration) {
    RerunMemo memo;
    const std::string call = RerunMemo::call_key("__global__ void k() {}", {"-std=c++17"}, {}, "sm_90");
    EXPECT_EQ(memo.find(call, 3), nullptr);
    memo.remember(call, "key-a", 3);
    ASSERT_NE(memo.find(call, 3), nullptr);
    EXPECT_EQ(*memo.find(call, 3), "key-a");
    EXPECT_EQ(memo.find(call, 4), nullptr);  // a header changed since
    memo.remember(call, "key-b", 4);
    EXPECT_EQ(*memo.find(call, 4), "key-b");
    EXPECT_EQ(memo.size(), 1u);
    EXPECT_EQ(memo.bytes(), call.size());
}

TEST(RerunMemo, CallKeysOfDifferentCallsDiffer) {
    auto key = RerunMemo::call_key;
    EXPECT_NE(key("ab", {"c"}, {}, "sm_90"), key("a", {"bc"}, {}, "sm_90"));
    EXPECT_NE(key("k", {"-DA", "-DB"}, {}, "sm_90"), key("k", {"-DA"}, {"-DB"}, "sm_90"));
    EXPECT_NE(key("k", {}, {}, "sm_90"), key("k", {}, {}, "sm_80"));
    EXPECT_NE(key("k", {}, {"axpy<float>"}, "sm_90"), key("k", {}, {}, "sm_90"));
    EXPECT_EQ(key("k", {"-G"}, {"axpy<float>"}, "sm_90"), key("k", {"-G"}, {"axpy<float>"}, "sm_90"));
}

TEST(RerunMemo, StartsAfreshPastItsLimit) {
    const std::string first = RerunMemo::call_key(std::string(60, 'a'), {}, {}, "sm_90");
    const std::string second = RerunMemo::call_key(std::string(60, 'b'), {}, {}, "sm_90");
    RerunMemo memo(first.size() + second.size() - 1);
    memo.remember(first, "k1", 0);
    memo.remember(second, "k2", 0);
    EXPECT_EQ(memo.find(first, 0), nullptr);
    ASSERT_NE(memo.find(second, 0), nullptr);
    EXPECT_EQ(memo.size(), 1u);
    EXPECT_EQ(memo.bytes(), second.size());
}
