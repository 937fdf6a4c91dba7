// The loops every handler is made of: one operation for each active lane of a warp. With all 32
// lanes active (the common case) the loop has no condition and the compiler vectorises it.
#pragma once

#include "exec/run/exec_context.hpp"

#include <cstdint>

namespace xcuda::cpu {

inline constexpr std::uint32_t all_lanes = 0xFFFFFFFFu;

// d[l] = f(l) for every lane in `mask`.
template <class D, class F>
inline void each_lane(std::uint32_t mask, D* d, F&& f) {
    if (mask == all_lanes) {
        for (unsigned l = 0; l < 32; ++l) d[l] = f(l);
    } else {
        for (unsigned l = 0; l < 32; ++l) {
            if ((mask >> l) & 1u) d[l] = f(l);
        }
    }
}

// A predicate result: bit l of the returned mask is f(l), for lanes in `mask` (others 0).
template <class F>
inline std::uint32_t lane_bits(std::uint32_t mask, F&& f) {
    std::uint32_t bits = 0;
    for (unsigned l = 0; l < 32; ++l) bits |= static_cast<std::uint32_t>(f(l) ? 1u : 0u) << l;
    return bits & mask;
}

template <class T>
inline T* slot(const Exec& x, std::uint32_t offset) noexcept {
    return x.reg<T>(offset);
}

// Handlers of one, two and three sources: d = f(a[, b[, c]]).
template <class D, class A, class F>
inline void unary(const Exec& x, const Inst& in, std::uint32_t mask, F&& f) {
    D* d = slot<D>(x, in.op[0]);
    const A* a = slot<A>(x, in.op[1]);
    each_lane(mask, d, [&](unsigned l) { return f(a[l]); });
}

template <class D, class A, class B, class F>
inline void binary(const Exec& x, const Inst& in, std::uint32_t mask, F&& f) {
    D* d = slot<D>(x, in.op[0]);
    const A* a = slot<A>(x, in.op[1]);
    const B* b = slot<B>(x, in.op[2]);
    each_lane(mask, d, [&](unsigned l) { return f(a[l], b[l]); });
}

template <class D, class A, class B, class C, class F>
inline void ternary(const Exec& x, const Inst& in, std::uint32_t mask, F&& f) {
    D* d = slot<D>(x, in.op[0]);
    const A* a = slot<A>(x, in.op[1]);
    const B* b = slot<B>(x, in.op[2]);
    const C* c = slot<C>(x, in.op[3]);
    each_lane(mask, d, [&](unsigned l) { return f(a[l], b[l], c[l]); });
}

// A handler of `Sources` sources whose destination and sources all have type T.
template <class T, int Sources, class F>
inline void same_typed(const Exec& x, const Inst& in, std::uint32_t mask, F&& f) {
    static_assert(Sources >= 1 && Sources <= 3, "an arithmetic instruction has one to three sources");
    if constexpr (Sources == 1) {
        unary<T, T>(x, in, mask, f);
    } else if constexpr (Sources == 2) {
        binary<T, T, T>(x, in, mask, f);
    } else {
        ternary<T, T, T, T>(x, in, mask, f);
    }
}

}  // namespace xcuda::cpu
