// Hardware counters and PC sampling through CUPTI. The host API (chips, metric names) needs no
// GPU and runs on CI; the collections run on the GPU machine and skip elsewhere.
#include "gpu_support.hpp"

#include <xcuda/rt/counters.hpp>
#include <xcuda/rt/cubin.hpp>
#include <xcuda/rt/pc_sampling.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;

namespace {

// CUPTI ships with the toolkit these tests were built with; a machine without it skips, visibly.
// So does the sanitizer build: CUPTI dlopens libnvperf_host.so with RTLD_DEEPBIND, which
// AddressSanitizer's runtime refuses (it aborts the process).
#if defined(__SANITIZE_ADDRESS__)
#define SKIP_WITHOUT_CUPTI(expr) \
    GTEST_SKIP() << "CUPTI loads libnvperf_host.so with RTLD_DEEPBIND, which AddressSanitizer cannot run"
#else
#define SKIP_WITHOUT_CUPTI(expr)                                  \
    try {                                                         \
        expr;                                                     \
    } catch (const ProfilerUnavailable& e) {                      \
        if (e.why() != ProfilerUnavailable::Why::no_cupti) throw; \
        GTEST_SKIP() << "no CUPTI: " << e.what();                 \
    }
#endif

}  // namespace

TEST(ProfilerHost, KnowsHopperAndItsDramMetricsWithoutAGpu) {
    std::vector<std::string> chips;
    SKIP_WITHOUT_CUPTI(chips = supported_chips());
    EXPECT_NE(std::find(chips.begin(), chips.end(), "GH100"), chips.end());
    const auto metrics = base_metrics("GH100");
    EXPECT_NE(std::find(metrics.begin(), metrics.end(), "dram__bytes_read"), metrics.end());
    const MetricDescription d = describe_metric("GH100", "dram__bytes_read.sum");
    EXPECT_EQ(d.unit, "byte");
    EXPECT_FALSE(d.description.empty());
}

TEST(ProfilerHost, AnUnknownMetricIsAnInvalidArgumentNamingIt) {
    SKIP_WITHOUT_CUPTI(supported_chips());
    try {
        describe_metric("GH100", "dram__bytez_read.sum");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'dram__bytez_read.sum' is not a metric of GH100"), std::string::npos)
            << e.what();
    }
}

TEST(ProfilerHost, AnUnknownChipIsAnInvalidArgumentNamingIt) {
    SKIP_WITHOUT_CUPTI(supported_chips());
    try {
        base_metrics("GX999");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'GX999'"), std::string::npos) << e.what();
    }
}

namespace {

const char* const profiled_source = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void chain(float* out, int steps) {
    float v = threadIdx.x;
    for (int s = 0; s < steps; ++s) v = v * 1.0001f + 0.5f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
)";

class ProfilerTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped()) return;
        if (device().is_cpu())
            GTEST_SKIP() << "hardware counters and PC sampling read NVIDIA's GPU through CUPTI; "
                            "this run uses the CPU device ("
                         << gpu_unavailable_reason() << ")";
        CompileOptions o;
        o.program_name = "profiled.cu";
        o.options = {"-lineinfo"};
        built_ = compile(profiled_source, o);
        module_ = std::make_unique<Module>(load(built_));
    }
    void saxpy(DeviceBuffer& x, DeviceBuffer& y, int n) const {
        float a = 2.0f;
        CUdeviceptr px = x.get(), py = y.get();
        void* params[] = {&a, &px, &py, &n};
        launch(module_->function("saxpy"), Dim3((n + 255) / 256), Dim3(256), 0, nullptr, params);
    }
    void chain(DeviceBuffer& out, int blocks, int steps) const {
        CUdeviceptr p = out.get();
        void* params[] = {&p, &steps};
        launch(module_->function("chain"), Dim3(blocks), Dim3(256), 0, nullptr, params);
    }
    CompileResult built_;
    std::unique_ptr<Module> module_;
};

}  // namespace

