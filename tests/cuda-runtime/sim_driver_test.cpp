// The driver side of the library against the simulated driver (sim_driver.cpp), run by ctest with
// XCUDA_CUDA_DRIVER naming it: limits, errors, sticky faults and interruptible waits on CI.
#include <xcuda/rt/runtime.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace xcuda::rt;

namespace {

template <class F>
F sim_symbol(const char* name) {
    const char* lib = std::getenv("XCUDA_CUDA_DRIVER");
    void* handle = lib != nullptr ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    return handle != nullptr ? reinterpret_cast<F>(dlsym(handle, name)) : nullptr;
}

long driver_calls() { return sim_symbol<long (*)()>("xcuda_sim_driver_calls")(); }
void release_kernels() { sim_symbol<void (*)()>("xcuda_sim_release")(); }
long device_frees() { return sim_symbol<long (*)()>("xcuda_sim_device_frees")(); }
std::string last_launch() { return sim_symbol<const char* (*)()>("xcuda_sim_last_launch")(); }

class SimDriverTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(driver_available()) << driver_unavailable_reason();
        ASSERT_NE(sim_symbol<long (*)()>("xcuda_sim_driver_calls"), nullptr)
            << "run through ctest, which points XCUDA_CUDA_DRIVER at the simulated driver";
        context_ = std::make_unique<PrimaryContext>(Device(0));
        context_->make_current();
        module_ = std::make_unique<Module>(Module::from_cubin("saxpy spin wild trap bounded"));
    }
    void TearDown() override { set_interrupt_check({}); }
    std::unique_ptr<PrimaryContext> context_;
    std::unique_ptr<Module> module_;
};

// Lets spinning kernels finish 50 ms from now, on another thread: a wait that returns before
// released() is true did not wait for them.
class ReleaseKernelsSoon {
public:
    ReleaseKernelsSoon()
        : thread_([this] {
              std::this_thread::sleep_for(std::chrono::milliseconds(50));
              released_ = true;
              release_kernels();
          }) {}
    ~ReleaseKernelsSoon() { thread_.join(); }
    bool released() const { return released_.load(); }

private:
    std::atomic<bool> released_{false};
    std::thread thread_;
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_F(SimDriverTest, DevicePropertiesComeFromTheDriver) {
    const auto& p = Device(0).properties();
    EXPECT_EQ(p.name, "xcuda simulated device");
    EXPECT_EQ(p.arch, "sm_90");
    EXPECT_EQ(p.sm_count, 132);
    EXPECT_EQ(p.max_block_dims, Dim3(1024, 1024, 64));
    EXPECT_EQ(default_arch(), "sm_90");
    EXPECT_THROW(Device(3), DriverError);
}

TEST_F(SimDriverTest, PrintfFifoIsSizedAtTheFirstRetain) {
    auto fifo = context_->printf_fifo();
    EXPECT_TRUE(fifo.set) << fifo.why_not;
    EXPECT_EQ(fifo.bytes, printf_fifo_size_requested());
    EXPECT_EQ(fifo.bytes, std::size_t{64} << 20);
}

TEST_F(SimDriverTest, LaunchLimitsAreCheckedBeforeTheDriverAndNamed) {
    void* params[1] = {};
    const long before = driver_calls();
    try {
        launch(module_->function("saxpy"), Dim3(1), Dim3(2048), 0, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_STREQ(e.what(), "block (2048,1,1) has 2048 threads; this device allows at most 1024 per block");
    }
    try {
        launch(module_->function("saxpy"), Dim3(1, 70000), Dim3(32), 0, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(), "grid (1,70000,1) has y = 70000; this device allows at most 65535 in y"))
            << e.what();
    }
    EXPECT_THROW(launch(module_->function("saxpy"), Dim3(1), Dim3(0), 0, nullptr, params), LaunchError);
    try {
        launch(module_->function("bounded"), Dim3(1), Dim3(512), 0, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(), "kernel bounded can run at most 256 per block")) << e.what();
    }
    EXPECT_GT(driver_calls(), before);  // attribute queries, but no launch reached the driver
    EXPECT_FALSE(context_lost());
    EXPECT_NO_THROW(launch(module_->function("saxpy"), Dim3(4), Dim3(256), 0, nullptr, params));
}

