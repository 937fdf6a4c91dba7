#include "gpu_support.hpp"

#include <atomic>
#include <chrono>
#include <thread>

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;
using xcuda::rt::testing::saxpy_source;

using StreamTest = GpuTest;

TEST_F(StreamTest, EventsTimeWorkOnAStream) {
    auto m = load(build(saxpy_source));
    // 16M elements keep a GPU busy long enough to time; the CPU device emulates every thread
    // (under ASan, 10 such launches took 46 s), so it gets 64K.
    const int n = device().is_cpu() ? 1 << 16 : 1 << 24;
    DeviceBuffer x(n * sizeof(float)), y(n * sizeof(float));
    memset_d8(x.get(), 0, n * sizeof(float));
    memset_d8(y.get(), 0, n * sizeof(float));
    float a = 1.0f;
    CUdeviceptr px = x.get(), py = y.get();
    int count = n;
    void* params[] = {&a, &px, &py, &count};
    Stream s;
    Event start, end;
    start.record(s.handle());
    for (int i = 0; i < 10; ++i) launch(m.function("saxpy"), Dim3(n / 256), Dim3(256), 0, s.handle(), params);
    end.record(s.handle());
    const float ms = elapsed_ms(start, end);
    EXPECT_GT(ms, 0.0f);
    if (!device().is_cpu()) {
        EXPECT_LT(ms, 10000.0f);  // a GPU's time, not garbage
    }
    EXPECT_TRUE(end.query());
    EXPECT_TRUE(s.query());
}

TEST_F(StreamTest, TimingDisabledEventRefusesElapsedTime) {
    Event start(false), end(false);
    start.record();
    end.record();
    EXPECT_THROW(elapsed_ms(start, end), DriverError);
    EXPECT_FALSE(context_lost());
}

TEST_F(StreamTest, InterruptCheckAbandonsAWaitOnASpinningKernelWithinASecond) {
    auto m = load(build(saxpy_source));
    DeviceBuffer flag(sizeof(int));
    memset_d8(flag.get(), 0, sizeof(int));
    CUdeviceptr pflag = flag.get();
    void* params[] = {&pflag};
    Stream spinning, side;
    launch(m.function("spin"), Dim3(1), Dim3(1), 0, spinning.handle(), params);

    std::atomic<bool> interrupt{false};
    set_interrupt_check([&] { return interrupt.load(); });
    std::thread raiser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        interrupt = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(spinning.synchronize(), Interrupted);
    const auto waited = std::chrono::steady_clock::now() - t0;
    raiser.join();
    set_interrupt_check({});
    EXPECT_LT(waited, std::chrono::milliseconds(1200));
    if (device().is_cpu()) {
        // The CPU device stops the kernels it runs: the stream drains without the flag.
        spinning.synchronize();
        EXPECT_FALSE(context_lost());
        return;
    }
    EXPECT_FALSE(spinning.query());  // still running: the wait was abandoned, not the kernel

    // Release the kernel through a copy on another non-blocking stream, then wait normally.
    static const int one = 1;
    copy_to_device_async(flag.get(), &one, sizeof(int), side.handle());
    side.synchronize();
    spinning.synchronize();
    EXPECT_FALSE(context_lost());
}
