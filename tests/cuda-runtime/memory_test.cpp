#include "gpu_support.hpp"

#include <numeric>
#include <vector>

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;

using MemoryTest = GpuTest;

TEST_F(MemoryTest, SyncCopiesRoundTrip) {
    std::vector<int> in(1 << 20), out(in.size(), 0);
    std::iota(in.begin(), in.end(), 7);
    const std::size_t bytes = in.size() * sizeof(int);
    DeviceBuffer a(bytes), b(bytes);
    copy_to_device(a.get(), in.data(), bytes);
    copy_device_to_device(b.get(), a.get(), bytes);
    copy_to_host(out.data(), b.get(), bytes);
    EXPECT_EQ(in, out);
}

TEST_F(MemoryTest, AsyncCopiesThroughPinnedMemoryRoundTrip) {
    const std::size_t n = 1 << 20, bytes = n * sizeof(float);
    PinnedBuffer host_in(bytes), host_out(bytes);
    auto* in = static_cast<float*>(host_in.get());
    auto* out = static_cast<float*>(host_out.get());
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 0.5f;
    Stream s;
    DeviceBuffer a(bytes), b(bytes);
    copy_to_device_async(a.get(), in, bytes, s.handle());
    copy_device_to_device_async(b.get(), a.get(), bytes, s.handle());
    copy_to_host_async(out, b.get(), bytes, s.handle());
    s.synchronize();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i]) << i;
}

TEST_F(MemoryTest, MemsetFillsBytes) {
    std::vector<unsigned char> out(4096, 0);
    DeviceBuffer a(out.size());
    memset_d8(a.get(), 0xab, out.size());
    copy_to_host(out.data(), a.get(), out.size());
    EXPECT_EQ(out, std::vector<unsigned char>(4096, 0xab));
    Stream s;
    memset_d8_async(a.get(), 0x11, 100, s.handle());
    s.synchronize();
    copy_to_host(out.data(), a.get(), out.size());
    EXPECT_EQ(out[99], 0x11);
    EXPECT_EQ(out[100], 0xab);
}

TEST_F(MemoryTest, OnePebibyteIsOutOfMemoryAndLaterAllocationsWork) {
    try {
        DeviceBuffer huge(std::size_t{1} << 50);
        FAIL() << "allocated 1 PiB";
    } catch (const OutOfMemoryError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_OUT_OF_MEMORY);
        EXPECT_NE(std::string(e.what()).find("1125899906842624 bytes"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(context_lost());
    DeviceBuffer ok(1 << 20);
    EXPECT_NE(ok.get(), 0u);
}

TEST_F(MemoryTest, BuffersMoveOwnership) {
    DeviceBuffer a(256);
    const auto ptr = a.get();
    DeviceBuffer b(std::move(a));
    EXPECT_EQ(b.get(), ptr);
    EXPECT_EQ(a.get(), 0u);
    EXPECT_EQ(a.size(), 0u);
    DeviceBuffer c;
    c = std::move(b);
    EXPECT_EQ(c.get(), ptr);
    EXPECT_EQ(c.size(), 256u);
}
