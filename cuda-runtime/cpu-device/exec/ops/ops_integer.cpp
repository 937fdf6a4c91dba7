// Integer arithmetic and bit manipulation, as the PTX ISA defines them for .s/.u/.b 16/32/64:
// wrap-around arithmetic, the .hi/.lo/.wide products, carries, saturation, and the bit-field
// instructions with their clamping rules. Division by zero gives what the GPU's division
// sequence gives (all ones for the quotient, the dividend for the remainder), never SIGFPE.
#include "exec/decode/decode.hpp"
#include "exec/ops/int_types.hpp"
#include "exec/ops/lanes.hpp"

#include <algorithm>
#include <climits>
#include <limits>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;

// --- two-operand arithmetic -----------------------------------------------------------------

template <class T>
struct Add {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return wrap_add(a, b); });
    }
};
template <class T>
struct Sub {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return wrap_sub(a, b); });
    }
};

template <class T>
T saturate_to(std::int64_t v) {
    return static_cast<T>(std::clamp<std::int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

void add_sat_s32(Exec& x, const Inst& in, U32 m) {
    binary<std::int32_t, std::int32_t, std::int32_t>(
        x, in, m, [](std::int32_t a, std::int32_t b) { return saturate_to<std::int32_t>(std::int64_t{a} + b); });
}
void sub_sat_s32(Exec& x, const Inst& in, U32 m) {
    binary<std::int32_t, std::int32_t, std::int32_t>(
        x, in, m, [](std::int32_t a, std::int32_t b) { return saturate_to<std::int32_t>(std::int64_t{a} - b); });
}

template <class T>
struct MulLo {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return wrap_mul(a, b); });
    }
};
template <class T>
struct MulHi {
    static void run(Exec& x, const Inst& in, U32 m) {
        using W = typename Wider<T>::type;
        binary<T, T, T>(x, in, m, [](T a, T b) {
            return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> (8 * sizeof(T)));
        });
    }
};
template <class T>
struct MulWide {
    static void run(Exec& x, const Inst& in, U32 m) {
        using W = typename Wider<T>::type;
        binary<W, T, T>(x, in, m, [](T a, T b) { return static_cast<W>(static_cast<W>(a) * static_cast<W>(b)); });
    }
};
template <class T>
struct MadLo {
    static void run(Exec& x, const Inst& in, U32 m) {
        ternary<T, T, T, T>(x, in, m, [](T a, T b, T c) { return wrap_add(wrap_mul(a, b), c); });
    }
};
template <class T>
struct MadHi {
    static void run(Exec& x, const Inst& in, U32 m) {
        using W = typename Wider<T>::type;
        ternary<T, T, T, T>(x, in, m, [](T a, T b, T c) {
            return wrap_add(static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> (8 * sizeof(T))), c);
        });
    }
};
template <class T>
struct MadWide {
    static void run(Exec& x, const Inst& in, U32 m) {
        using W = typename Wider<T>::type;
        ternary<W, T, T, W>(x, in, m,
                            [](T a, T b, W c) { return wrap_add<W>(static_cast<W>(a) * static_cast<W>(b), c); });
    }
};

// mad.hi.sat.s32: the high word of a*b, plus c, saturated.
void mad_hi_sat_s32(Exec& x, const Inst& in, U32 m) {
    ternary<std::int32_t, std::int32_t, std::int32_t, std::int32_t>(
        x, in, m, [](std::int32_t a, std::int32_t b, std::int32_t c) {
            const std::int64_t hi = (std::int64_t{a} * b) >> 32;
            return saturate_to<std::int32_t>(hi + c);
        });
}

// mul24/mad24: the low 24 bits of each operand (sign-extended for .s32), 48-bit product.
template <class T>
std::int64_t low24(T v) {
    if constexpr (std::is_signed_v<T>)
        return static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<U32>(v) << 8) >> 8);
    return static_cast<std::int64_t>(v & 0xFFFFFFu);
}
template <class T>
struct Mul24Lo {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return static_cast<T>(static_cast<U32>(low24(a) * low24(b))); });
    }
};
template <class T>
struct Mul24Hi {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m,
                        [](T a, T b) { return static_cast<T>(static_cast<U32>((low24(a) * low24(b)) >> 16)); });
    }
};
template <class T>
struct Mad24Lo {
    static void run(Exec& x, const Inst& in, U32 m) {
        ternary<T, T, T, T>(
            x, in, m, [](T a, T b, T c) { return wrap_add(static_cast<T>(static_cast<U32>(low24(a) * low24(b))), c); });
    }
};

