// Logic, shifts and bit manipulation, as the PTX ISA defines them for .b/.s/.u 16/32/64 and
// predicates: and/or/xor/not, shifts and funnel shifts, population count and bit finding, the
// bit-field instructions with their clamping rules, byte permutes, lop3, packed dot products.
#include "exec/ops/integer_decode.hpp"
#include "exec/ops/lanes.hpp"

#include <algorithm>
#include <climits>
#include <limits>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;

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
    return emit_same_typed<H>(e, sources);
}
bool decode_and(Emitter& e) { return logic<And>(e, 2, and_pred); }
bool decode_or(Emitter& e) { return logic<Or>(e, 2, or_pred); }
bool decode_xor(Emitter& e) { return logic<Xor>(e, 2, xor_pred); }
bool decode_not(Emitter& e) { return logic<Not>(e, 1, not_pred); }
bool decode_cnot(Emitter& e) { return emit_same_typed<CNot>(e, 1); }

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

void register_bits_ops(OpTable& t) {
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
