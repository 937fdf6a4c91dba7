#include "gpu_support.hpp"

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;

using ContextTest = GpuTest;

TEST_F(ContextTest, PrintfFifoWasSizedBeforeTheFirstLaunch) {
    auto fifo = context()->printf_fifo();
    EXPECT_TRUE(fifo.set) << fifo.why_not;
    EXPECT_EQ(fifo.requested, printf_fifo_size_requested());
    EXPECT_GE(fifo.bytes, fifo.requested);
}

TEST_F(ContextTest, SecondRetainOfThePrimaryContextSharesIt) {
    PrimaryContext again(device());
    EXPECT_EQ(again.handle(), context()->handle());
    PrimaryContext moved(std::move(again));
    EXPECT_EQ(moved.handle(), context()->handle());
    EXPECT_EQ(again.handle(), nullptr);
}

TEST_F(ContextTest, SynchronizeReturnsWhenIdle) { EXPECT_NO_THROW(context()->synchronize()); }