TEST_F(SimDriverTest, DynamicSharedMemoryAbove48KiBRaisesTheKernelLimitUpToTheOptInMaximum) {
    void* params[1] = {};
    auto f = module_->function("saxpy");
    EXPECT_EQ(f.attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 49152);
    EXPECT_NO_THROW(launch(f, Dim3(1), Dim3(32), 100 * 1024, nullptr, params));
    EXPECT_EQ(f.attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 100 * 1024);
    EXPECT_EQ(last_launch(), "cuLaunchKernel saxpy grid=(1,1,1) block=(32,1,1) shared=102400");
    EXPECT_NO_THROW(launch(f, Dim3(1), Dim3(32), 232448, nullptr, params));
    try {
        launch(f, Dim3(1), Dim3(32), 232449, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(),
                             "at most 232448 bytes (the device's opt-in maximum of 232448 bytes per block, "
                             "less the 0 bytes of static shared memory"))
            << e.what();
    }
}

TEST_F(SimDriverTest, TheOptInMaximumLeavesRoomForStaticSharedMemory) {
    void* params[1] = {};
    Module m = Module::from_ptx("staticsmem");
    auto f = m.function("staticsmem");
    EXPECT_NO_THROW(launch(f, Dim3(1), Dim3(32), 232448 - 16384, nullptr, params));
    try {
        launch(f, Dim3(1), Dim3(32), 232448 - 16383, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(), "at most 216064 bytes")) << e.what();
        EXPECT_TRUE(contains(e.what(), "less the 16384 bytes of static shared memory")) << e.what();
    }
}

TEST_F(SimDriverTest, CooperativeLaunchesGoThroughLaunchKernelExWithTheAttribute) {
    void* params[1] = {};
    auto f = module_->function("saxpy");
    LaunchOptions o;
    o.cooperative = true;
    // The simulator fits 8 blocks of 256 threads per SM, 132 SMs.
    launch(f, Dim3(1056), Dim3(256), 0, nullptr, params, o);
    EXPECT_EQ(last_launch(), "cuLaunchKernelEx saxpy grid=(1056,1,1) block=(256,1,1) shared=0 cooperative=1");
    const long before = driver_calls();
    try {
        launch(f, Dim3(1057), Dim3(256), 0, nullptr, params, o);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(),
                             "grid (1057,1,1) has 1057 blocks but at most 1056 can be resident at once "
                             "(8 per SM x 132 SMs"))
            << e.what();
        EXPECT_TRUE(contains(e.what(), "use a grid of at most 1056 blocks")) << e.what();
    }
    EXPECT_EQ(last_launch(), "cuLaunchKernelEx saxpy grid=(1056,1,1) block=(256,1,1) shared=0 cooperative=1");
    EXPECT_GT(driver_calls(), before);  // the occupancy query
}

TEST_F(SimDriverTest, AKernelThatSynchronisesItsGridIsLaunchedCooperativelyHoweverItIsCalled) {
    // A GPU fails a plain launch of it (CUDA_ERROR_LAUNCH_FAILED, the context lost: probe
    // grid_sync_plain.py on an H100); the CPU device runs it cooperatively. Both agree so.
    Module m = Module::from_ptx(".visible .entry gridsum(.param .u64 a)\n{\n\tmov.u32 %r1, %envreg1;\n\tret;\n}\n");
    auto f = m.function("gridsum");
    EXPECT_TRUE(f.syncs_grid());
    void* params[1] = {};
    launch(f, Dim3(1056), Dim3(256), 0, nullptr, params, LaunchOptions{});
    EXPECT_EQ(last_launch(), "cuLaunchKernelEx gridsum grid=(1056,1,1) block=(256,1,1) shared=0 cooperative=1");
    try {
        launch(f, Dim3(1057), Dim3(256), 0, nullptr, params, LaunchOptions{});
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(), "kernel gridsum synchronises its whole grid")) << e.what();
        EXPECT_TRUE(contains(e.what(), "grid (1057,1,1) has 1057 blocks but at most 1056 can be resident")) << e.what();
    }
}

TEST_F(SimDriverTest, PlainLaunchesStayOnLaunchKernel) {
    void* params[1] = {};
    launch(module_->function("saxpy"), Dim3(2), Dim3(64), 0, nullptr, params, LaunchOptions{});
    EXPECT_EQ(last_launch(), "cuLaunchKernel saxpy grid=(2,1,1) block=(64,1,1) shared=0");
}

