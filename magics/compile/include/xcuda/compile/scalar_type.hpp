// The arithmetic types of kernel parameters and pointees, and the C++ type names that mean them.
#pragma once

#include <cstddef>
#include <string_view>

namespace xcuda::compile {

// The arithmetic types a kernel parameter (or a pointee) can have. `char` is int8 (signed on
// every CUDA host ABI); size_t/uintptr_t are uint64, ptrdiff_t/intptr_t/long long are int64,
// long is int64 (LP64). half/__half is float16, __nv_bfloat16 bfloat16.
enum class ScalarType {
    none,  // not a known arithmetic type (void, a struct, a template parameter, ...)
    bool_,
    int8,
    uint8,
    int16,
    uint16,
    int32,
    uint32,
    int64,
    uint64,
    float16,
    bfloat16,
    float32,
    float64,
};

// "int32", "float32", ... (numpy dtype names; "bool" for bool_, "" for none).
const char* scalar_name(ScalarType t) noexcept;
// Size in bytes (0 for none).
std::size_t scalar_size(ScalarType t) noexcept;
// Maps a type written without cv/pointers ("unsigned int", "float", "__half") to a scalar.
ScalarType scalar_from_type(std::string_view type) noexcept;

}  // namespace xcuda::compile
