// Shared set-up of the GPU suites: skip visibly without a device, else one current primary context.
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
        if (!context()) context() = std::make_unique<PrimaryContext>(Device(0));
        context()->make_current();
    }
    static std::unique_ptr<PrimaryContext>& context() {
        static std::unique_ptr<PrimaryContext> ctx;
        return ctx;
    }
    static const Device& device() { return context()->device(); }
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