// Division and remainder: no host trap for x / 0 or INT_MIN / -1.
template <class T>
T divide(T a, T b) {
    if (b == 0) return static_cast<T>(~T{0});  // what the GPU's division sequence returns
    if constexpr (std::is_signed_v<T>) {
        if (a == std::numeric_limits<T>::min() && b == -1) return a;
    }
    return static_cast<T>(a / b);
}
template <class T>
T remainder_of(T a, T b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>) {
        if (b == -1) return 0;
    }
    return static_cast<T>(a % b);
}
template <class T>
struct Div {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return divide(a, b); });
    }
};
template <class T>
struct Rem {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return remainder_of(a, b); });
    }
};

template <class T>
struct Abs {
    static void run(Exec& x, const Inst& in, U32 m) {
        unary<T, T>(x, in, m, [](T a) { return a < 0 ? wrap_neg(a) : a; });
    }
};
template <class T>
struct Neg {
    static void run(Exec& x, const Inst& in, U32 m) {
        unary<T, T>(x, in, m, [](T a) { return wrap_neg(a); });
    }
};
template <class T>
struct Min {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return a < b ? a : b; });
    }
};
template <class T>
struct Max {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return a > b ? a : b; });
    }
};
void max_relu_s32(Exec& x, const Inst& in, U32 m) {
    binary<std::int32_t, std::int32_t, std::int32_t>(x, in, m, [](std::int32_t a, std::int32_t b) {
        return std::max({a, b, 0});
    });
}
void min_relu_s32(Exec& x, const Inst& in, U32 m) {
    binary<std::int32_t, std::int32_t, std::int32_t>(
        x, in, m, [](std::int32_t a, std::int32_t b) { return std::max(std::min(a, b), 0); });
}

template <class T>
struct Sad {  // |a - b| + c
    static void run(Exec& x, const Inst& in, U32 m) {
        ternary<T, T, T, T>(x, in, m, [](T a, T b, T c) {
            return wrap_add(static_cast<T>(a > b ? wrap_sub(a, b) : wrap_sub(b, a)), c);
        });
    }
};

// --- carries ---------------------------------------------------------------------------------
// add.cc / addc / sub.cc / subc / mad.cc / madc: the carry flag is a lane mask (Emitter::carry),
// in op[3] (or op[4] for mad); `sub` bit 0: carry-in used, bit 1: carry-out written.

template <class T, bool Subtract>
struct AddCarry {
    static void run(Exec& x, const Inst& in, U32 m) {
        T* d = slot<T>(x, in.op[0]);
        const T* a = slot<T>(x, in.op[1]);
        const T* b = slot<T>(x, in.op[2]);
        const U32 cf = x.pred(in.op[3]);
        U32 out = 0;
        using W = typename Wider<std::make_unsigned_t<T>>::type;
        for_lanes(m, [&](unsigned l) {
            const W ua = static_cast<std::make_unsigned_t<T>>(a[l]);
            const W ub = static_cast<std::make_unsigned_t<T>>(b[l]);
            const W cin = (in.sub & 1u) ? ((cf >> l) & 1u) : 0u;
            W r;
            bool carry;
            if (Subtract) {  // the borrow is the carry flag (CUDA's sub.cc sets CF on borrow)
                r = ua - ub - cin;
                carry = ua < ub + cin;
            } else {
                r = ua + ub + cin;
                carry = (r >> (8 * sizeof(T))) != 0;
            }
            d[l] = static_cast<T>(r);
            out |= static_cast<U32>(carry) << l;
        });
        if (in.sub & 2u) x.set_pred(in.op[3], out, m);
    }
};

template <class T>
struct MadCarry {  // mad{c}.{lo,hi}{.cc}: op[4] the carry flag; `size` 1: .hi
    static void run(Exec& x, const Inst& in, U32 m) {
        using UT = std::make_unsigned_t<T>;
        using W = typename Wider<T>::type;
        using UW = typename Wider<UT>::type;
        T* d = slot<T>(x, in.op[0]);
        const T* a = slot<T>(x, in.op[1]);
        const T* b = slot<T>(x, in.op[2]);
        const T* c = slot<T>(x, in.op[3]);
        const U32 cf = x.pred(in.op[4]);
        U32 out = 0;
        for_lanes(m, [&](unsigned l) {
            const W p = static_cast<W>(a[l]) * static_cast<W>(b[l]);
            const UT part = in.size == 1 ? static_cast<UT>(static_cast<UW>(p) >> (8 * sizeof(T))) : static_cast<UT>(p);
            const UW cin = (in.sub & 1u) ? ((cf >> l) & 1u) : 0u;
            const UW r = UW{part} + static_cast<UT>(c[l]) + cin;
            d[l] = static_cast<T>(static_cast<UT>(r));
            out |= static_cast<U32>((r >> (8 * sizeof(T))) != 0) << l;
        });
        if (in.sub & 2u) x.set_pred(in.op[4], out, m);
    }
};

// --- bits -------------------------------------------------------------------------------------

