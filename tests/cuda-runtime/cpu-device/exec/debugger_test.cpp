// A debugger's launch on the engine: a thread stopped at a breakpoint's line while the rest of the
// launch waits, stepped over, into and out of a device function, its memory read, and the launch
// ended early by abort; a launch nobody armed a session for runs as ever.
#include "engine_harness.hpp"

#include <xcuda/cpu/debugger.hpp>

#include <chrono>
#include <cstring>
#include <future>
#include <thread>

namespace xcuda::cpu::testing {
namespace {

using State = DebugSession::State;

// Lines (the source starts with a newline): 3 r =, 4 return, 7 i =, 8 if, 9 t = scale(...), 10 y[i] =.
const char* const saxpy = R"(
__device__ float scale(float a, float v) {
    float r = a * v;
    return r;
}
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = scale(a, x[i]);
        y[i] = t + y[i];
    }
})";

// A launch run on its own thread while the test drives the session, as the Python debugger does.
struct DebugRun {
    Engine engine;
    std::shared_ptr<Module> module;
    std::shared_ptr<DebugSession> session = std::make_shared<DebugSession>("saxpy");
    std::uint64_t x = 0, y = 0;
    int n = 64;
    std::future<LaunchOutcome> done;

    DebugRun() {
        module = engine.load(saxpy, {"-G"});
        std::vector<float> xs(static_cast<std::size_t>(n)), ys(static_cast<std::size_t>(n), 1.0f);
        for (int k = 0; k < n; ++k) xs[static_cast<std::size_t>(k)] = static_cast<float>(k);
        x = engine.to_device(xs);
        y = engine.to_device(ys);
    }
    void start(Dim3 grid = {2, 1, 1}, Dim3 block = {32, 1, 1}) {
        arm_debug_session(session);
        done = std::async(std::launch::async, [this, grid, block] {
            return engine.launch(module, "saxpy", grid, block, 0, 2.0f, x, y, n);
        });
    }
    State wait() { return session->wait(10000); }
    int line() const { return session->frames().at(0).where.line; }
    std::vector<float> ys() { return engine.to_host<float>(y, static_cast<std::size_t>(n)); }
    ~DebugRun() {
        if (done.valid()) {
            session->abort();
            done.wait();
        }
        arm_debug_session(nullptr);
    }
};

TEST(Debugger, ABreakpointStopsTheFirstThreadToArriveAndHoldsTheRestOfTheLaunch) {
    DebugRun r;
    r.session->add_breakpoint("cell.cu", 10, {}, false);
    r.start();
    ASSERT_EQ(r.wait(), State::stopped);
    EXPECT_EQ(r.line(), 10);
    EXPECT_EQ(r.session->frames().at(0).function, "saxpy");
    const auto hits = r.session->hits();
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].second, 0xFFFFFFFFu);  // warp 0 of block 0 arrives together
    const DebugThread t = r.session->thread(0);
    EXPECT_EQ(t.block.x, 0u);
    EXPECT_EQ(t.thread.x, 0u);
    EXPECT_EQ(t.block_dim.x, 32u);
    EXPECT_EQ(t.grid_dim.x, 2u);
    EXPECT_EQ(t.active, 0xFFFFFFFFu);
    // Stopped before line 10 ran: no element of y has changed, in either block.
    EXPECT_EQ(r.ys(), std::vector<float>(64, 1.0f));
    r.session->follow(0);
    r.session->resume(DebugSession::Resume::run);
    // The followed thread reaches line 10 once: the launch runs to its end.
    EXPECT_EQ(r.wait(), State::finished);
    const LaunchOutcome out = r.done.get();
    EXPECT_EQ(out.status, CUDA_SUCCESS);
    EXPECT_FALSE(out.cancelled);
    EXPECT_EQ(r.ys()[5], 2.0f * 5 + 1.0f);
    EXPECT_EQ(r.ys()[63], 2.0f * 63 + 1.0f);
}

TEST(Debugger, AThreadSelectorStopsThatThreadOnly) {
    DebugRun r;
    ThreadSelector who;
    who.block[0] = 1;
    who.thread[0] = 5;
    r.session->add_breakpoint("cell.cu", 10, who, true);
    r.start();
    ASSERT_EQ(r.wait(), State::stopped);
    const auto hits = r.session->hits();
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].second, 1u << 5);
    const DebugThread t = r.session->thread(5);
    EXPECT_EQ(t.block.x, 1u);
    EXPECT_EQ(t.thread.x, 5u);
    // Block 0 ran to its end before block 1 started (one worker, blocks in order).
    EXPECT_EQ(r.ys()[0], 1.0f);  // 2 * 0 + 1
    EXPECT_EQ(r.ys()[31], 63.0f);
    EXPECT_EQ(r.ys()[37], 1.0f);  // thread 5 of block 1 is before its line 10
    r.session->resume(DebugSession::Resume::run);
    EXPECT_EQ(r.wait(), State::finished);
    EXPECT_EQ(r.done.get().status, CUDA_SUCCESS);
    EXPECT_EQ(r.ys()[37], 75.0f);
}

