// What the driver tests share: a fixture with the primary context current, modules of the fake
// engine (fake_engine.hpp), launches with u32/u64 arguments, and polling waits with a deadline (a
// test that would hang fails instead).
#pragma once

#include "fake_engine.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace xcuda::cpu::testing {

namespace drv = xcuda::cpu::driver;

// A kernel argument: the bytes of a u32 or u64 (or a device pointer).
struct Arg {
    Arg(std::uint32_t v) : u32(v), size(4) {}
    Arg(std::uint64_t v) : u64(v), size(8) {}
    std::uint32_t u32 = 0;
    std::uint64_t u64 = 0;
    unsigned size;
    void* address() { return size == 4 ? static_cast<void*>(&u32) : static_cast<void*>(&u64); }
};

inline const char* const test_module =
    "kernel noop\n"
    "kernel append params=4\n"
    "kernel store params=8,4\n"
    "kernel sleep params=4\n"
    "kernel gate params=4\n"
    "kernel fail\n"
    "kernel throw_up\n"
    "global counter 16\n";

// Polls until `done` holds or 10 s passed.
inline bool eventually(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return true;
}

// cuStreamQuery until it answers something other than CUDA_ERROR_NOT_READY (10 s at most).
inline CUresult wait_stream(CUstream s) {
    CUresult rc = CUDA_ERROR_NOT_READY;
    eventually([&] { return (rc = drv::cuStreamQuery(s)) != CUDA_ERROR_NOT_READY; });
    return rc;
}

inline CUresult wait_event(CUevent e) {
    CUresult rc = CUDA_ERROR_NOT_READY;
    eventually([&] { return (rc = drv::cuEventQuery(e)) != CUDA_ERROR_NOT_READY; });
    return rc;
}

class DriverTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(drv::cuInit(0), CUDA_SUCCESS);
        ASSERT_EQ(drv::cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
        ASSERT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_SUCCESS);
        fake_engine::reset();
        ASSERT_EQ(drv::cuModuleLoadDataEx(&module, test_module, 0, nullptr, nullptr), CUDA_SUCCESS);
    }

    // Whatever a test left running or failed must not leak into the next one.
    void TearDown() override {
        cancel_launches();
        (void)drv::cuCtxSynchronize();
        (void)take_failure();
        EXPECT_EQ(drv::cuModuleUnload(module), CUDA_SUCCESS);
        EXPECT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
    }

    CUfunction function(const char* name) const {
        CUfunction f = nullptr;
        EXPECT_EQ(drv::cuModuleGetFunction(&f, module, name), CUDA_SUCCESS) << name;
        return f;
    }

    static CUresult launch(CUfunction f, CUstream stream, std::vector<Arg> args = {}, unsigned grid = 1,
                           unsigned block = 1, unsigned shared = 0) {
        std::vector<void*> params;
        for (Arg& a : args) params.push_back(a.address());
        return drv::cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared, stream, params.data(), nullptr);
    }

    CUresult launch(const char* kernel, CUstream stream, std::vector<Arg> args = {}) const {
        return launch(function(kernel), stream, std::move(args));
    }

    CUdeviceptr alloc(std::size_t bytes) {
        CUdeviceptr p = 0;
        EXPECT_EQ(drv::cuMemAlloc(&p, bytes), CUDA_SUCCESS);
        return p;
    }

    CUcontext ctx = nullptr;
    CUmodule module = nullptr;
};

}  // namespace xcuda::cpu::testing