template <class T>
struct And {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return static_cast<T>(a & b); });
    }
};
template <class T>
struct Or {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return static_cast<T>(a | b); });
    }
};
template <class T>
struct Xor {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, T>(x, in, m, [](T a, T b) { return static_cast<T>(a ^ b); });
    }
};
template <class T>
struct Not {
    static void run(Exec& x, const Inst& in, U32 m) {
        unary<T, T>(x, in, m, [](T a) { return static_cast<T>(~a); });
    }
};
template <class T>
struct CNot {
    static void run(Exec& x, const Inst& in, U32 m) {
        unary<T, T>(x, in, m, [](T a) { return static_cast<T>(a == 0 ? 1 : 0); });
    }
};

// Predicate logic works on whole masks.
void and_pred(Exec& x, const Inst& in, U32 m) { x.set_pred(in.op[0], x.pred(in.op[1]) & x.pred(in.op[2]), m); }
void or_pred(Exec& x, const Inst& in, U32 m) { x.set_pred(in.op[0], x.pred(in.op[1]) | x.pred(in.op[2]), m); }
void xor_pred(Exec& x, const Inst& in, U32 m) { x.set_pred(in.op[0], x.pred(in.op[1]) ^ x.pred(in.op[2]), m); }
void not_pred(Exec& x, const Inst& in, U32 m) { x.set_pred(in.op[0], ~x.pred(in.op[1]), m); }
void mov_pred(Exec& x, const Inst& in, U32 m) { x.set_pred(in.op[0], x.pred(in.op[1]), m); }

// Shifts take an unsigned 32-bit amount; amounts past the width clamp to it.
template <class T>
struct Shl {
    static void run(Exec& x, const Inst& in, U32 m) {
        using UT = std::make_unsigned_t<T>;
        binary<T, T, U32>(x, in, m, [](T a, U32 b) {
            return b >= 8 * sizeof(T) ? T{0} : static_cast<T>(static_cast<UT>(static_cast<UT>(a) << b));
        });
    }
};
template <class T>
struct Shr {
    static void run(Exec& x, const Inst& in, U32 m) {
        binary<T, T, U32>(x, in, m, [](T a, U32 b) {
            const U32 n = std::min<U32>(b, 8 * sizeof(T) - (std::is_signed_v<T> ? 1 : 0));
            if constexpr (!std::is_signed_v<T>) {
                if (b >= 8 * sizeof(T)) return T{0};
            }
            return static_cast<T>(a >> n);  // arithmetic for signed types (C++20 defines it; GCC always did)
        });
    }
};

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of the 64-bit b:a by c.
void shf(Exec& x, const Inst& in, U32 m) {
    const bool left = in.sub & 1u, clamp = in.sub & 2u;
    ternary<U32, U32, U32, U32>(x, in, m, [=](U32 a, U32 b, U32 c) {
        const U32 n = clamp ? std::min<U32>(c, 32) : (c & 31u);
        const std::uint64_t v = (std::uint64_t{b} << 32) | a;
        return left ? static_cast<U32>((v << n) >> 32) : static_cast<U32>(v >> n);
    });
}

