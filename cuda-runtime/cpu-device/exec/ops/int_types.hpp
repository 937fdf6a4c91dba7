// Choosing a handler instantiation by PTX type: the C++ integer type of each PTX integer type,
// and the wider type of a .wide result.
#pragma once

#include "exec/decode/decode.hpp"

#include <cstdint>
#include <type_traits>

namespace xcuda::cpu {

// 128-bit integers for the high half of 64-bit products (GCC and Clang have them on 64-bit hosts).
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

// The integer type twice as wide as T, of T's signedness: the result of .wide and the product
// whose high half .hi takes.
template <class T>
struct Wider {
    static_assert(std::is_integral_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                  "PTX widens only 16-, 32- and 64-bit integers");
    using Signed =
        std::conditional_t<sizeof(T) == 2, std::int32_t, std::conditional_t<sizeof(T) == 4, std::int64_t, int128>>;
    using Unsigned =
        std::conditional_t<sizeof(T) == 2, std::uint32_t, std::conditional_t<sizeof(T) == 4, std::uint64_t, uint128>>;
    using type = std::conditional_t<std::is_signed_v<T>, Signed, Unsigned>;
};

// The handler H<T>::run for an integer type (signed for .sN, unsigned for .uN and .bN); nullptr
// for other types. H is a class template with a static `run` Handler.
template <template <class> class H>
Handler by_integer_type(Ty t) {
    switch (t) {
        case Ty::s16: return &H<std::int16_t>::run;
        case Ty::u16:
        case Ty::b16: return &H<std::uint16_t>::run;
        case Ty::s32: return &H<std::int32_t>::run;
        case Ty::u32:
        case Ty::b32: return &H<std::uint32_t>::run;
        case Ty::s64: return &H<std::int64_t>::run;
        case Ty::u64:
        case Ty::b64: return &H<std::uint64_t>::run;
        default: return nullptr;
    }
}

// std::make_unsigned, also for the 128-bit types (which strict C++17 does not count as integral).
template <class T>
struct Unsigned {
    using type = std::make_unsigned_t<T>;
};
template <>
struct Unsigned<int128> {
    using type = uint128;
};
template <>
struct Unsigned<uint128> {
    using type = uint128;
};

// Two's-complement wrap-around arithmetic without signed overflow in C++.
template <class T>
inline T wrap_add(T a, T b) noexcept {
    using U = typename Unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
inline T wrap_sub(T a, T b) noexcept {
    using U = typename Unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T>
inline T wrap_mul(T a, T b) noexcept {
    using U = typename Unsigned<T>::type;
    // uint16_t * uint16_t promotes to int and can overflow: multiply as unsigned int or wider.
    using P = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<P>(static_cast<U>(a)) * static_cast<P>(static_cast<U>(b))));
}
template <class T>
inline T wrap_neg(T a) noexcept {
    return wrap_sub<T>(T{0}, a);
}

}  // namespace xcuda::cpu