TEST_F(ProfilerTest, SaxpyReadsTwoArraysWritesOneAndDoesOneFmaPerElement) {
    const int n = 1 << 26;  // 256 MiB per array: far beyond the L2, so DRAM sees every byte
    DeviceBuffer x(std::size_t(n) * 4), y(std::size_t(n) * 4);
    const std::vector<std::string> metrics = {"dram__bytes_read.sum", "dram__bytes_write.sum",
                                              "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                              "gpu__time_duration.sum"};
    CounterCollection c;
    SKIP_WITHOUT_CUPTI(c = collect_counters(*context(), metrics, 8, [&] { saxpy(x, y, n); }));
    ASSERT_EQ(c.kernels.size(), 1u);
    const auto& v = c.kernels[0].values;
    const double bytes = double(n) * 4;
    EXPECT_NEAR(v[0], 2 * bytes, 0.05 * 2 * bytes);
    // Up to the last few MiB of writes can still sit in the L2 when the kernel ends (ncu saw
    // 93% of them reach DRAM on the H200).
    EXPECT_GT(v[1], 0.85 * bytes);
    EXPECT_LT(v[1], 1.05 * bytes);
    EXPECT_EQ(v[2], double(n));
    EXPECT_GT(v[3], 0.0);
    EXPECT_GE(c.passes, 1u);
}

TEST_F(ProfilerTest, EachKernelLaunchedIsItsOwnRangeInLaunchOrder) {
    DeviceBuffer x(1 << 22), y(1 << 22), out(256 * 4 * 4);
    CounterCollection c;
    SKIP_WITHOUT_CUPTI(
        c = collect_counters(*context(), {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"}, 8, [&] {
            saxpy(x, y, 1 << 18);
            chain(out, 4, 100);
            saxpy(x, y, 1 << 20);
        }));
    ASSERT_EQ(c.kernels.size(), 3u);
    EXPECT_EQ(c.kernels[0].values[0], double(1 << 18));
    EXPECT_EQ(c.kernels[1].values[0], 4.0 * 256 * 100);  // v * 1.0001f + 0.5f: one FMA a step
    EXPECT_EQ(c.kernels[2].values[0], double(1 << 20));
}

TEST_F(ProfilerTest, LaunchesBeyondMaxKernelsAreNotMeasured) {
    DeviceBuffer out(256 * 4 * 4);
    CounterCollection c;
    SKIP_WITHOUT_CUPTI(c = collect_counters(*context(), {"gpu__time_duration.sum"}, 2, [&] {
                           for (int i = 0; i < 3; ++i) chain(out, 1, 10);
                       }));
    EXPECT_EQ(c.kernels.size(), 2u);  // CUPTI reports no dropped range for the third (seen on the H200)
}

TEST_F(ProfilerTest, AnErrorInTheWorkPropagatesAndTheNextCollectionWorks) {
    DeviceBuffer out(256 * 4);
    SKIP_WITHOUT_CUPTI(supported_chips());
    EXPECT_THROW(collect_counters(*context(), {"gpu__time_duration.sum"}, 4,
                                  [&] {
                                      chain(out, 1, 10);
                                      throw std::runtime_error("the cell failed");
                                  }),
                 std::runtime_error);
    const auto c = collect_counters(*context(), {"gpu__time_duration.sum"}, 4, [&] { chain(out, 1, 10); });
    EXPECT_EQ(c.kernels.size(), 1u);
}

TEST_F(ProfilerTest, ABadMetricNameFailsBeforeTheWorkRuns) {
    SKIP_WITHOUT_CUPTI(supported_chips());
    bool ran = false;
    EXPECT_THROW(collect_counters(*context(), {"no_such__metric.sum"}, 4, [&] { ran = true; }), std::invalid_argument);
    EXPECT_FALSE(ran);
}

TEST_F(ProfilerTest, PcSamplesOfALongLoopLandOnTheLoopsLine) {
    DeviceBuffer out(std::size_t(1024) * 256 * 4);
    PcSamples s;
    SKIP_WITHOUT_CUPTI(s = sample_pcs(*context(), [&] { chain(out, 1024, 200000); }));
    ASSERT_FALSE(s.pcs.empty());
    EXPECT_GT(s.total_samples, 0u);
    std::map<unsigned, std::uint64_t> by_line;
    for (const auto& pc : s.pcs) {
        EXPECT_EQ(pc.function, "chain");
        if (auto line = source_line(built_.cubin, pc.function, pc.pc_offset)) by_line[line->line] += pc.samples();
    }
    ASSERT_FALSE(by_line.empty()) << "no sampled PC had line information";
    const auto hottest = std::max_element(by_line.begin(), by_line.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    EXPECT_EQ(hottest->first, 8u);  // the for loop of chain, line 8 of profiled_source
    EXPECT_EQ(cubin_crc(built_.cubin), s.pcs.front().cubin_crc);
}

TEST(Cubin, FindsAKernelsMachineCodeAndNothingForAnUnknownName) {
    CompileOptions o;
    o.arch = "sm_90";
    const CompileResult plain = compile(profiled_source, o);
    o.options = {"-lineinfo"};
    const CompileResult with_lines = compile(profiled_source, o);
    const auto code = function_machine_code(plain.cubin, "chain");
    ASSERT_TRUE(code.has_value());
    EXPECT_GT(code->size(), 64u);
    EXPECT_EQ(code->size() % 16, 0u);  // Hopper instructions are 16 bytes
    // -lineinfo adds sections, not code: samples of one build map through the other's lines.
    EXPECT_EQ(function_machine_code(with_lines.cubin, "chain"), code);
    EXPECT_NE(function_machine_code(plain.cubin, "saxpy"), code);
    EXPECT_FALSE(function_machine_code(plain.cubin, "no_such_kernel").has_value());
    EXPECT_FALSE(
        function_machine_code("not an ELF file at all, but long enough to read a header from it......", "chain")
            .has_value());
    EXPECT_FALSE(function_machine_code(plain.cubin.substr(0, 100), "chain").has_value());
}