template <class T>
struct Popc {
    static void run(Exec& x, const Inst& in, U32 m) {
        unary<U32, T>(x, in, m,
                      [](T a) { return static_cast<U32>(__builtin_popcountll(static_cast<std::uint64_t>(a))); });
    }
};
template <class T>
struct Clz {
    static void run(Exec& x, const Inst& in, U32 m) {
        unary<U32, T>(x, in, m, [](T a) {
            const auto v = static_cast<std::uint64_t>(a);
            return v == 0 ? static_cast<U32>(8 * sizeof(T))
                          : static_cast<U32>(__builtin_clzll(v) - (64 - 8 * sizeof(T)));
        });
    }
};
template <class T>
struct Brev {
    static void run(Exec& x, const Inst& in, U32 m) {
        unary<T, T>(x, in, m, [](T a) {
            using UT = std::make_unsigned_t<T>;
            UT v = static_cast<UT>(a), r = 0;
            for (unsigned i = 0; i < 8 * sizeof(T); ++i, v >>= 1) r = static_cast<UT>((r << 1) | (v & 1u));
            return static_cast<T>(r);
        });
    }
};
// bfind: the bit position of the most significant non-sign bit (0xFFFFFFFF when none);
// `sub` 1: .shiftamt (the left shift that would bring it to the top).
template <class T>
struct Bfind {
    static void run(Exec& x, const Inst& in, U32 m) {
        const bool shiftamt = in.sub == 1;
        unary<U32, T>(x, in, m, [=](T a) {
            using UT = std::make_unsigned_t<T>;
            UT v = static_cast<UT>(a);
            if constexpr (std::is_signed_v<T>) {
                if (a < 0) v = static_cast<UT>(~v);
            }
            if (v == 0) return 0xFFFFFFFFu;
            const U32 pos = static_cast<U32>(63 - __builtin_clzll(static_cast<std::uint64_t>(v)));
            return shiftamt ? static_cast<U32>(8 * sizeof(T) - 1 - pos) : pos;
        });
    }
};
// bfe d, a, pos, len (pos and len the low 8 bits of u32 operands).
template <class T>
struct Bfe {
    static void run(Exec& x, const Inst& in, U32 m) {
        ternary<T, T, U32, U32>(x, in, m, [](T a, U32 b, U32 c) {
            using UT = std::make_unsigned_t<T>;
            constexpr U32 msb = 8 * sizeof(T) - 1;
            const U32 pos = b & 0xFFu, len = c & 0xFFu;
            const UT ua = static_cast<UT>(a);
            bool sbit = false;
            if (std::is_signed_v<T> && len != 0) sbit = (ua >> std::min(pos + len - 1, msb)) & 1u;
            UT d = 0;
            for (U32 i = 0; i <= msb; ++i) {
                const bool bit = (i < len && pos + i <= msb) ? ((ua >> (pos + i)) & 1u) : sbit;
                d = static_cast<UT>(d | (UT{bit} << i));
            }
            return static_cast<T>(d);
        });
    }
};
// bfi f, a, b, pos, len: b with len bits of a inserted at pos.
template <class T>
struct Bfi {
    static void run(Exec& x, const Inst& in, U32 m) {
        T* f = slot<T>(x, in.op[0]);
        const T* a = slot<T>(x, in.op[1]);
        const T* b = slot<T>(x, in.op[2]);
        const U32* c = slot<U32>(x, in.op[3]);
        const U32* d = slot<U32>(x, in.op[4]);
        each_lane(m, f, [&](unsigned l) {
            constexpr U32 msb = 8 * sizeof(T) - 1;
            const U32 pos = c[l] & 0xFFu, len = d[l] & 0xFFu;
            T r = b[l];
            for (U32 i = 0; i < len && pos + i <= msb; ++i) {
                const T bit = static_cast<T>((a[l] >> i) & 1u);
                r = static_cast<T>((r & ~(T{1} << (pos + i))) | (bit << (pos + i)));
            }
            return r;
        });
    }
};

// prmt.b32{.mode} d, a, b, c: bytes of the 8-byte b:a picked by selectors in c.
U32 permute(U32 a, U32 b, U32 c, unsigned mode) {
    const std::uint64_t src = (std::uint64_t{b} << 32) | a;
    auto byte = [&](unsigned i) { return static_cast<U32>((src >> (8 * (i & 7u))) & 0xFFu); };
    U32 d = 0;
    for (unsigned i = 0; i < 4; ++i) {
        U32 v;
        const unsigned sel2 = c & 3u;
        switch (mode) {
            case 1: v = byte(sel2 + i); break;                 // f4e
            case 2: v = byte((sel2 - i) & 7u); break;          // b4e
            case 3: v = byte(sel2); break;                     // rc8
            case 4: v = byte(std::max(i, sel2)); break;        // ecl
            case 5: v = byte(std::min(i, sel2)); break;        // ecr
            case 6: v = byte((c & 1u) * 2 + (i & 1u)); break;  // rc16
            default: {
                const U32 sel = (c >> (4 * i)) & 0xFu;
                v = byte(sel & 7u);
                if (sel & 8u) v = (v & 0x80u) ? 0xFFu : 0u;  // replicate the byte's sign
            }
        }
        d |= v << (8 * i);
    }
    return d;
}
void prmt(Exec& x, const Inst& in, U32 m) {
    const unsigned mode = in.sub;
    ternary<U32, U32, U32, U32>(x, in, m, [=](U32 a, U32 b, U32 c) { return permute(a, b, c, mode); });
}

// lop3.b32 d, a, b, c, lut: any function of three inputs, bit by bit.
void lop3(Exec& x, const Inst& in, U32 m) {
    const auto lut = static_cast<U32>(in.imm);
    ternary<U32, U32, U32, U32>(x, in, m, [=](U32 a, U32 b, U32 c) {
        U32 r = 0;
        for (unsigned i = 0; i < 8; ++i) {
            if ((lut >> i) & 1u) r |= ((i & 4u) ? a : ~a) & ((i & 2u) ? b : ~b) & ((i & 1u) ? c : ~c);
        }
        return r;
    });
}

