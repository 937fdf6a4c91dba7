#include <xcuda/rt/context.hpp>
#include <xcuda/rt/graph.hpp>
#include <xcuda/rt/handle.hpp>
#include <xcuda/rt/memory.hpp>
#include <xcuda/rt/module.hpp>
#include <xcuda/rt/stream.hpp>

#include <gtest/gtest.h>

#include <type_traits>
#include <utility>
#include <vector>

using namespace xcuda::rt;

namespace {

std::vector<int> g_released;

struct Record {
    void operator()(int value) const noexcept { g_released.push_back(value); }
};

// Releases with a tag of its own, to see which release a moved handle keeps.
struct Tagged {
    int tag;
    void operator()(int value) const noexcept { g_released.push_back(tag * 100 + value); }
};

using IntHandle = detail::Handle<int, Record>;

class HandleTest : public ::testing::Test {
protected:
    void SetUp() override { g_released.clear(); }
};

template <class T>
constexpr bool move_only_v = std::is_nothrow_move_constructible_v<T>&& std::is_nothrow_move_assignable_v<T> &&
                             !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T>;

}  // namespace

static_assert(move_only_v<DeviceBuffer> && move_only_v<PinnedBuffer> && move_only_v<Stream> && move_only_v<Event> &&
              move_only_v<Module> && move_only_v<PrimaryContext> && move_only_v<Graph>);
static_assert(sizeof(IntHandle) == sizeof(int), "a stateless release takes no room");

TEST_F(HandleTest, ReleasesWhatItHoldsOnceAndNothingWhenEmpty) {
    { IntHandle empty; }
    EXPECT_TRUE(g_released.empty());
    { IntHandle h(7); }
    EXPECT_EQ(g_released, std::vector<int>{7});
}

TEST_F(HandleTest, MovingLeavesNothingBehind) {
    IntHandle a(7);
    IntHandle b(std::move(a));
    EXPECT_EQ(a.get(), 0);
    EXPECT_EQ(b.get(), 7);
    EXPECT_TRUE(g_released.empty());
}

TEST_F(HandleTest, MoveAssignmentReleasesTheOldHandleAfterTakingTheNew) {
    IntHandle a(1);
    IntHandle b(2);
    a = std::move(b);
    EXPECT_EQ(a.get(), 2);
    EXPECT_EQ(b.get(), 0);
    EXPECT_EQ(g_released, std::vector<int>{1});
    auto& self = a;
    a = std::move(self);
    EXPECT_EQ(a.get(), 2);
    EXPECT_EQ(g_released, std::vector<int>{1});
}

TEST_F(HandleTest, PutReleasesTheOldHandleBeforeTheNewOneIsWritten) {
    IntHandle a(3);
    int* out = a.put();
    EXPECT_EQ(g_released, std::vector<int>{3});
    EXPECT_EQ(*out, 0);
    *out = 4;
    EXPECT_EQ(a.get(), 4);
}

TEST_F(HandleTest, AStatefulReleaseMovesWithTheHandleAndStaysWithTheMovedFrom) {
    detail::Handle<int, Tagged> a(5, Tagged{1});
    detail::Handle<int, Tagged> b(6, Tagged{2});
    a = std::move(b);  // a's old 5 is released by a's old release
    EXPECT_EQ(g_released, std::vector<int>{105});
    EXPECT_EQ(a.releaser().tag, 2);
    EXPECT_EQ(b.releaser().tag, 2);
    detail::Handle<int, Tagged> c(std::move(a));
    EXPECT_EQ(a.releaser().tag, 2);
    c = detail::Handle<int, Tagged>(0, Tagged{3});
    EXPECT_EQ(g_released, (std::vector<int>{105, 206}));
}