TEST(Debugger, StepOverStaysInTheKernelStepInEntersTheDeviceFunctionStepOutLeavesIt) {
    DebugRun r;
    r.session->add_breakpoint("cell.cu", 9, {}, false);
    r.start();
    ASSERT_EQ(r.wait(), State::stopped);
    ASSERT_EQ(r.line(), 9);
    r.session->follow(3);
    r.session->resume(DebugSession::Resume::step_in);
    ASSERT_EQ(r.wait(), State::stopped);
    auto frames = r.session->frames();
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[0].function, "_Z5scaleff");
    EXPECT_EQ(frames[1].function, "saxpy");
    EXPECT_EQ(frames[1].where.line, 9);  // the caller waits at its call
    ASSERT_TRUE(r.session->followed_lane().has_value());
    EXPECT_EQ(*r.session->followed_lane(), 3u);
    EXPECT_EQ(r.line(), 3);  // past the prologue (the parameters' loads, at line 2)
    r.session->resume(DebugSession::Resume::step_out);
    ASSERT_EQ(r.wait(), State::stopped);
    EXPECT_EQ(r.session->frames().size(), 1u);
    EXPECT_EQ(r.line(), 10);
    r.session->resume(DebugSession::Resume::step_over);
    ASSERT_EQ(r.wait(), State::stopped);
    EXPECT_EQ(r.session->frames().size(), 1u);
    EXPECT_GT(r.line(), 10);
    r.session->clear_breakpoints();
    r.session->resume(DebugSession::Resume::run);
    EXPECT_EQ(r.wait(), State::finished);
    EXPECT_EQ(r.done.get().status, CUDA_SUCCESS);
    EXPECT_EQ(r.ys()[40], 81.0f);
}

TEST(Debugger, TheStoppedThreadsParametersAndTheArrayTheyPointIntoCanBeRead) {
    DebugRun r;
    r.session->add_breakpoint("cell.cu", 10, {}, false);
    r.start();
    ASSERT_EQ(r.wait(), State::stopped);
    const auto a = r.session->read_variable(MemorySpace::param, "saxpy_param_0", 0, 4, 0, 0);
    ASSERT_TRUE(a.has_value());
    float av;
    std::memcpy(&av, a->data(), 4);
    EXPECT_EQ(av, 2.0f);
    const auto xp = r.session->read_variable(MemorySpace::param, "saxpy_param_1", 0, 8, 0, 0);
    ASSERT_TRUE(xp.has_value());
    std::uint64_t address;
    std::memcpy(&address, xp->data(), 8);
    EXPECT_EQ(address, r.x);
    const auto region = r.session->region_of(address + 12, 0);
    ASSERT_TRUE(region.has_value());
    EXPECT_EQ(region->base, r.x);
    EXPECT_EQ(region->size, 64u * 4);
    const auto element = r.session->read_memory(address + 3 * 4, 4, 0);
    ASSERT_TRUE(element.has_value());
    float ev;
    std::memcpy(&ev, element->data(), 4);
    EXPECT_EQ(ev, 3.0f);
    EXPECT_FALSE(r.session->read_memory(address + 63 * 4, 8, 0).has_value());  // past the allocation's end
    EXPECT_FALSE(r.session->read_variable(MemorySpace::param, "saxpy_param_1", 4, 8, 0, 0).has_value());
    EXPECT_FALSE(r.session->read_register(0, "%no_such_register", 0).has_value());
    EXPECT_TRUE(r.session->label_pc("$L__func_begin1").has_value() ||
                r.session->label_pc("$L__func_begin0").has_value());
    r.session->clear_breakpoints();
    r.session->resume(DebugSession::Resume::run);
    EXPECT_EQ(r.wait(), State::finished);
    r.done.get();
}

TEST(Debugger, AbortEndsTheLaunchAsACancelledOne) {
    DebugRun r;
    r.session->add_breakpoint("cell.cu", 8, {}, false);
    r.start();
    ASSERT_EQ(r.wait(), State::stopped);
    r.session->abort();
    const LaunchOutcome out = r.done.get();
    EXPECT_TRUE(out.cancelled);
    EXPECT_EQ(r.session->state(), State::finished);
    EXPECT_EQ(r.ys()[63], 1.0f);  // block 1 never ran
}

TEST(Debugger, ALaunchOfAnotherKernelOrOfCodeWithoutDebugInformationLeavesTheSessionArmed) {
    Engine e;
    auto plain = e.load(saxpy);  // -lineinfo only: no DWARF, nothing to stop by
    auto session = std::make_shared<DebugSession>("saxpy");
    session->add_breakpoint("", 0, {}, true);  // every line of every thread
    arm_debug_session(session);
    const auto x = e.to_device(std::vector<float>(32, 1.0f)), y = e.to_device(std::vector<float>(32, 1.0f));
    const LaunchOutcome out = e.launch(plain, "saxpy", {1, 1, 1}, {32, 1, 1}, 0, 2.0f, x, y, 32);
    EXPECT_EQ(out.status, CUDA_SUCCESS);
    EXPECT_EQ(session->state(), State::armed);
    EXPECT_EQ(e.to_host<float>(y, 32)[7], 3.0f);
    arm_debug_session(nullptr);
}

}  // namespace
}  // namespace xcuda::cpu::testing