// dp4a.{u32,s32}.{u32,s32} d, a, b, c: four byte products added to c. `sub` bit 0: a signed, bit 1: b signed.
void dp4a(Exec& x, const Inst& in, U32 m) {
    const bool sa = in.sub & 1u, sb = in.sub & 2u;
    ternary<U32, U32, U32, U32>(x, in, m, [=](U32 a, U32 b, U32 c) {
        std::int64_t sum = static_cast<std::int32_t>(c);
        for (unsigned i = 0; i < 4; ++i) {
            const U32 ba = (a >> (8 * i)) & 0xFFu, bb = (b >> (8 * i)) & 0xFFu;
            const std::int64_t va = sa ? static_cast<std::int8_t>(ba) : static_cast<std::int64_t>(ba);
            const std::int64_t vb = sb ? static_cast<std::int8_t>(bb) : static_cast<std::int64_t>(bb);
            sum += va * vb;
        }
        return static_cast<U32>(sum);
    });
}
// dp2a.{lo,hi}: two 16-bit halves of a times two bytes of b (low or high pair). `size` 1: .hi
void dp2a(Exec& x, const Inst& in, U32 m) {
    const bool sa = in.sub & 1u, sb = in.sub & 2u, hi = in.size == 1;
    ternary<U32, U32, U32, U32>(x, in, m, [=](U32 a, U32 b, U32 c) {
        std::int64_t sum = static_cast<std::int32_t>(c);
        for (unsigned i = 0; i < 2; ++i) {
            const U32 ha = (a >> (16 * i)) & 0xFFFFu, bb = (b >> (8 * (i + (hi ? 2 : 0)))) & 0xFFu;
            const std::int64_t va = sa ? static_cast<std::int16_t>(ha) : static_cast<std::int64_t>(ha);
            const std::int64_t vb = sb ? static_cast<std::int8_t>(bb) : static_cast<std::int64_t>(bb);
            sum += va * vb;
        }
        return static_cast<U32>(sum);
    });
}

// bmsk.{clamp,wrap}.b32 d, a, b: b ones starting at bit a.  `sub` 1: wrap.
void bmsk(Exec& x, const Inst& in, U32 m) {
    const bool wrap = in.sub == 1;
    binary<U32, U32, U32>(x, in, m, [=](U32 a, U32 b) {
        const U32 pos = wrap ? (a & 31u) : std::min<U32>(a, 32);
        const U32 len = wrap ? (b & 31u) : std::min<U32>(b, 32);
        const std::uint64_t ones = len >= 32 ? 0xFFFFFFFFull : ((1ull << len) - 1);
        return pos >= 32 ? 0u : static_cast<U32>((ones << pos) & 0xFFFFFFFFull);
    });
}
// szext.{clamp,wrap}.{u32,s32} d, a, b: a's low b bits, zero- or sign-extended. `sub` bit 0 wrap, bit 1 signed.
void szext(Exec& x, const Inst& in, U32 m) {
    const bool wrap = in.sub & 1u, sign = in.sub & 2u;
    binary<U32, U32, U32>(x, in, m, [=](U32 a, U32 b) {
        const U32 n = wrap ? (b & 31u) : std::min<U32>(b, 32);
        if (n == 0) return 0u;
        if (n >= 32) return a;
        const U32 low = a & ((1u << n) - 1);
        if (sign && ((low >> (n - 1)) & 1u)) return low | ~((1u << n) - 1);
        return low;
    });
}

// --- decoders ---------------------------------------------------------------------------------

bool is_integer(Ty t) { return !is_float(t) && t != Ty::pred && t != Ty::none; }

Ty wider_type(Ty t) {
    switch (t) {
        case Ty::s16: return Ty::s32;
        case Ty::u16: return Ty::u32;
        case Ty::s32: return Ty::s64;
        case Ty::u32: return Ty::u64;
        case Ty::s64:
        case Ty::u64: return Ty::b128;
        default: return Ty::none;
    }
}

// Emits H for an integer type with `sources` operands, all of type t.
template <template <class> class H>
bool simple(Emitter& e, int sources) {
    const Ty t = e.suffixes().type();
    if (!is_integer(t)) return false;
    Handler h = by_integer_type<H>(t);
    if (h == nullptr) return false;
    // Operands are emitted first: a special-register source materialises before the Inst.
    std::uint32_t ops[4];
    ops[0] = 0;
    for (int i = 1; i <= sources; ++i) ops[i] = e.source(e.operand(i), t);
    const std::uint32_t d = e.destination(e.operand(0), t);
    Inst& in = e.emit(h);
    in.op[0] = d;
    for (int i = 1; i <= sources; ++i) in.op[i] = ops[i];
    return true;
}

bool decode_add(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("cc")) return false;  // decode_add_carry
    if (s.sat) {
        if (t != Ty::s32) e.error("add.sat is only defined for .s32");
        const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t);
        Inst& in = e.emit(add_sat_s32);
        in.op[0] = e.destination(e.operand(0), t);
        in.op[1] = a;
        in.op[2] = b;
        return true;
    }
    return simple<Add>(e, 2);
}
bool decode_sub(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t) || s.has("cc")) return false;
    if (s.sat) {
        if (t != Ty::s32) e.error("sub.sat is only defined for .s32");
        const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t);
        Inst& in = e.emit(sub_sat_s32);
        in.op[0] = e.destination(e.operand(0), t);
        in.op[1] = a;
        in.op[2] = b;
        return true;
    }
    return simple<Sub>(e, 2);
}

