#pragma once
// Arguments of a kernel call, checked against the parsed signature and packed for
// cuLaunchKernel. Everything that can be wrong with an argument is found before any device
// work, so a wrong argument is a TypeError even on a machine without a GPU.
#include "launch/known_arrays.hpp"

#include <xcuda/compile/kernel_signature.hpp>
#include <xcuda/compile/param_layout.hpp>
#include <xcuda/cpu/argument_extents.hpp>
#include <xcuda/rt/memory.hpp>

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace xcuda::magics {

// What to do with one parameter, decided once per Kernel.
struct ParamPacker {
    enum class Kind : std::uint8_t {
        scalar,         // `scalar`, in the 8-byte slot
        pointer,        // a device address
        vector,         // `components` x `scalar` (float2, int4, ...)
        complex,        // 2 x `scalar`
        sized_integer,  // `size` bytes, signedness unknown (enum, alias from a header)
        bytes,          // a struct/class: exactly `size` bytes
        unsupported,
    } kind = Kind::unsupported;
    compile::ScalarType scalar = compile::ScalarType::none;  // the value's, the pointee's, or the components'
    int components = 0;
    std::size_t size = 0;  // bytes the kernel reads (from the PTX)
    std::size_t align = 0;
    std::size_t wide_offset = 0;  // size > 8: where in PackedArgs' wide area
    ElemType pointee;             // pointer: expected element type ('V' = any)
    ElemType pointee_alt;         // ... or this one (float2*: float32 or complex64)
    bool pointee_const = false;
    std::string what;                // "argument `x` (const float*)"
    std::string name;                // "x" (or "#2" when unnamed)
    std::string type;                // "const float*"
    pybind11::object default_value;  // the C++ default as Python, or null
    std::string default_text;        // the C++ default as written, "" when none
};

// A numpy argument staged through device memory for one launch.
struct HostStaging {
    std::size_t param = 0;
    void* host = nullptr;
    std::size_t bytes = 0;
    bool copy_back = false;
    rt::DeviceBuffer device;
};

// Storage for one launch's packed arguments: no heap allocation for kernels with up to
// inline_params parameters and no numpy/DLPack arguments.
class PackedArgs {
public:
    static constexpr std::size_t inline_params = 32;

    // Points every parameter at its 8-byte slot, and those of more than 8 bytes at
    // `wide_bytes` of 16-byte aligned storage (ArgumentPacker's offsets).
    void reset(std::size_t n, std::size_t wide_bytes = 0);
    std::uint64_t* slot(std::size_t i) { return slots_ + i; }
    std::uint64_t slot_value(std::size_t i) const { return slots_[i]; }
    // A pointer argument's array bytes (from its pointer on), where the argument was an array:
    // what the CPU device checks that launch's accesses against (argument_extents()).
    static constexpr std::uint64_t no_extent = ~std::uint64_t{0};
    void set_extent(std::size_t i, std::uint64_t bytes) { extents_[i] = bytes; }
    std::uint64_t extent(std::size_t i) const { return extents_[i]; }
    std::uint8_t* wide() { return wide_; }
    void** params() { return ptrs_; }

    std::vector<HostStaging> staging;         // numpy arguments
    std::vector<pybind11::object> keepalive;  // DLPack capsules and staged numpy arrays
    std::vector<CUstream> producer_streams;   // CAI v3 streams to order the launch after
    int required_device = -1;                 // from DeviceArray/DLPack arguments
    KnownArrayLaunch known_arrays;            // CuPy state read once per launch

private:
    struct alignas(16) WideChunk {
        std::uint8_t bytes[16];
    };
    std::array<WideChunk, 8> inline_wide_{};  // 128 bytes: a few structs without the heap
    std::vector<WideChunk> heap_wide_;
    std::uint8_t* wide_ = inline_wide_[0].bytes;
    std::array<std::uint64_t, inline_params> inline_slots_{};
    std::array<void*, inline_params> inline_ptrs_{};
    std::array<std::uint64_t, inline_params> inline_extents_{};
    std::vector<std::uint64_t> heap_slots_;
    std::vector<void*> heap_ptrs_;
    std::vector<std::uint64_t> heap_extents_;
    std::uint64_t* slots_ = inline_slots_.data();
    void** ptrs_ = inline_ptrs_.data();
    std::uint64_t* extents_ = inline_extents_.data();
};

class ArgumentPacker {
public:
    // `layouts`: per parameter, from the compiled PTX (may be empty: by-value types the parser
    // could not type are then refused).
    ArgumentPacker(const compile::KernelDecl& decl, const std::vector<compile::ValueLayout>& layouts);

    std::size_t count() const { return params_.size(); }
    const std::vector<ParamPacker>& params() const { return params_; }

    // Checks and converts `args` (a tuple). `stream` is the launch stream (DLPack producers
    // order their work before it). Raises TypeError/OverflowError naming the parameter.
    void pack(pybind11::handle args, CUstream stream, PackedArgs& out) const;

private:
    void pack_pointer(const ParamPacker& p, std::size_t index, pybind11::handle value, CUstream stream,
                      PackedArgs& out) const;
    void pack_value(const ParamPacker& p, std::size_t index, pybind11::handle value, PackedArgs& out) const;
    [[noreturn]] void wrong_count(std::size_t got) const;

    std::string signature_;
    std::vector<ParamPacker> params_;
    std::size_t required_ = 0;    // parameters before the first with a default
    std::size_t wide_bytes_ = 0;  // storage for parameters over 8 bytes
};

// Device side of the numpy arguments: device memory from the staging pool, copies in on
// `stream` (before the launch) and back (after it, once `stream` is done), then the memory
// back to the pool. Need the context of `device` current.
void stage_host_arrays(PackedArgs& args, CUstream stream, int device);
void unstage_host_arrays(PackedArgs& args, CUstream stream, int device);

// The arrays the first `count` arguments pass (after stage_host_arrays: numpy arrays by their
// staging buffers), for cpu::LaunchArgumentExtents.
std::vector<cpu::ArgumentExtent> argument_extents(const PackedArgs& args, std::size_t count);

}  // namespace xcuda::magics
