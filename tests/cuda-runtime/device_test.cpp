#include "gpu_support.hpp"

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;

using DeviceTest = GpuTest;

TEST_F(DeviceTest, PropertiesMatchTheDriverAttributes) {
    const auto& p = device().properties();
    EXPECT_FALSE(p.name.empty());
    EXPECT_EQ(p.major, device().attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
    EXPECT_EQ(p.arch, "sm_" + std::to_string(p.major * 10 + p.minor));
    EXPECT_EQ(p.sm_count, device().attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
    EXPECT_GT(p.sm_count, 0);
    EXPECT_EQ(p.warp_size, 32);
    EXPECT_GE(p.max_threads_per_block, 512);
    EXPECT_EQ(p.max_block_dims.x, static_cast<unsigned>(device().attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)));
    EXPECT_GE(p.max_grid_dims.x, 65535u);
    EXPECT_GT(p.total_memory, std::size_t{1} << 30);
    EXPECT_GT(p.l2_cache_bytes, 0);
    EXPECT_GE(p.max_shared_per_block_optin, p.max_shared_per_block);
    EXPECT_GT(p.regs_per_sm, 0);
}

TEST_F(DeviceTest, CountVersionAndCurrentDeviceAreConsistent) {
    if (!device().is_cpu()) {
        EXPECT_GE(device_count(), 1);
        EXPECT_GE(driver_version(), 12000);
    }
    EXPECT_EQ(Device::current().ordinal(), device().ordinal());
    EXPECT_EQ(default_arch(), device().arch());
    auto [free, total] = Device::memory_info();
    EXPECT_GT(free, 0u);
    EXPECT_LE(free, total);
}

TEST_F(DeviceTest, OutOfRangeOrdinalIsADriverError) {
    if (!gpu_available()) {
        // Without a GPU any GPU ordinal is no device at all, and says why.
        EXPECT_THROW(Device(5), NoDeviceError);
        return;
    }
    EXPECT_THROW(Device(device_count() + 5), DriverError);
    EXPECT_FALSE(context_lost());
}