template <bool Subtract>
bool decode_carry(Emitter& e, bool carry_in) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    Handler h = nullptr;
    switch (t) {
        case Ty::s32: h = &AddCarry<std::int32_t, Subtract>::run; break;
        case Ty::u32:
        case Ty::b32: h = &AddCarry<std::uint32_t, Subtract>::run; break;
        case Ty::s64: h = &AddCarry<std::int64_t, Subtract>::run; break;
        case Ty::u64:
        case Ty::b64: h = &AddCarry<std::uint64_t, Subtract>::run; break;
        default: e.error("carry arithmetic needs a 32- or 64-bit type");
    }
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t);
    Inst& in = e.emit(h);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = e.carry();
    in.sub = static_cast<std::uint8_t>((carry_in ? 1u : 0u) | (s.has("cc") ? 2u : 0u));
    return true;
}
bool decode_add_carry(Emitter& e) { return e.suffixes().has("cc") && decode_carry<false>(e, false); }
bool decode_sub_carry(Emitter& e) { return e.suffixes().has("cc") && decode_carry<true>(e, false); }
bool decode_addc(Emitter& e) { return decode_carry<false>(e, true); }
bool decode_subc(Emitter& e) { return decode_carry<true>(e, true); }

bool decode_mul(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("wide")) {
        Handler h = by_integer_type<MulWide>(t);
        if (h == nullptr || wider_type(t) == Ty::b128) e.error("mul.wide is defined for 16- and 32-bit types");
        const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t);
        Inst& in = e.emit(h);
        in.op[0] = e.destination(e.operand(0), wider_type(t));
        in.op[1] = a;
        in.op[2] = b;
        return true;
    }
    if (s.has("hi")) return simple<MulHi>(e, 2);
    return simple<MulLo>(e, 2);  // .lo (required by PTX, tolerated when missing)
}

bool decode_mad(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("cc")) {
        Handler h = nullptr;
        switch (t) {
            case Ty::s32: h = &MadCarry<std::int32_t>::run; break;
            case Ty::u32: h = &MadCarry<std::uint32_t>::run; break;
            case Ty::s64: h = &MadCarry<std::int64_t>::run; break;
            case Ty::u64: h = &MadCarry<std::uint64_t>::run; break;
            default: e.error("mad.cc needs a 32- or 64-bit type");
        }
        const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t), c = e.source(e.operand(3), t);
        Inst& in = e.emit(h);
        in.op[0] = e.destination(e.operand(0), t);
        in.op[1] = a;
        in.op[2] = b;
        in.op[3] = c;
        in.op[4] = e.carry();
        in.size = s.has("hi") ? 1 : 0;
        in.sub = 2;
        return true;
    }
    if (s.has("wide")) {
        Handler h = by_integer_type<MadWide>(t);
        if (h == nullptr || wider_type(t) == Ty::b128) e.error("mad.wide is defined for 16- and 32-bit types");
        const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t),
                            c = e.source(e.operand(3), wider_type(t));
        Inst& in = e.emit(h);
        in.op[0] = e.destination(e.operand(0), wider_type(t));
        in.op[1] = a;
        in.op[2] = b;
        in.op[3] = c;
        return true;
    }
    if (s.has("hi")) {
        if (s.sat) {
            if (t != Ty::s32) e.error("mad.hi.sat is only defined for .s32");
            const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t),
                                c = e.source(e.operand(3), t);
            Inst& in = e.emit(mad_hi_sat_s32);
            in.op[0] = e.destination(e.operand(0), t);
            in.op[1] = a;
            in.op[2] = b;
            in.op[3] = c;
            return true;
        }
        return simple<MadHi>(e, 3);
    }
    return simple<MadLo>(e, 3);
}

bool decode_madc(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    Handler h = nullptr;
    switch (t) {
        case Ty::s32: h = &MadCarry<std::int32_t>::run; break;
        case Ty::u32: h = &MadCarry<std::uint32_t>::run; break;
        case Ty::s64: h = &MadCarry<std::int64_t>::run; break;
        case Ty::u64: h = &MadCarry<std::uint64_t>::run; break;
        default: return false;
    }
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t), c = e.source(e.operand(3), t);
    Inst& in = e.emit(h);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.op[4] = e.carry();
    in.size = s.has("hi") ? 1 : 0;
    in.sub = static_cast<std::uint8_t>(1u | (s.has("cc") ? 2u : 0u));
    return true;
}

bool decode_mul24(Emitter& e) { return e.suffixes().has("hi") ? simple<Mul24Hi>(e, 2) : simple<Mul24Lo>(e, 2); }
bool decode_mad24(Emitter& e) {
    if (e.suffixes().has("hi")) {
        e.unsupported("mad24.hi is not implemented by the CPU device");
        return true;
    }
    return simple<Mad24Lo>(e, 3);
}