TEST_F(SimDriverTest, ClusterLaunchesCheckTheGridAndTheClusterSize) {
    void* params[1] = {};
    auto f = module_->function("saxpy");
    LaunchOptions o;
    o.cluster = Dim3(2, 1, 1);
    launch(f, Dim3(8, 2), Dim3(128), 0, nullptr, params, o);
    EXPECT_EQ(last_launch(), "cuLaunchKernelEx saxpy grid=(8,2,1) block=(128,1,1) shared=0 cluster=(2,1,1)");
    o.cluster = Dim3(4, 1, 1);
    try {
        launch(f, Dim3(10), Dim3(128), 0, nullptr, params, o);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_STREQ(e.what(),
                     "grid (10,1,1) is not a whole number of clusters (4,1,1): x = 10 is not a multiple of "
                     "4; use a grid of 12 in x");
    }
    o.cluster = Dim3(16, 1, 1);
    try {
        launch(f, Dim3(16), Dim3(128), 0, nullptr, params, o);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(), "cannot run clusters of 16 blocks")) << e.what();
        EXPECT_TRUE(contains(e.what(), "non_portable_cluster_size_allowed")) << e.what();
    }
    f.set_attribute(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    EXPECT_NO_THROW(launch(f, Dim3(16), Dim3(128), 0, nullptr, params, o));
    o.cluster = Dim3(32, 1, 1);
    try {
        launch(f, Dim3(32), Dim3(32), 0, nullptr, params, o);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(), "refused by the driver (CUDA_ERROR_INVALID_CLUSTER_SIZE")) << e.what();
    }
}

TEST_F(SimDriverTest, AKernelWithCompiledClusterDimsTakesOnlyThoseClusters) {
    void* params[1] = {};
    Module m = Module::from_ptx("clustered");
    auto f = m.function("clustered");
    LaunchOptions o;
    o.cluster = Dim3(4, 1, 1);
    try {
        launch(f, Dim3(8), Dim3(32), 0, nullptr, params, o);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_TRUE(contains(e.what(), "requires clusters of (2,1,1)")) << e.what();
    }
    o.cluster = Dim3(2, 1, 1);
    EXPECT_NO_THROW(launch(f, Dim3(8), Dim3(32), 0, nullptr, params, o));
    try {
        f.set_attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4);
        FAIL();
    } catch (const DriverError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_NOT_PERMITTED);
        EXPECT_TRUE(contains(e.what(), "REQUIRED_CLUSTER_WIDTH=4 for clustered")) << e.what();
    }
}

TEST_F(SimDriverTest, ModuleVariablesAreFoundWithTheirSize) {
    Module m = Module::from_ptx(".version 8.8\n.const .align 4 .b8 coeffs[64];\n.global .align 4 .u32 counter = 5;\n");
    const DeviceSymbol c = m.global("coeffs");
    EXPECT_NE(c.ptr, 0u);
    EXPECT_EQ(c.bytes, 64u);
    EXPECT_EQ(m.global("counter").bytes, 4u);
    EXPECT_EQ(m.global("coeffs").ptr, c.ptr);
    try {
        m.global("absent");
        FAIL();
    } catch (const DriverError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_NOT_FOUND);
        EXPECT_TRUE(contains(e.what(), "no __device__ or __constant__ variable named 'absent'")) << e.what();
    }
}

TEST_F(SimDriverTest, OutOfMemoryIsNotStickyAndNamesTheSize) {
    try {
        DeviceBuffer huge(std::size_t{1} << 50);
        FAIL();
    } catch (const OutOfMemoryError& e) {
        EXPECT_TRUE(contains(
            e.what(), "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory: allocating 1125899906842624 bytes"))
            << e.what();
    }
    EXPECT_FALSE(context_lost());
    DeviceBuffer ok(64);
    EXPECT_NE(ok.get(), 0u);
}

TEST_F(SimDriverTest, CopiesAndMemsetGoThroughTheDriver) {
    DeviceBuffer a(16), b(16);
    const char in[16] = "fifteen chars!!";
    char out[16] = {};
    copy_to_device(a.get(), in, 16);
    copy_device_to_device(b.get(), a.get(), 16);
    copy_to_host(out, b.get(), 16);
    EXPECT_STREQ(out, in);
    memset_d8(b.get(), 'x', 3);
    copy_to_host(out, b.get(), 16);
    EXPECT_EQ(std::string(out, 4), "xxxt");
}

