// atom and red: read-modify-write on global, shared and generic memory. Blocks run in parallel
// on the workers, so global atomics are host atomics (a compare-and-swap loop covers every
// operation and width); a CTA's shared memory belongs to one worker, where the same loop is
// uncontended. The lanes of one warp instruction apply in lane order.
#include "exec/decode/decode.hpp"
#include "exec/global_race_notes.hpp"
#include "exec/ops/lanes.hpp"
#include "exec/memory_access.hpp"
#include "exec/memory_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

enum class Op : std::uint8_t { add, min, max, inc, dec, and_, or_, xor_, exch, cas };
constexpr std::uint8_t op_bits = 0x0F;
// In `sub` beside the Op: .release or .acq_rel semantics (the global race check's release; a
// relaxed atomic releases only after a fence).
constexpr std::uint8_t release_semantics = 0x80;
enum class Kind : std::uint8_t { u32, s32, u64, s64, f32, f64, b16, f16, bf16 };
enum class Where : std::uint8_t { global, shared, generic };

template <class T>
T bits_as(U64 v) {
    T t;
    std::memcpy(&t, &v, sizeof(T));
    return t;
}

float half_to_float(std::uint16_t h) {
    const U32 sign = (h >> 15) & 1u, exp = (h >> 10) & 31u, man = h & 1023u;
    float v;
    if (exp == 0) {
        v = std::ldexp(static_cast<float>(man), -24);
    } else if (exp == 31) {
        v = man != 0 ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    } else {
        v = std::ldexp(static_cast<float>(man | 1024u), static_cast<int>(exp) - 25);
    }
    return sign ? -v : v;
}