bool decode_div(Emitter& e) { return simple<Div>(e, 2); }
bool decode_rem(Emitter& e) { return simple<Rem>(e, 2); }
bool decode_abs(Emitter& e) { return simple<Abs>(e, 1); }
bool decode_neg(Emitter& e) { return simple<Neg>(e, 1); }
bool decode_sad(Emitter& e) { return simple<Sad>(e, 3); }

bool decode_minmax(Emitter& e, bool is_max) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("relu")) {
        if (t != Ty::s32) e.error("the .relu form is only implemented for .s32");
        const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t);
        Inst& in = e.emit(is_max ? max_relu_s32 : min_relu_s32);
        in.op[0] = e.destination(e.operand(0), t);
        in.op[1] = a;
        in.op[2] = b;
        return true;
    }
    return is_max ? simple<Max>(e, 2) : simple<Min>(e, 2);
}
bool decode_min(Emitter& e) { return decode_minmax(e, false); }
bool decode_max(Emitter& e) { return decode_minmax(e, true); }

template <template <class> class H>
bool logic(Emitter& e, int sources, Handler pred_handler) {
    const Ty t = e.suffixes().type();
    if (t == Ty::pred) {
        std::uint32_t ops[3] = {0, 0, 0};
        for (int i = 1; i <= sources; ++i) ops[i] = e.predicate(e.operand(i));
        Inst& in = e.emit(pred_handler);
        in.op[0] = e.predicate_destination(e.operand(0));
        for (int i = 1; i <= sources; ++i) in.op[i] = ops[i];
        return true;
    }
    return simple<H>(e, sources);
}
bool decode_and(Emitter& e) { return logic<And>(e, 2, and_pred); }
bool decode_or(Emitter& e) { return logic<Or>(e, 2, or_pred); }
bool decode_xor(Emitter& e) { return logic<Xor>(e, 2, xor_pred); }
bool decode_not(Emitter& e) { return logic<Not>(e, 1, not_pred); }
bool decode_cnot(Emitter& e) { return simple<CNot>(e, 1); }

template <template <class> class H>
bool shift(Emitter& e) {
    const Ty t = e.suffixes().type();
    Handler h = by_integer_type<H>(t);
    if (h == nullptr) return false;
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), Ty::u32);
    Inst& in = e.emit(h);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.op[2] = b;
    return true;
}
bool decode_shl(Emitter& e) { return shift<Shl>(e); }
bool decode_shr(Emitter& e) { return shift<Shr>(e); }

bool decode_shf(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const std::uint32_t a = e.source(e.operand(1), Ty::b32), b = e.source(e.operand(2), Ty::b32),
                        c = e.source(e.operand(3), Ty::u32);
    Inst& in = e.emit(shf);
    in.op[0] = e.destination(e.operand(0), Ty::b32);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.sub = static_cast<std::uint8_t>((s.has("l") ? 1u : 0u) | (s.has("clamp") ? 2u : 0u));
    return true;
}

// popc/clz/brev/bfind: the source's type, a u32 result (brev: the source's type).
template <template <class> class H>
bool bit_count(Emitter& e, bool result_same_type, std::uint8_t sub = 0) {
    const Ty t = e.suffixes().type();
    Handler h = by_integer_type<H>(t);
    if (h == nullptr) return false;
    const std::uint32_t a = e.source(e.operand(1), t);
    Inst& in = e.emit(h);
    in.op[0] = e.destination(e.operand(0), result_same_type ? t : Ty::u32);
    in.op[1] = a;
    in.sub = sub;
    return true;
}
bool decode_popc(Emitter& e) { return bit_count<Popc>(e, false); }
bool decode_clz(Emitter& e) { return bit_count<Clz>(e, false); }
bool decode_brev(Emitter& e) { return bit_count<Brev>(e, true); }
bool decode_bfind(Emitter& e) { return bit_count<Bfind>(e, false, e.suffixes().has("shiftamt") ? 1 : 0); }

bool decode_bfe(Emitter& e) {
    const Ty t = e.suffixes().type();
    Handler h = by_integer_type<Bfe>(t);
    if (h == nullptr) return false;
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), Ty::u32),
                        c = e.source(e.operand(3), Ty::u32);
    Inst& in = e.emit(h);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    return true;
}
bool decode_bfi(Emitter& e) {
    const Ty t = e.suffixes().type();
    Handler h = by_integer_type<Bfi>(t);
    if (h == nullptr) return false;
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t),
                        c = e.source(e.operand(3), Ty::u32), d = e.source(e.operand(4), Ty::u32);
    Inst& in = e.emit(h);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.op[4] = d;
    return true;
}