TEST_F(SimDriverTest, ModuleErrorsCarryTheJitLogAndTheMissingName) {
    try {
        Module::from_ptx("bad ptx");
        FAIL();
    } catch (const DriverError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_INVALID_PTX);
        EXPECT_TRUE(contains(e.what(), "JIT log: ptxas fatal: bad image")) << e.what();
    }
    try {
        module_->function("absent");
        FAIL();
    } catch (const DriverError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_NOT_FOUND);
        EXPECT_TRUE(contains(e.what(), "'absent'")) << e.what();
    }
}

TEST_F(SimDriverTest, OccupancyAndAttributesAreForwarded) {
    auto f = module_->function("saxpy");
    EXPECT_EQ(f.max_active_blocks_per_sm(256), 8);
    EXPECT_EQ(f.suggested_block_size(0, 128).block_size, 128);
    EXPECT_EQ(f.attributes().num_regs, 10);
    EXPECT_EQ(f.attributes().max_threads_per_block, 1024);
}

TEST_F(SimDriverTest, EventsTimeAndTimingDisabledEventsAreRefused) {
    Event a, b;
    a.record();
    b.record();
    EXPECT_FLOAT_EQ(elapsed_ms(a, b), 1.5f);
    Event c(false), d(false);
    c.record();
    d.record();
    EXPECT_THROW(elapsed_ms(c, d), DriverError);
}

TEST_F(SimDriverTest, InterruptAbandonsWaitsOnARunningKernel) {
    CUdeviceptr flag = 0;
    void* params[] = {&flag};
    Stream s;
    launch(module_->function("spin"), Dim3(1), Dim3(1), 0, s.handle(), params);
    EXPECT_FALSE(s.query());
    // Causality, not wall-clock guesses (a loaded CI machine delays any thread): the waits end
    // only once the check says so, and within a second of that.
    std::atomic<bool> interrupt{false};
    std::atomic<std::chrono::steady_clock::rep> raised_at{0};
    set_interrupt_check([&] { return interrupt.load(); });
    std::thread raiser([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        raised_at = std::chrono::steady_clock::now().time_since_epoch().count();
        interrupt = true;
    });
    EXPECT_THROW(s.synchronize(), Interrupted);
    EXPECT_TRUE(interrupt.load());
    EXPECT_THROW(synchronize_current_context(), Interrupted);  // the context-wide wait polls too
    const auto after = std::chrono::steady_clock::now().time_since_epoch().count();
    raiser.join();
    EXPECT_LT(std::chrono::steady_clock::duration(after - raised_at.load()), std::chrono::milliseconds(1000));
    EXPECT_FALSE(context_lost());
    release_kernels();
    set_interrupt_check({});
    EXPECT_NO_THROW(s.synchronize());
    EXPECT_NO_THROW(context_->synchronize());
}

TEST_F(SimDriverTest, WorkAnInterruptLeftRunningKeepsTheFreesThatWouldWaitForItUntilItEnds) {
    // The driver's cuMemFree, cuModuleUnload... wait for the device, uninterruptibly (the
    // simulator models it: they block while "spin" runs). After an interrupted wait they are kept.
    Stream s;
    launch(module_->function("spin"), Dim3(1), Dim3(1), 0, s.handle(), nullptr);
    set_interrupt_check([] { return true; });
    EXPECT_THROW(s.synchronize(), Interrupted);
    set_interrupt_check({});
    EXPECT_TRUE(interrupted_work_running());
    const long frees = device_frees();
    { DeviceBuffer dropped(64); }  // would block forever here without the marks
    EXPECT_EQ(device_frees(), frees);
    EXPECT_TRUE(interrupted_work_running());
    release_kernels();
    EXPECT_FALSE(interrupted_work_running());
    EXPECT_EQ(device_frees(), frees + 1);  // done once the work ended
    { DeviceBuffer after(64); }
    EXPECT_EQ(device_frees(), frees + 2);  // and later frees happen at once
}

TEST_F(SimDriverTest, SyncCopiesBehindARunningKernelAreInterruptible) {
    DeviceBuffer buf(16);
    char host[16] = {};
    Stream blocking(false);
    launch(module_->function("spin"), Dim3(1), Dim3(1), 0, blocking.handle(), nullptr);
    set_interrupt_check([] { return true; });
    EXPECT_THROW(copy_to_device(buf.get(), host, 16), Interrupted);
    EXPECT_THROW(copy_to_host(host, buf.get(), 16), Interrupted);
    EXPECT_THROW(memset_d8(buf.get(), 0, 16), Interrupted);
    release_kernels();
    EXPECT_NO_THROW(copy_to_device(buf.get(), host, 16));
}