// f32 to f16, round to nearest even (what atom.add.noftz.f16 rounds with).
std::uint16_t float_to_half(float f) {
    U32 x;
    std::memcpy(&x, &f, 4);
    const U32 sign = (x >> 16) & 0x8000u;
    const U32 absx = x & 0x7FFFFFFFu;
    if (absx > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7FFFu);
    if (absx >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to infinity
    if (absx < 0x33000001u) return static_cast<std::uint16_t>(sign);             // rounds to zero
    int e = static_cast<int>(absx >> 23) - 127;
    U32 mant = (absx & 0x7FFFFFu) | 0x800000u;
    int shift;
    U32 base;
    if (e < -14) {  // subnormal half
        shift = -e - 14 + 13;
        base = 0;
    } else {
        shift = 13;
        base = static_cast<U32>(e + 15) << 10;
        mant &= 0x7FFFFFu;
    }
    U32 q = mant >> shift;
    const U32 rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    return static_cast<std::uint16_t>(sign | (base + q));
}

float bf16_to_float(std::uint16_t h) {
    const U32 x = U32{h} << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

std::uint16_t float_to_bf16(float f) {
    U32 x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
    const U32 round = 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<std::uint16_t>((x + round) >> 16);
}

// The new value of one operation on `old` (raw bits), with operand b (and c for cas).
template <class T>
T apply(Op op, Kind kind, T old, T b, T c) {
    switch (op) {
        case Op::exch: return b;
        case Op::cas: return old == b ? c : old;
        case Op::and_: return static_cast<T>(old & b);
        case Op::or_: return static_cast<T>(old | b);
        case Op::xor_: return static_cast<T>(old ^ b);
        case Op::inc: return static_cast<T>(old >= b ? T{0} : static_cast<T>(old + 1));
        case Op::dec: return static_cast<T>((old == 0 || old > b) ? b : static_cast<T>(old - 1));
        default: break;
    }
    if constexpr (sizeof(T) == 2) {
        if (kind == Kind::f16 || kind == Kind::bf16) {
            const bool h = kind == Kind::f16;
            const float a = h ? half_to_float(old) : bf16_to_float(old), v = h ? half_to_float(b) : bf16_to_float(b);
            float r = op == Op::add ? a + v : op == Op::min ? std::fmin(a, v) : std::fmax(a, v);
            return h ? float_to_half(r) : float_to_bf16(r);
        }
    }
    if constexpr (sizeof(T) == 4) {
        if (kind == Kind::f32) {
            const float a = bits_as<float>(old), v = bits_as<float>(b);
            const float r = op == Op::add ? a + v : op == Op::min ? std::fmin(a, v) : std::fmax(a, v);
            U32 out;
            std::memcpy(&out, &r, 4);
            return out;
        }
        if (kind == Kind::s32) {
            const auto a = static_cast<std::int32_t>(old), v = static_cast<std::int32_t>(b);
            if (op == Op::min) return static_cast<T>(std::min(a, v));
            if (op == Op::max) return static_cast<T>(std::max(a, v));
        }
    }
    if constexpr (sizeof(T) == 8) {
        if (kind == Kind::f64) {
            const double a = bits_as<double>(old), v = bits_as<double>(b);
            const double r = op == Op::add ? a + v : op == Op::min ? std::fmin(a, v) : std::fmax(a, v);
            U64 out;
            std::memcpy(&out, &r, 8);
            return out;
        }
        if (kind == Kind::s64) {
            const auto a = static_cast<std::int64_t>(old), v = static_cast<std::int64_t>(b);
            if (op == Op::min) return static_cast<T>(std::min(a, v));
            if (op == Op::max) return static_cast<T>(std::max(a, v));
        }
    }
    if (op == Op::add) return static_cast<T>(old + b);
    if (op == Op::min) return std::min(old, b);
    return std::max(old, b);
}

constexpr MemorySpace space_of(Where w) {
    return w == Where::global ? MemorySpace::global : w == Where::shared ? MemorySpace::shared : MemorySpace::generic;
}

template <class T>
T atomic_rmw(std::byte* p, Op op, Kind kind, T b, T c) {
    T* target = reinterpret_cast<T*>(p);
    T old = __atomic_load_n(target, __ATOMIC_RELAXED);
    for (;;) {
        const T next = apply<T>(op, kind, old, b, c);
        if (__atomic_compare_exchange_n(target, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return old;
    }
}

// Layout: op[0] d (no_guard for red), op[1] b, op[2] c (cas), op[3] the address register,
// size: the address register's bytes (0: an absolute address in imm), imm: displacement,
// sub: Op (and release_semantics), space: Where, target: Kind.
template <class T, Where W>
void atom(Exec& x, const Inst& in, U32 mask) {
    const auto op = static_cast<Op>(in.sub & op_bits);
    const auto kind = static_cast<Kind>(in.target);
    const T* b = x.reg<T>(in.op[1]);
    const T* c = in.op[2] != no_guard ? x.reg<T>(in.op[2]) : nullptr;
    T* d = in.op[0] != no_guard ? x.reg<T>(in.op[0]) : nullptr;
    while (mask != 0) {
        const unsigned l = first_lane(mask);
        mask &= mask - 1;
        const U64 base = in.size == 8 ? x.reg<U64>(in.op[3])[l] : in.size == 4 ? U64{x.reg<U32>(in.op[3])[l]} : 0u;
        const U64 address = base + static_cast<U64>(in.imm);
        if (x.checks && op != Op::exch && !(W == Where::global && address >= x.ok_begin && address < x.ok_end) &&
            !atomic_operand_written(x, address, sizeof(T), l, space_of(W))) {
            return;
        }
        std::byte* p = nullptr;
        if constexpr (W == Where::global) p = global_address(x, address, sizeof(T), l, Access::atomic);
        if constexpr (W == Where::shared) p = shared_address(x, address, sizeof(T), l, Access::atomic);
        if constexpr (W == Where::generic) p = generic_address(x, address, sizeof(T), l, Access::atomic);
        if (p == nullptr) return;
        const bool raced =
            x.races != nullptr && (W == Where::global || (W == Where::generic && resolved_to_global(x, address)));
        if (raced) note_global_atomic_release(x, address, sizeof(T), l, (in.sub & release_semantics) != 0);
        const T old = atomic_rmw<T>(p, op, kind, b[l], c != nullptr ? c[l] : T{});
        if (raced) note_global_atomic_acquire(x, address);
        if (d != nullptr) d[l] = old;
    }
}

template <class T>
Handler by_space(Where w) {
    switch (w) {
        case Where::global: return &atom<T, Where::global>;
        case Where::shared: return &atom<T, Where::shared>;
        case Where::generic: return &atom<T, Where::generic>;
    }
    return nullptr;
}

bool decode_atomic(Emitter& e, bool has_result) {
    const Suffixes& s = e.suffixes();
    if (s.vector > 1) {
        e.unsupported("vector atomics (atom.v2/.v4, sm_90) are not implemented by the CPU device");
        return true;
    }
    static const std::pair<const char*, Op> ops[] = {
        {"add", Op::add},  {"min", Op::min}, {"max", Op::max},  {"inc", Op::inc},   {"dec", Op::dec},
        {"and", Op::and_}, {"or", Op::or_},  {"xor", Op::xor_}, {"exch", Op::exch}, {"cas", Op::cas}};
    Op op = Op::add;
    bool found = false;
    for (const auto& [name, o] : ops) {
        if (s.has(name)) {
            op = o;
            found = true;
        }
    }
    if (!found) e.error("no atomic operation named");
    const Ty t = s.type();
    Kind kind;
    switch (t) {
        case Ty::u32:
        case Ty::b32: kind = Kind::u32; break;
        case Ty::s32: kind = Kind::s32; break;
        case Ty::u64:
        case Ty::b64: kind = Kind::u64; break;
        case Ty::s64: kind = Kind::s64; break;
        case Ty::f32: kind = Kind::f32; break;
        case Ty::f64: kind = Kind::f64; break;
        case Ty::b16:
        case Ty::u16: kind = Kind::b16; break;
        case Ty::f16: kind = Kind::f16; break;
        case Ty::bf16: kind = Kind::bf16; break;
        default:
            e.unsupported(std::string("atomics on .") + type_name(t) + " are not implemented by the CPU device");
            return true;
    }
    const Where where = s.space == MemorySpace::global   ? Where::global
                        : s.space == MemorySpace::shared ? Where::shared
                                                         : Where::generic;
    const std::size_t first = has_result ? 1 : 0;
    const Emitter::Address a = e.address(e.operand(first));
    const std::uint32_t b = e.source(e.operand(first + 1), t);
    const std::uint32_t c = op == Op::cas ? e.source(e.operand(first + 2), t) : no_guard;
    Handler h = nullptr;
    switch (type_size(t)) {
        case 2: h = by_space<std::uint16_t>(where); break;
        case 4: h = by_space<U32>(where); break;
        case 8: h = by_space<U64>(where); break;
        default: e.error("an atomic of this size");
    }
    Inst& in = e.emit(h);
    in.op[0] = has_result ? e.destination(e.operand(0), t) : no_guard;
    in.op[1] = b;
    in.op[2] = c;
    in.op[3] = a.base;
    in.size = static_cast<std::uint8_t>(a.base == no_guard ? 0 : a.base_bytes);
    in.imm = a.offset;
    const bool releases = s.semantics == Semantics::release || s.semantics == Semantics::acq_rel;
    in.sub = static_cast<std::uint8_t>(static_cast<std::uint8_t>(op) | (releases ? release_semantics : 0));
    in.space = static_cast<std::uint8_t>(where);
    in.target = static_cast<std::uint32_t>(kind);
    return true;
}

bool decode_atom(Emitter& e) { return decode_atomic(e, true); }
bool decode_red(Emitter& e) { return decode_atomic(e, false); }

}  // namespace

void register_atomic_ops(OpTable& t) {
    add_op(t, "atom", decode_atom);
    add_op(t, "red", decode_red);
}

}  // namespace xcuda::cpu