bool decode_prmt(Emitter& e) {
    const Suffixes& s = e.suffixes();
    static const char* const modes[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
    std::uint8_t mode = 0;
    for (std::uint8_t i = 1; i < 7; ++i) {
        if (s.has(modes[i])) mode = i;
    }
    const std::uint32_t a = e.source(e.operand(1), Ty::b32), b = e.source(e.operand(2), Ty::b32),
                        c = e.source(e.operand(3), Ty::b32);
    Inst& in = e.emit(prmt);
    in.op[0] = e.destination(e.operand(0), Ty::b32);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.sub = mode;
    return true;
}

bool decode_lop3(Emitter& e) {
    if (e.operand(0).pair.size() > 0) {
        e.unsupported("lop3 with a predicate result (sm_100) is not implemented by the CPU device");
        return true;
    }
    const ptx::Operand& lut = e.operand(4);
    if (lut.kind != ptx::Operand::Kind::integer) e.error("lop3's lookup table must be an immediate");
    const std::uint32_t a = e.source(e.operand(1), Ty::b32), b = e.source(e.operand(2), Ty::b32),
                        c = e.source(e.operand(3), Ty::b32);
    Inst& in = e.emit(lop3);
    in.op[0] = e.destination(e.operand(0), Ty::b32);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.imm = lut.integer & 0xFF;
    return true;
}

bool decode_dp(Emitter& e, bool four) {
    const Suffixes& s = e.suffixes();
    const Ty ta = s.type(0), tb = s.type(1);
    const std::uint32_t a = e.source(e.operand(1), Ty::b32), b = e.source(e.operand(2), Ty::b32),
                        c = e.source(e.operand(3), Ty::b32);
    Inst& in = e.emit(four ? dp4a : dp2a);
    in.op[0] = e.destination(e.operand(0), Ty::b32);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.sub = static_cast<std::uint8_t>((is_signed(ta) ? 1u : 0u) | (is_signed(tb) ? 2u : 0u));
    in.size = s.has("hi") ? 1 : 0;
    return true;
}
bool decode_dp4a(Emitter& e) { return decode_dp(e, true); }
bool decode_dp2a(Emitter& e) { return decode_dp(e, false); }

bool decode_bmsk(Emitter& e) {
    const std::uint32_t a = e.source(e.operand(1), Ty::b32), b = e.source(e.operand(2), Ty::b32);
    Inst& in = e.emit(bmsk);
    in.op[0] = e.destination(e.operand(0), Ty::b32);
    in.op[1] = a;
    in.op[2] = b;
    in.sub = e.suffixes().has("wrap") ? 1 : 0;
    return true;
}
bool decode_szext(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), Ty::u32);
    Inst& in = e.emit(szext);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.op[2] = b;
    in.sub = static_cast<std::uint8_t>((s.has("wrap") ? 1u : 0u) | (is_signed(t) ? 2u : 0u));
    return true;
}

}  // namespace

Handler predicate_move_handler() { return mov_pred; }

void register_integer_ops(OpTable& t) {
    add_op(t, "add", decode_add);
    add_op(t, "add", decode_add_carry);
    add_op(t, "sub", decode_sub);
    add_op(t, "sub", decode_sub_carry);
    add_op(t, "addc", decode_addc);
    add_op(t, "subc", decode_subc);
    add_op(t, "mul", decode_mul);
    add_op(t, "mad", decode_mad);
    add_op(t, "madc", decode_madc);
    add_op(t, "mul24", decode_mul24);
    add_op(t, "mad24", decode_mad24);
    add_op(t, "div", decode_div);
    add_op(t, "rem", decode_rem);
    add_op(t, "abs", decode_abs);
    add_op(t, "neg", decode_neg);
    add_op(t, "sad", decode_sad);
    add_op(t, "min", decode_min);
    add_op(t, "max", decode_max);
    add_op(t, "and", decode_and);
    add_op(t, "or", decode_or);
    add_op(t, "xor", decode_xor);
    add_op(t, "not", decode_not);
    add_op(t, "cnot", decode_cnot);
    add_op(t, "shl", decode_shl);
    add_op(t, "shr", decode_shr);
    add_op(t, "shf", decode_shf);
    add_op(t, "popc", decode_popc);
    add_op(t, "clz", decode_clz);
    add_op(t, "brev", decode_brev);
    add_op(t, "bfind", decode_bfind);
    add_op(t, "bfe", decode_bfe);
    add_op(t, "bfi", decode_bfi);
    add_op(t, "prmt", decode_prmt);
    add_op(t, "lop3", decode_lop3);
    add_op(t, "dp4a", decode_dp4a);
    add_op(t, "dp2a", decode_dp2a);
    add_op(t, "bmsk", decode_bmsk);
    add_op(t, "szext", decode_szext);
}

}  // namespace xcuda::cpu