TEST_F(SimDriverTest, ReadBacksAroundThePinnedLimitAreExact) {
    // Up to the limit through the pinned bounce buffer, above it the pageable way: both exact.
    Stream s(true);
    for (std::size_t bytes :
         {std::size_t{1}, pinned_readback_bytes - 1, pinned_readback_bytes, pinned_readback_bytes + 1}) {
        std::vector<unsigned char> in(bytes), out(bytes, 0), out_after(bytes, 0);
        for (std::size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(i * 7 + bytes);
        DeviceBuffer buf(bytes);
        copy_to_device(buf.get(), in.data(), bytes);
        copy_to_host(out.data(), buf.get(), bytes);
        copy_to_host_after(out_after.data(), buf.get(), bytes, s.handle());
        EXPECT_EQ(out, in) << bytes << " bytes";
        EXPECT_EQ(out_after, in) << bytes << " bytes after a stream";
    }
}

TEST_F(SimDriverTest, ASmallReadBackWaitsForItsStream) {
    Stream s(true);
    DeviceBuffer buf(16);
    char host[16] = {};
    launch(module_->function("spin"), Dim3(1), Dim3(1), 0, s.handle(), nullptr);
    ReleaseKernelsSoon releaser;
    copy_to_host_after(host, buf.get(), sizeof host, s.handle());
    EXPECT_TRUE(releaser.released()) << "the read-back returned while its stream still ran";
}

TEST_F(SimDriverTest, AnInterruptedSmallReadBackLeavesTheNextOneWorking) {
    DeviceBuffer buf(16);
    const char want[16] = "fifteen chars!!";
    copy_to_device(buf.get(), want, sizeof want);
    Stream s(true);
    launch(module_->function("spin"), Dim3(1), Dim3(1), 0, s.handle(), nullptr);
    set_interrupt_check([] { return true; });
    char host[16] = {};
    EXPECT_THROW(copy_to_host_after(host, buf.get(), sizeof host, s.handle()), Interrupted);
    set_interrupt_check({});
    release_kernels();
    char again[16] = {};
    copy_to_host_after(again, buf.get(), sizeof again, s.handle());
    EXPECT_STREQ(again, want);
}

long host_allocations() { return sim_symbol<long (*)()>("xcuda_sim_host_allocations")(); }

std::vector<unsigned char> pattern(std::size_t bytes, unsigned seed) {
    std::vector<unsigned char> v(bytes);
    for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>(i * 31 + i / 4093 + seed);
    return v;
}

TEST_F(SimDriverTest, StagedCopiesOfSeveralSpansAroundTheChunkSizeAreExact) {
    // The simulator does a pinned DMA only when something waits for its stream: a chunk reused
    // before its DMA finished would show here as another chunk's bytes.
    const std::size_t chunk = staged_copy_chunk_bytes;
    const std::vector<std::size_t> sizes = {1, chunk - 1, chunk, chunk + 1, 2 * chunk + 3, 5 * chunk + 7};
    std::vector<std::vector<unsigned char>> in, out;
    std::vector<DeviceBuffer> device;
    std::vector<HostDeviceSpan> to_device, to_host;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        in.push_back(pattern(sizes[k], static_cast<unsigned>(k)));
        out.emplace_back(sizes[k], 0);
        device.emplace_back(sizes[k]);
    }
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        to_device.push_back({in[k].data(), device[k].get(), sizes[k]});
        to_host.push_back({out[k].data(), device[k].get(), sizes[k]});
    }
    Stream s(true);
    ASSERT_TRUE(copy_to_device_staged(to_device, s.handle()));
    ASSERT_TRUE(copy_to_host_staged(to_host, s.handle()));
    for (std::size_t k = 0; k < sizes.size(); ++k) EXPECT_EQ(out[k], in[k]) << sizes[k] << " bytes";
}

TEST_F(SimDriverTest, StagedCopiesKeepTheirPinnedMemory) {
    std::vector<unsigned char> in = pattern(3 * staged_copy_chunk_bytes + 5, 1), out(in.size());
    DeviceBuffer buf(in.size());
    ASSERT_TRUE(copy_to_device_staged({{in.data(), buf.get(), in.size()}}, nullptr));
    const long before = host_allocations();
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(copy_to_device_staged({{in.data(), buf.get(), in.size()}}, nullptr));
        ASSERT_TRUE(copy_to_host_staged({{out.data(), buf.get(), out.size()}}, nullptr));
    }
    EXPECT_EQ(host_allocations(), before) << "a staged copy allocated pinned memory again";
    EXPECT_EQ(out, in);
}

