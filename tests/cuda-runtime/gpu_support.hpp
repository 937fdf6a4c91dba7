// Shared set-up of the suites that launch: skip visibly without a device, else one current primary
// context on the device that runs by default (a GPU; without one, the CPU device: $XCUDA_DEVICE).
#pragma once

#include <xcuda/rt/runtime.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace xcuda::rt::testing {

class GpuTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!driver_available()) {
            GTEST_SKIP() << "no CUDA device: " << driver_unavailable_reason();
        }
        if (!context()) context() = std::make_unique<PrimaryContext>(Device(default_device_ordinal()));
        context()->make_current();
    }
    static std::unique_ptr<PrimaryContext>& context() {
        static std::unique_ptr<PrimaryContext> ctx;
        return ctx;
    }
    static const Device& device() { return context()->device(); }
    // What the device runs of a compile: the CUBIN on a GPU, the PTX on the CPU device.
    static Module load(const CompileResult& r) { return Module::from_image(r.ptx, r.cubin); }
    // Compiled for the current device (empty arch).
    static CompileResult build(const std::string& source, std::vector<std::string> names = {}) {
        CompileOptions o;
        o.program_name = "test.cu";
        o.name_expressions = std::move(names);
        return compile(source, o);
    }
};

inline const char* const saxpy_source = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
// Spins until *flag != 0; gives up after ~20 s of clock cycles so a failed test cannot wedge the GPU.
extern "C" __global__ void spin(volatile int* flag) {
    long long start = clock64();
    while (*flag == 0 && clock64() - start < 40000000000LL) { }
}
)";

}  // namespace xcuda::rt::testing
