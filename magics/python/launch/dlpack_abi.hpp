#pragma once
// The DLPack C ABI (unversioned capsules named "dltensor", DLPack <= 0.8), as its
// specification defines it: the layout every producer (PyTorch, CuPy, JAX, numpy) shares.
#include <cstdint>

namespace xcuda::magics::dlpack {

enum DeviceType : std::int32_t { cpu = 1, cuda = 2, cuda_host = 3, cuda_managed = 13 };
enum TypeCode : std::uint8_t { int_ = 0, uint_ = 1, float_ = 2, opaque = 3, bfloat = 4, complex = 5, bool_ = 6 };

struct Device {
    std::int32_t device_type;
    std::int32_t device_id;
};

struct DataType {
    std::uint8_t code;
    std::uint8_t bits;
    std::uint16_t lanes;
};

struct Tensor {
    void* data;
    Device device;
    std::int32_t ndim;
    DataType dtype;
    std::int64_t* shape;
    std::int64_t* strides;  // in elements; null means compact row-major
    std::uint64_t byte_offset;
};

struct ManagedTensor {
    Tensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(ManagedTensor* self);
};

inline constexpr const char* capsule_name = "dltensor";
inline constexpr const char* used_capsule_name = "used_dltensor";

}  // namespace xcuda::magics::dlpack