TEST_F(SimDriverTest, AnInterruptedStagedCopyBackGivesUpItsPinnedMemoryAndTheNextOneWorks) {
    std::vector<unsigned char> in = pattern(2 * staged_copy_chunk_bytes + 1, 2), out(in.size(), 0);
    DeviceBuffer buf(in.size());
    ASSERT_TRUE(copy_to_device_staged({{in.data(), buf.get(), in.size()}}, nullptr));
    Stream s(true);
    launch(module_->function("spin"), Dim3(1), Dim3(1), 0, s.handle(), nullptr);
    set_interrupt_check([] { return true; });
    EXPECT_THROW(copy_to_host_staged({{out.data(), buf.get(), out.size()}}, s.handle()), Interrupted);
    set_interrupt_check({});
    const long before = host_allocations();
    release_kernels();
    // The abandoned chunks' DMAs may still land: the next copy takes new pinned memory.
    ASSERT_TRUE(copy_to_host_staged({{out.data(), buf.get(), out.size()}}, s.handle()));
    EXPECT_EQ(host_allocations(), before + 1);
    EXPECT_EQ(out, in);
}

TEST_F(SimDriverTest, StagedCopiesDeclineWhenPinnedMemoryIsOut) {
    // In a fresh process (a re-executed death-test child): this one may already hold its chunks.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            sim_symbol<void (*)(int)>("xcuda_sim_fail_host_allocations")(1);
            std::vector<unsigned char> in = pattern(staged_copy_chunk_bytes + 1, 3);
            DeviceBuffer buf(in.size());
            const bool staged = copy_to_device_staged({{in.data(), buf.get(), in.size()}}, nullptr);
            std::exit(staged ? 1 : 0);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST_F(SimDriverTest, ContextWideWaitCoversNonBlockingStreams) {
    Stream s(true);
    launch(module_->function("spin"), Dim3(1), Dim3(1), 0, s.handle(), nullptr);
    ReleaseKernelsSoon releaser;
    synchronize_current_context();
    EXPECT_TRUE(releaser.released()) << "the context-wide wait returned while the non-blocking stream still ran";
}

// Sticky faults poison the process: each runs in a re-executed death-test child.
TEST_F(SimDriverTest, IllegalAddressIsContextLostAndLaterCallsFailFastWithoutTheDriver) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            launch(module_->function("wild"), Dim3(1), Dim3(32), 0, nullptr, nullptr);
            int code = 0;
            try {
                synchronize_current_context();
            } catch (const ContextLostError& e) {
                code = e.code() == CUDA_ERROR_ILLEGAL_ADDRESS && contains(e.what(), "restart the kernel") &&
                               contains(e.what(), "the last kernel launched was wild")
                           ? 0
                           : 3;
            }
            if (code != 0 || !context_lost()) std::exit(4);
            const long calls = driver_calls();
            const auto t0 = std::chrono::steady_clock::now();
            int thrown = 0;
            try {
                DeviceBuffer b(16);
            } catch (const ContextLostError&) {
                ++thrown;
            }
            try {
                Stream s;
            } catch (const ContextLostError&) {
                ++thrown;
            }
            try {
                module_->function("saxpy");
            } catch (const ContextLostError&) {
                ++thrown;
            }
            try {
                Module::from_cubin("saxpy");
            } catch (const ContextLostError&) {
                ++thrown;
            }
            try {
                context_->synchronize();
            } catch (const ContextLostError& e) {
                thrown += e.code() == CUDA_ERROR_ILLEGAL_ADDRESS ? 1 : 0;
            }
            try {
                Device(0).attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
            } catch (const ContextLostError&) {
                ++thrown;
            }
            const bool fast = std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(100);
            std::exit(thrown == 6 && fast && driver_calls() == calls ? 0 : 5);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST_F(SimDriverTest, TrapIsContextLostWithLaunchFailed) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            Stream s;
            launch(module_->function("trap"), Dim3(1), Dim3(1), 0, s.handle(), nullptr);
            try {
                s.synchronize();
            } catch (const ContextLostError& e) {
                std::exit(e.code() == CUDA_ERROR_LAUNCH_FAILED ? 0 : 3);
            }
            std::exit(4);
        },
        ::testing::ExitedWithCode(0), "");
}
