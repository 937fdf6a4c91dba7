// Loads and stores in every state space (vectors, registers wider than the access, volatile and
// acquire/release forms), address conversion between spaces (cvta, isspacep), and the memory
// instructions that only hint (prefetch, cache policies) or complete at once here (cp.async).
#include "check/shared_race.hpp"
#include "check/shared_state.hpp"
#include "exec/decode/decode.hpp"
#include "exec/global_race_notes.hpp"
#include "exec/ops/lanes.hpp"
#include "exec/memory_access.hpp"
#include "exec/run/race_clock.hpp"
#include "exec/ops/special_registers.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

enum class Where : std::uint8_t { global, shared, local, generic, kernel_param, func_param, constant };

// Layout of a memory Inst: op[0..3] the vector's registers (loads: destinations, stores:
// sources), op[4] the address register (no_guard: none), imm the displacement, size the address
// register's bytes, sub the vector length; op[5] and target the .param slot (offset, bytes per
// lane) of a function parameter access.
constexpr int address_operand = 4;

// `sub` holds the vector length in its low bits; this bit marks an address relative to the
// frame's .local base ([__local_depot0+8], as -G builds write).
constexpr std::uint8_t frame_relative = 0x80;
constexpr std::uint8_t vector_bits = 0x0F;
// A strong store with .release semantics (the global race check's release; a volatile or relaxed
// store releases only after a fence).
constexpr std::uint8_t release_semantics = 0x40;

inline U64 lane_address(const Exec& x, const Inst& in, unsigned l) {
    const auto disp = static_cast<U64>(in.imm) + ((in.sub & frame_relative) ? x.frame_local_base : 0u);
    if (in.size == 8) return x.reg<U64>(in.op[address_operand])[l] + disp;
    if (in.size == 4) return U64{x.reg<U32>(in.op[address_operand])[l]} + disp;
    return disp;
}

std::byte* func_param_address(Exec& x, const Inst& in, U64 offset, unsigned size, unsigned lane) {
    if (offset + size > in.target) {
        Finding f;
        f.kind = FindingKind::out_of_bounds;
        f.access = Access::read;
        f.space = MemorySpace::param;
        f.size = size;
        f.address = offset;
        f.detail = "the parameter has " + std::to_string(in.target) + " bytes";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return nullptr;
    }
    return x.regs + in.op[5] + std::size_t{lane} * in.target + offset;
}

template <Where W>
inline std::byte* resolve(Exec& x, const Inst& in, U64 address, unsigned size, unsigned lane, Access access,
                          Strength strength = Strength::weak) {
    if constexpr (W == Where::global) return global_address(x, address, size, lane, access);
    if constexpr (W == Where::constant) return global_address(x, address, size, lane, access, MemorySpace::constant);
    if constexpr (W == Where::shared) return shared_address(x, address, size, lane, access, strength);
    if constexpr (W == Where::local) return local_address(x, address, size, lane, access);
    if constexpr (W == Where::generic) return generic_address(x, address, size, lane, access, strength);
    if constexpr (W == Where::kernel_param) return kernel_param_address(x, address, size, lane, access);
    if constexpr (W == Where::func_param) return func_param_address(x, in, address, size, lane);
    return nullptr;
}

template <unsigned N, bool S>
using MemInt =
    std::conditional_t<N == 1, std::conditional_t<S, std::int8_t, std::uint8_t>,
                       std::conditional_t<N == 2, std::conditional_t<S, std::int16_t, std::uint16_t>,
                                          std::conditional_t<N == 4, std::conditional_t<S, std::int32_t, std::uint32_t>,
                                                             std::conditional_t<S, std::int64_t, std::uint64_t>>>>;

template <unsigned R>
using RegInt = std::conditional_t<
    R == 1, std::uint8_t,
    std::conditional_t<R == 2, std::uint16_t, std::conditional_t<R == 4, std::uint32_t, std::uint64_t>>>;

// Memory bytes (N of them) into a register lane of R bytes: sign- or zero-extended.
template <unsigned N, unsigned R, bool S>
inline void to_register(std::byte* reg, unsigned lane, const std::byte* mem) {
    if constexpr (N >= R) {
        std::memcpy(reg + std::size_t{lane} * R, mem, R);
    } else {
        MemInt<N, S> v;
        std::memcpy(&v, mem, N);
        const auto r = static_cast<RegInt<R>>(v);
        std::memcpy(reg + std::size_t{lane} * R, &r, R);
    }
}

template <unsigned N>
inline void ordered_read(std::byte* out, const std::byte* p) {
    if constexpr (N == 4 || N == 8) {
        using T = std::conditional_t<N == 4, U32, U64>;
        const T v = __atomic_load_n(reinterpret_cast<const T*>(p), __ATOMIC_ACQUIRE);
        std::memcpy(out, &v, N);
    } else {
        std::memcpy(out, p, N);
    }
}

// The teaching profile's memory counts for one warp instruction (only while profiling): a global
// access is one request and as many 32-byte sectors as its lanes touch (4 for 32 coalesced floats,
// 32 for a stride of 32 floats); a shared access costs one wavefront per lane that needs a bank
// another lane already uses for a different word (a broadcast of one word is free). Wider accesses
// go through the banks in phases, as a GPU's do: 16 lanes at a time for 8 bytes, 8 for 16.
template <Where W>
void count_access(Exec& x, const Inst& in, U32 mask, unsigned size) {
    InstructionCounts& c = x.counts[x.pc];
    U64 sectors[32 * 2];
    unsigned n_sectors = 0, shared_lanes = 0;
    U64 shared_offsets[32];
    U32 shared_mask = 0;
    for_lanes(mask, [&](unsigned l) {
        const U64 a = lane_address(x, in, l);
        MemorySpace space = W == Where::global || W == Where::constant ? MemorySpace::global
                            : W == Where::shared                       ? MemorySpace::shared
                                                                       : MemorySpace::none;
        U64 offset = a;
        if constexpr (W == Where::generic) {
            space = generic_space(x, a, l);
            if (space == MemorySpace::shared) offset = a - shared_window_base(x);
        }
        if (space == MemorySpace::global) {
            for (U64 s = a / 32; s <= (a + size - 1) / 32 && n_sectors < 64; ++s) sectors[n_sectors++] = s;
        } else if (space == MemorySpace::shared) {
            shared_offsets[l] = offset;
            shared_mask |= 1u << l;
            ++shared_lanes;
        }
    });
    if (n_sectors > 0) {
        ++c.requests;
        std::sort(sectors, sectors + n_sectors);
        c.sectors += static_cast<std::uint64_t>(std::unique(sectors, sectors + n_sectors) - sectors);
    }
    if (shared_lanes > 0) {
        const unsigned words = std::max(1u, size / 4), phase_lanes = 32 / std::min(words, 4u);
        for (unsigned first = 0; first < 32; first += phase_lanes) {
            U64 bank_words[32][32];
            unsigned depth[32] = {};
            unsigned deepest = 0;
            for (unsigned l = first; l < first + phase_lanes; ++l) {
                if (!((shared_mask >> l) & 1u)) continue;
                for (unsigned w = 0; w < words; ++w) {
                    const U64 word = shared_offsets[l] / 4 + w;
                    const unsigned bank = static_cast<unsigned>(word % 32);
                    bool seen = false;
                    for (unsigned i = 0; i < depth[bank] && !seen; ++i) seen = bank_words[bank][i] == word;
                    if (!seen) bank_words[bank][depth[bank]++] = word;
                    deepest = std::max(deepest, depth[bank]);
                }
            }
            if (deepest > 1) c.bank_conflicts += deepest - 1;
        }
    }
}

// Whether a store of `n` bytes of `value` at `p` would leave memory as it is (the race check's
// benign same-value write); the common sizes compare without a call.
inline bool same_bytes(const std::byte* p, const std::byte* value, unsigned n) {
    switch (n) {
        case 4: return std::memcmp(p, value, 4) == 0;
        case 8: return std::memcmp(p, value, 8) == 0;
        case 16: return std::memcmp(p, value, 16) == 0;
        default: return std::memcmp(p, value, n) == 0;
    }
}

// The global race check's part of a global (or generic) load that passed its checks: a plain
// load is recorded, a strong one acquires.
template <Where W, bool Ordered>
inline void race_load(Exec& x, U64 address, unsigned size, unsigned lane) {
    if (x.races == nullptr || (W == Where::generic && !resolved_to_global(x, address))) return;
    if constexpr (Ordered) {
        note_global_acquire(x, address);
    } else {
        note_global_read(x, address, size, lane);
    }
}

// Every lane's address of a memory instruction (inactive lanes' too: their registers exist), in
// one branch-free loop the compiler vectorises.
inline void lane_addresses(const Exec& x, const Inst& in, U64 (&out)[32]) {
    const auto disp = static_cast<U64>(in.imm) + ((in.sub & frame_relative) ? x.frame_local_base : 0u);
    if (in.size == 8) {
        const U64* a = x.reg<U64>(in.op[address_operand]);
        for (unsigned l = 0; l < 32; ++l) out[l] = a[l] + disp;
    } else if (in.size == 4) {
        const U32* a = x.reg<U32>(in.op[address_operand]);
        for (unsigned l = 0; l < 32; ++l) out[l] = U64{a[l]} + disp;
    } else {
        for (unsigned l = 0; l < 32; ++l) out[l] = disp;
    }
}

// The lanes of a warp's shared access grouped by the offset they access, each group a lane mask
// (lanes_of), in the order of the groups' lowest lanes: a broadcast (every lane reads one word) is
// one group, a row of a tile read by half a warp each two, and when the warp's second half repeats
// its first (a 16-wide tile's column) lane l and lane l + 16 are one. A group need not hold every
// lane of its offset (two groups may share one, other offsets between them), but each lane is in
// exactly one, and a group's lanes in lane order act on the shadow's word as those lanes' accesses
// one by one do.
struct SharedGroups {
    U32 starts = 0;       // each group's first lane (below 16 with `halves`)
    U32 mask = 0;         // the active lanes
    bool halves = false;  // lane l < 16 stands for l + 16 too
};

// The lanes of the group that starts at lane `l`; `later` holds the later groups' starts.
[[gnu::always_inline]] inline U32 lanes_of(const SharedGroups& g, unsigned l, U32 later) {
    const U32 below_next = later == 0 ? all_lanes : (1u << first_lane(later)) - 1;
    U32 lanes = below_next & ~((1u << l) - 1);
    if (g.halves) lanes = (lanes & 0xFFFFu) | ((lanes & 0xFFFFu) << 16);
    return lanes & g.mask;
}

// `offsets` are the window offsets of a full warp (each below 2^32: the bounds are checked).
inline SharedGroups group_lanes(const U32 (&offsets)[32], U32 mask) {
    SharedGroups g;
    g.mask = mask;
    if (mask != all_lanes) {
        U32 last = 0;
        for (U32 m = mask; m != 0; m &= m - 1) {
            const unsigned l = first_lane(m);
            if (g.starts == 0 || offsets[l] != last) g.starts |= 1u << l;
            last = offsets[l];
        }
        return g;
    }
    U32 same_as_previous = 0, halves_equal = 0;  // bit l: offsets[l] == offsets[l - 1]; == offsets[l + 16]
#if defined(__SSE2__)
    for (unsigned l = 0; l < 32; l += 4) {
        const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(offsets + l));
        // offsets[l - 1 .. l + 2] (lane -1 compares unequal: lane 0 starts a group)
        const __m128i before = l == 0 ? _mm_set_epi32(static_cast<int>(offsets[2]), static_cast<int>(offsets[1]),
                                                      static_cast<int>(offsets[0]), static_cast<int>(~offsets[0]))
                                      : _mm_loadu_si128(reinterpret_cast<const __m128i*>(offsets + l - 1));
        same_as_previous |= static_cast<U32>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(here, before)))) << l;
        if (l < 16) {
            const __m128i upper = _mm_loadu_si128(reinterpret_cast<const __m128i*>(offsets + l + 16));
            halves_equal |= static_cast<U32>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(here, upper)))) << l;
        }
    }
#else
    for (unsigned l = 1; l < 32; ++l) same_as_previous |= static_cast<U32>(offsets[l] == offsets[l - 1]) << l;
    for (unsigned l = 0; l < 16; ++l) halves_equal |= static_cast<U32>(offsets[l] == offsets[l + 16]) << l;
#endif
    g.halves = halves_equal == 0xFFFFu;
    g.starts = ~same_as_previous & (g.halves ? 0xFFFFu : all_lanes);
    return g;
}

// The groups of `g` as lane masks, each with its first lane; returns how many.
inline unsigned list_groups(const SharedGroups& g, U32 (&lanes)[32], std::uint8_t (&lane)[32]) {
    unsigned n = 0;
    for (U32 s = g.starts; s != 0; ++n) {
        const unsigned l = first_lane(s);
        s &= s - 1;
        lanes[n] = lanes_of(g, l, s);
        lane[n] = static_cast<std::uint8_t>(l);
    }
    return n;
}

// The shape of the address register's values for this access (lanes `mask`): one the worker
// kept, when the register holds the same values, or a new one; nullptr when the values do not fit
// one (an active value past 2^32, a register other than 4 or 8 bytes, a frame-relative address).
const SharedAddressShape* shared_shape(Exec& x, const Inst& in, U32 mask) {
    if ((in.size != 4 && in.size != 8) || (in.sub & frame_relative)) return nullptr;
    const std::byte* reg = x.regs + in.op[address_operand];
    const std::size_t bytes = std::size_t{32} * in.size;
    // (two fixed-size loads: a memcpy of in.size bytes compiles to a slow `rep movs`)
    U64 lane0;
    if (in.size == 8) {
        std::memcpy(&lane0, reg, 8);
    } else {
        U32 v;
        std::memcpy(&v, reg, 4);
        lane0 = v;
    }
    if (x.shared_shapes == nullptr) x.shared_shapes = std::make_unique<SharedAddressShape[]>(Exec::shared_shape_slots);
    constexpr unsigned slot_bits = 6;  // 64 slots
    static_assert(Exec::shared_shape_slots == 1u << slot_bits);
    SharedAddressShape& s =
        x.shared_shapes[static_cast<std::size_t>((lane0 * 0x9E3779B97F4A7C15ull) >> (64 - slot_bits))];
    if (s.width == in.size && s.mask == mask && std::memcmp(s.values, reg, bytes) == 0) return &s;
    U64 values[32];
    if (in.size == 8) {
        std::memcpy(values, reg, bytes);
    } else {
        const U32* v = reinterpret_cast<const U32*>(reg);
        for (unsigned l = 0; l < 32; ++l) values[l] = v[l];
    }
    U64 highest = 0, lowest = ~U64{0}, low = 0;
    for (unsigned l = 0; l < 32; ++l) {
        const bool active = (mask >> l) & 1u;
        const U64 v = active ? values[l] : 0;
        highest = v > highest ? v : highest;
        lowest = active && v < lowest ? v : lowest;
        low |= v;
    }
    if (highest >> 32 != 0) return nullptr;
    std::memcpy(s.values, reg, bytes);
    for (unsigned l = 0; l < 32; ++l) s.offsets[l] = static_cast<U32>(values[l]);
    s.highest = highest;
    s.lowest = lowest;
    s.low_bits = static_cast<U32>(low);
    s.mask = mask;
    s.width = static_cast<std::uint8_t>(in.size);
    s.groups = static_cast<std::uint8_t>(list_groups(group_lanes(s.offsets, mask), s.group_lanes, s.group_lane));
    s.period = 0;
    s.stride = s.offsets[1] - s.offsets[0];
    if (mask == all_lanes && s.stride != 0 && s.stride <= 16) {
        bool row = true, halves = true;
        for (unsigned l = 0; l < 32; ++l) {
            row &= s.offsets[l] == s.offsets[0] + l * s.stride;
            halves &= s.offsets[l] == s.offsets[0] + (l % 16) * s.stride;
        }
        s.period = row ? 32 : halves ? 16 : 0;
    }
    return &s;
}

// Whether every active lane's window offset through `shape` at displacement `disp` (its value plus
// disp, which may be negative: NVRTC's in loops unrolled by 4, [%rd+-128]) lies in [0, limit] and
// is aligned to `align`; lane l's is then offsets[l] + U32(disp), summed in 32 bits.
[[gnu::always_inline]] inline bool displacement_fits(const SharedAddressShape& shape, std::int64_t disp, U64 limit,
                                                     U64 align) {
    const auto d = static_cast<U64>(disp);
    if (((shape.low_bits | d) & (align - 1)) != 0) return false;
    if (disp >= 0) {
        const U64 top = shape.highest + d;  // no lane's offset wraps when this does not
        return top >= d && top <= limit;
    }
    const U64 back = U64{0} - d;
    return shape.lowest >= back && shape.highest - back <= limit;
}

// A warp's shared loads at once, when every lane's access is in the CTA's own window, aligned and
// word-sized (or a multiple): one bounds check for the warp (from the register's shape and the
// displacement, when the shape is kept); the memory check and the race shadow once per word for
// each group of lanes reading it (record_reads leaves the shadow as lane-by-lane reads would).
// Anything else (another CTA's window, a finding to report, a race) takes the per-lane path, which
// says what is wrong; nothing is recorded here then.
template <unsigned N, unsigned R, bool S>
bool load_shared_fast(Exec& x, const Inst& in, U32 mask) {
    const unsigned vec = in.sub & vector_bits, size = N * vec;
    const U64 window_bytes = x.launch->shared_window_bytes;
    if (size % 4 != 0 || size > window_bytes) return false;
    const U64 limit = window_bytes - size;  // the highest offset an access may start at; below 2^32
    const U32* offsets;  // lane l accesses offsets[l] + disp (the instruction's; 0 for computed offsets)
    std::int64_t disp = 0;
    const U32* group_masks;  // the lanes grouped by offset: each group's lanes and one of them
    const std::uint8_t* group_lane;
    unsigned groups;
    U32 computed[32], computed_masks[32];
    std::uint8_t computed_lane[32];
    unsigned row = 0;  // the period of a row of words (SharedAddressShape::period), 0 when not one
    if (const SharedAddressShape* shape = shared_shape(x, in, mask)) {
        if (!displacement_fits(*shape, in.imm, limit, size)) return false;
        disp = in.imm;
        offsets = shape->offsets;
        group_masks = shape->group_lanes;
        group_lane = shape->group_lane;
        groups = shape->groups;
        if (shape->stride == size) row = shape->period;
    } else {
        U64 addresses[32];
        lane_addresses(x, in, addresses);
        // Out of the window (or misaligned): some lane's offset above `limit` (or, past 2^32, with
        // high bits), or low bits set.
        U64 bad = 0;
        for (unsigned l = 0; l < 32; ++l) {
            const U64 o = ((mask >> l) & 1u) ? addresses[l] : 0;
            bad |= (o >> 32) | ((limit - o) >> 63) | (o & (size - 1));
        }
        if (bad != 0) return false;
        for (unsigned l = 0; l < 32; ++l) computed[l] = static_cast<U32>(addresses[l]);
        offsets = computed;
        groups = list_groups(group_lanes(computed, mask), computed_masks, computed_lane);
        group_masks = computed_masks;
        group_lane = computed_lane;
    }
    const auto add = static_cast<U32>(disp);  // a word's offset: offsets[l] + add, in 32 bits
    Cta& cta = *x.cta;
    if (x.checks && cta.shadow != nullptr) {
        const auto syncs = static_cast<std::uint16_t>(x.warp->warp_syncs);
        const auto first = static_cast<std::uint16_t>(x.warp->first_thread);
        const std::uint64_t now = *x.epochs, horizon = race_horizon(x);
        const SharedState* state = cta.shared_state;
        SharedShadow& shadow = *cta.shadow;
        const unsigned words = size / 4;
        const U32 base = (offsets[0] + add) / 4;
        if (row != 0 && shadow.writes_ordered_before(base, row * words, horizon)) {
            // A row of words, each lane's its own (or shared by the two halves), and nothing written
            // there since the horizon (no read can race): one range for the memory check, the
            // readers recorded later (or never, when a barrier comes first).
            if (state != nullptr && !state->range_written(base * 4, row * size)) return false;
            shadow.defer_reads(base, words, row, first, syncs, x.pc, now);
        } else {
            // A red zone or a byte nobody wrote, or a race: the per-lane path reports (or holds) it.
            for (unsigned g = 0; g < groups; ++g) {
                const U32 word = (offsets[group_lane[g]] + add) / 4;
                for (unsigned w = 0; w < words; ++w) {
                    if (state != nullptr && !state->word_written(word + w)) return false;
                    if (shadow.read_would_race(word + w, first, group_masks[g], syncs, horizon)) return false;
                }
            }
            for (unsigned g = 0; g < groups; ++g) {
                const U32 word = (offsets[group_lane[g]] + add) / 4;
                for (unsigned w = 0; w < words; ++w)
                    shadow.record_reads(word + w, first, group_masks[g], syncs, x.pc, now);
            }
        }
    }
    // Lane l's bytes: window + offsets[l], in integers (window lies below the window's start when
    // the displacement is negative; every lane's sum is inside it).
    const std::uintptr_t window = reinterpret_cast<std::uintptr_t>(cta.shared) + static_cast<std::uintptr_t>(disp);
    const auto lane_bytes = [window](U32 offset) { return reinterpret_cast<const std::byte*>(window + offset); };
    if (groups == 1) {
        // One value for every lane (a tile's row read by a whole warp): read once.
        const std::byte* p = lane_bytes(offsets[first_lane(mask)]);
        for (unsigned i = 0; i < vec; ++i) {
            RegInt<R> v;
            to_register<N, R, S>(reinterpret_cast<std::byte*>(&v), 0, p + i * N);
            each_lane(mask, x.reg<RegInt<R>>(in.op[i]), [v](unsigned) { return v; });
        }
        return true;
    }
    if (mask == all_lanes) {
        for (unsigned i = 0; i < vec; ++i) {
            std::byte* d = x.regs + in.op[i];
            for (unsigned l = 0; l < 32; ++l) to_register<N, R, S>(d, l, lane_bytes(offsets[l]) + i * N);
        }
        return true;
    }
    for_lanes(mask, [&](unsigned l) {
        for (unsigned i = 0; i < vec; ++i) to_register<N, R, S>(x.regs + in.op[i], l, lane_bytes(offsets[l]) + i * N);
    });
    return true;
}

template <Where W, unsigned N, unsigned R, bool S, bool Ordered>
void load(Exec& x, const Inst& in, U32 mask) {
    if (x.counts != nullptr) count_access<W>(x, in, mask, N * (in.sub & vector_bits));
    if constexpr (W == Where::shared && !Ordered) {
        if (x.trace == nullptr && load_shared_fast<N, R, S>(x, in, mask)) return;
    }
    const unsigned vec = in.sub & vector_bits;
    if constexpr (W == Where::kernel_param) {
        if (in.size == 0) {  // a parameter named by its symbol: the same bytes for every lane, checked once
            const std::byte* p =
                kernel_param_address(x, static_cast<U64>(in.imm), N * vec, first_lane(mask), Access::read);
            if (p == nullptr) return;
            for (unsigned i = 0; i < vec; ++i) {  // one value, broadcast
                RegInt<R> v;
                to_register<N, R, S>(reinterpret_cast<std::byte*>(&v), 0, p + i * N);
                each_lane(mask, x.reg<RegInt<R>>(in.op[i]), [v](unsigned) { return v; });
            }
            return;
        }
    }
    while (mask != 0) {
        const unsigned l = first_lane(mask);
        mask &= mask - 1;
        const U64 address = lane_address(x, in, l);
        std::byte* p =
            resolve<W>(x, in, address, N * vec, l, Access::read, Ordered ? Strength::acquire : Strength::weak);
        if (p == nullptr) return;
        if constexpr ((W == Where::global || W == Where::generic) && !Ordered)
            race_load<W, Ordered>(x, address, N * vec, l);
        for (unsigned i = 0; i < vec; ++i) {
            if constexpr (Ordered) {
                std::byte v[N];
                ordered_read<N>(v, p + i * N);
                to_register<N, R, S>(x.regs + in.op[i], l, v);
            } else {
                to_register<N, R, S>(x.regs + in.op[i], l, p + i * N);
            }
        }
        // An acquire after its read: every release whose write it may have read was counted
        // before that write (blocks run on parallel workers).
        if constexpr ((W == Where::global || W == Where::generic) && Ordered)
            race_load<W, Ordered>(x, address, N * vec, l);
    }
    if constexpr (Ordered) x.warp->polled = true;  // a spin on this load should let other warps run
}

// Whether a full warp's addresses are consecutive 4-byte elements, lane l at addr[0] + 4 l (32
// coalesced floats): one branch-free loop the compiler vectorises.
inline bool consecutive_words(const U64* addr) {
    U64 off = 0;
    for (unsigned l = 0; l < 32; ++l) off |= (addr[l] - addr[0]) ^ (U64{l} * 4u);
    return off == 0;
}

// A vectorisable fast path for the most common load: 32 lanes, one 4-byte global element each,
// within the allocation the last access hit.
template <bool Ordered>
bool load_global_fast(Exec& x, const Inst& in, U32 mask) {
    if (Ordered || mask != all_lanes || in.sub != 1 || in.size != 8) return false;  // one element, 64-bit addresses
    const U64* addr = x.reg<U64>(in.op[address_operand]);
    const auto disp = static_cast<U64>(in.imm);
    if (consecutive_words(addr)) {  // one range: 128 bytes
        const U64 lo = addr[0] + disp;
        if (lo + 128 < lo) return false;  // wraps: the per-lane path says where
        if ((lo < x.ok_begin || lo + 128 > x.ok_end) && !cover_range(x, lo, lo + 128)) return false;
        if (x.checks && (lo & 3u) != 0) return false;
        std::memcpy(x.reg<U32>(in.op[0]), reinterpret_cast<const void*>(lo), 128);
        note_global_consecutive_warp(x, lo, 4, GlobalAccessKind::read);
        return true;
    }
    U64 lo = ~U64{0}, hi = 0, misaligned = 0;
    for (unsigned l = 0; l < 32; ++l) {
        const U64 a = addr[l] + disp;
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
        misaligned |= a & 3u;
    }
    if ((lo < x.ok_begin || hi > x.ok_end - 4) && !cover_range(x, lo, hi + 4)) return false;
    if (x.checks && misaligned != 0) return false;
    U32* d = x.reg<U32>(in.op[0]);
    for (unsigned l = 0; l < 32; ++l) std::memcpy(&d[l], reinterpret_cast<const void*>(addr[l] + disp), 4);
    if (x.races != nullptr) {
        U64 at[32];
        for (unsigned l = 0; l < 32; ++l) at[l] = addr[l] + disp;
        note_global_warp(x, at, all_lanes, 4, GlobalAccessKind::read);
    }
    return true;
}

template <unsigned R, bool S>
void load_global_4(Exec& x, const Inst& in, U32 mask) {
    if (R == 4 && x.counts == nullptr && load_global_fast<false>(x, in, mask)) return;
    load<Where::global, 4, R, S, false>(x, in, mask);
}

template <unsigned N>
inline void ordered_write(std::byte* p, const std::byte* v) {
    if constexpr (N == 4 || N == 8) {
        using T = std::conditional_t<N == 4, U32, U64>;
        T value;
        std::memcpy(&value, v, N);
        __atomic_store_n(reinterpret_cast<T*>(p), value, __ATOMIC_RELEASE);
    } else {
        std::memcpy(p, v, N);
    }
}

// The most common store: 32 lanes, one 4-byte global element each, within the allocation the
// last access hit. Lanes store in lane order (the last of several to one address wins); with the
// race check on, each lane's store is compared with what was there (an unchanged element is not
// recorded) and the warp's stores are recorded as runs.
template <unsigned R>
bool store_global_fast(Exec& x, const Inst& in, U32 mask) {
    if (mask != all_lanes || (in.sub & vector_bits) != 1 || in.size != 8) return false;
    const U64* addr = x.reg<U64>(in.op[address_operand]);
    const auto disp = static_cast<U64>(in.imm);
    if (R == 4 && consecutive_words(addr)) {  // one range: 128 bytes
        const U64 lo = addr[0] + disp;
        if (lo + 128 < lo) return false;  // wraps: the per-lane path says where
        if ((lo < x.ok_begin || lo + 128 > x.ok_end) && !cover_range(x, lo, lo + 128)) return false;
        if (x.checks && (lo & 3u) != 0) return false;
        auto* memory = reinterpret_cast<std::byte*>(lo);
        const std::byte* values = x.regs + in.op[0];
        if (x.races == nullptr) {
            std::memcpy(memory, values, 128);
            return true;
        }
        U32 changed = 0;
        for (unsigned l = 0; l < 32; ++l) {
            U32 value, old;
            std::memcpy(&value, values + std::size_t{l} * 4, 4);
            std::memcpy(&old, memory + std::size_t{l} * 4, 4);
            changed |= U32{value != old} << l;
        }
        std::memcpy(memory, values, 128);
        if (changed == all_lanes) {
            note_global_consecutive_warp(x, lo, 4, GlobalAccessKind::write);
        } else if (changed != 0) {
            U64 at[32];
            for (unsigned l = 0; l < 32; ++l) at[l] = lo + U64{l} * 4;
            note_global_warp(x, at, changed, 4, GlobalAccessKind::write);
        }
        return true;
    }
    U64 at[32];
    U64 lo = ~U64{0}, hi = 0, misaligned = 0;
    for (unsigned l = 0; l < 32; ++l) {
        at[l] = addr[l] + disp;
        lo = at[l] < lo ? at[l] : lo;
        hi = at[l] > hi ? at[l] : hi;
        misaligned |= at[l] & 3u;
    }
    if ((lo < x.ok_begin || hi > x.ok_end - 4) && !cover_range(x, lo, hi + 4)) return false;
    if (x.checks && misaligned != 0) return false;
    const std::byte* values = x.regs + in.op[0];
    if (x.races == nullptr) {
        for (unsigned l = 0; l < 32; ++l) std::memcpy(reinterpret_cast<void*>(at[l]), values + std::size_t{l} * R, 4);
        return true;
    }
    U32 changed = 0;
    for (unsigned l = 0; l < 32; ++l) {
        U32 value, old;
        std::memcpy(&value, values + std::size_t{l} * R, 4);
        std::memcpy(&old, reinterpret_cast<const void*>(at[l]), 4);
        changed |= U32{value != old} << l;
        std::memcpy(reinterpret_cast<void*>(at[l]), &value, 4);
    }
    note_global_warp(x, at, changed, 4, GlobalAccessKind::write);
    return true;
}

// A warp's weak 4-byte shared stores at once, when every lane's is in the CTA's own window, aligned
// and to bytes already written (no red zone, nothing for the memory check to mark): one bounds check
// for the warp (the address register's shape), then each lane in order as the per-lane path does
// it once those checks passed: the race shadow's write (a race is reported at that lane, the lanes
// before it having stored), then the store. Anything else takes the per-lane path.
template <unsigned R>
bool store_shared_fast(Exec& x, const Inst& in, U32 mask) {
    const U64 window_bytes = x.launch->shared_window_bytes;
    const SharedAddressShape* shape = shared_shape(x, in, mask);
    if (shape == nullptr || window_bytes < 4) return false;
    if (!displacement_fits(*shape, in.imm, window_bytes - 4, 4)) return false;
    const auto add = static_cast<U32>(in.imm);  // a word's offset: offsets[l] + add, in 32 bits
    const U32* offsets = shape->offsets;
    Cta& cta = *x.cta;
    // Lane l's bytes: window + offsets[l], in integers (as in load_shared_fast).
    const std::uintptr_t window = reinterpret_cast<std::uintptr_t>(cta.shared) + static_cast<std::uintptr_t>(in.imm);
    const auto lane_bytes = [window](U32 offset) { return reinterpret_cast<std::byte*>(window + offset); };
    const std::byte* values = x.regs + in.op[0];
    if (cta.shared_state != nullptr) {
        for (unsigned g = 0; g < shape->groups; ++g) {
            if (!cta.shared_state->word_written((offsets[shape->group_lane[g]] + add) / 4)) return false;
        }
    }
    if (x.checks && cta.shadow != nullptr) {
        const std::uint64_t now = *x.epochs, horizon = race_horizon(x);
        const Accessor who{x.warp->first_thread, x.warp->warp_syncs, x.pc};
        const U32 base = (offsets[0] + add) / 4;
        if (shape->period == 32 && shape->stride == 4 && cta.shadow->accesses_ordered_before(base, 32, horizon)) {
            // A row of words, one per lane, and nothing accessed there since the horizon: no lane
            // can race.
            cta.shadow->record_row_write(base, static_cast<std::uint16_t>(who.thread),
                                         static_cast<std::uint16_t>(who.warp_syncs), who.pc, now);
            if constexpr (R == 4) {
                std::memcpy(lane_bytes(offsets[0]), values, 32 * 4);
            } else {
                for (unsigned l = 0; l < 32; ++l)
                    std::memcpy(lane_bytes(offsets[0]) + l * 4, values + std::size_t{l} * R, 4);
            }
            return true;
        }
        for (U32 m = mask; m != 0; m &= m - 1) {
            const unsigned l = first_lane(m);
            const U32 within = offsets[l] + add;
            std::byte* p = lane_bytes(offsets[l]);
            const std::byte* value = values + std::size_t{l} * R;
            RaceConflict c;
            if (cta.shadow->write(within, 4, {who.thread + l, who.warp_syncs, who.pc}, now, horizon, p, value, c)) {
                report_shared_race(x, c, Access::write, within, 4, l);
                return true;  // stopped at the racing lane, as the per-lane path stops
            }
            std::memcpy(p, value, 4);
        }
        return true;
    }
    for_lanes(mask, [&](unsigned l) { std::memcpy(lane_bytes(offsets[l]), values + std::size_t{l} * R, 4); });
    return true;
}

template <Where W, unsigned N, unsigned R, bool Ordered>
void store(Exec& x, const Inst& in, U32 mask) {
    const unsigned vec = in.sub & vector_bits;
    if constexpr (W == Where::shared && N == 4 && !Ordered) {
        if (vec == 1 && x.trace == nullptr && x.counts == nullptr && store_shared_fast<R>(x, in, mask)) return;
    }
    if (x.counts != nullptr) {
        count_access<W>(x, in, mask, N * vec);
    } else if constexpr (W == Where::global && N == 4 && (R == 4 || R == 8) && !Ordered) {
        if (store_global_fast<R>(x, in, mask)) return;
    }
    while (mask != 0) {
        const unsigned l = first_lane(mask);
        mask &= mask - 1;
        // The register's low N bytes (a register wider than the access is truncated).
        std::byte value[16 * 8];
        for (unsigned i = 0; i < vec; ++i) std::memcpy(value + i * N, x.regs + in.op[i] + std::size_t{l} * R, N);
        const U64 address = lane_address(x, in, l);
        constexpr Strength strength = Ordered ? Strength::release : Strength::weak;
        if constexpr (W == Where::shared) {
            if (!shared_store(x, address, N * vec, l, value, strength)) return;
        } else if constexpr (W == Where::generic) {
            // Global memory through a generic address, with the race check on: resolved here, to
            // see what it held before the store.
            if (!Ordered && x.races != nullptr &&
                (resolved_to_global(x, address) || generic_space(x, address, l) == MemorySpace::global)) {
                std::byte* p = global_address(x, address, N * vec, l, Access::write, MemorySpace::generic);
                if (p == nullptr) return;
                note_global_write(x, address, N * vec, l, !same_bytes(p, value, N * vec));
                std::memcpy(p, value, N * vec);
                continue;
            }
            // A release is counted before its write, so a reader that sees the write sees it.
            if (Ordered && x.races != nullptr && generic_space(x, address, l) == MemorySpace::global) {
                note_global_strong_write(x, address, (in.sub & release_semantics) != 0);
            }
            if (!generic_store(x, address, N * vec, l, value, strength)) return;
        } else {
            std::byte* p = resolve<W>(x, in, address, N * vec, l, Access::write);
            if (p == nullptr) return;
            if constexpr (Ordered) {
                if constexpr (W == Where::global)  // counted before the write a reader may see
                    note_global_strong_write(x, address, (in.sub & release_semantics) != 0);
                for (unsigned i = 0; i < vec; ++i) ordered_write<N>(p + i * N, value + i * N);
            } else {
                if constexpr (W == Where::global) {
                    if (x.races != nullptr) note_global_write(x, address, N * vec, l, !same_bytes(p, value, N * vec));
                }
                std::memcpy(p, value, N * vec);
            }
        }
    }
}

// --- choosing an instantiation ----------------------------------------------------------------

template <unsigned V>
using Bytes = std::integral_constant<unsigned, V>;

// The (access bytes, register bytes) pairs ld/st have: the register as wide as the access, or wider.
template <class F>
void each_width(F&& f) {
    f(Bytes<1>{}, Bytes<1>{});
    f(Bytes<1>{}, Bytes<2>{});
    f(Bytes<1>{}, Bytes<4>{});
    f(Bytes<1>{}, Bytes<8>{});
    f(Bytes<2>{}, Bytes<2>{});
    f(Bytes<2>{}, Bytes<4>{});
    f(Bytes<2>{}, Bytes<8>{});
    f(Bytes<4>{}, Bytes<4>{});
    f(Bytes<4>{}, Bytes<8>{});
    f(Bytes<8>{}, Bytes<8>{});
    f(Bytes<16>{}, Bytes<16>{});
}

template <Where W, bool O>
Handler pick_load(unsigned n, unsigned r, bool s) {
    Handler h = nullptr;
    each_width([&](auto nb, auto rb) {
        constexpr unsigned N = decltype(nb)::value, R = decltype(rb)::value;
        if (n != N || r != R) return;
        if constexpr (W == Where::global && N == 4 && !O) {
            h = s ? &load_global_4<R, true> : &load_global_4<R, false>;
        } else {
            h = s ? &load<W, N, R, true, O> : &load<W, N, R, false, O>;
        }
    });
    return h;
}

template <Where W, bool O>
Handler pick_store(unsigned n, unsigned r) {
    Handler h = nullptr;
    each_width([&](auto nb, auto rb) {
        constexpr unsigned N = decltype(nb)::value, R = decltype(rb)::value;
        if (n == N && r == R) h = &store<W, N, R, O>;
    });
    return h;
}

template <bool IsLoad>
Handler pick(Where w, bool ordered, unsigned n, unsigned r, bool s) {
    auto one = [&](auto tag) -> Handler {
        constexpr Where W = decltype(tag)::value;
        if constexpr (W == Where::global || W == Where::generic) {
            if (ordered) return IsLoad ? pick_load<W, true>(n, r, s) : pick_store<W, true>(n, r);
        }
        return IsLoad ? pick_load<W, false>(n, r, s) : pick_store<W, false>(n, r);
    };
    switch (w) {
        case Where::global: return one(std::integral_constant<Where, Where::global>{});
        case Where::shared: return one(std::integral_constant<Where, Where::shared>{});
        case Where::local: return one(std::integral_constant<Where, Where::local>{});
        case Where::generic: return one(std::integral_constant<Where, Where::generic>{});
        case Where::kernel_param: return one(std::integral_constant<Where, Where::kernel_param>{});
        case Where::func_param: return one(std::integral_constant<Where, Where::func_param>{});
        case Where::constant: return one(std::integral_constant<Where, Where::constant>{});
    }
    return nullptr;
}

// --- decoding ---------------------------------------------------------------------------------

struct Access2 {
    Where where = Where::generic;
    Emitter::Address address;
};

Access2 where_of(Emitter& e, const ptx::Operand& addr) {
    const Suffixes& s = e.suffixes();
    Access2 a;
    a.address = e.address(addr);
    switch (s.space) {
        case MemorySpace::global: a.where = Where::global; break;
        case MemorySpace::shared: a.where = Where::shared; break;
        case MemorySpace::local: a.where = Where::local; break;
        case MemorySpace::constant: a.where = Where::constant; break;
        case MemorySpace::param:
            if (a.address.param != nullptr) {
                a.where = Where::func_param;
            } else if (a.address.kernel_param || a.address.base != no_guard) {
                a.where = Where::kernel_param;
            } else {
                e.error("ld.param/st.param needs a parameter name");
            }
            break;
        default:
            // Generic: a symbol of a known space is accessed in that space.
            a.where = a.address.symbol_space == MemorySpace::shared  ? Where::shared
                      : a.address.symbol_space == MemorySpace::local ? Where::local
                      : a.address.param != nullptr                   ? Where::func_param
                      : a.address.kernel_param                       ? Where::kernel_param
                                                                     : Where::generic;
    }
    if (a.address.local_symbol && a.where != Where::local) e.error("a .local variable accessed outside .local");
    return a;
}

bool ordered_semantics(const Suffixes& s) {
    return s.semantics == Semantics::volatile_ || s.semantics == Semantics::relaxed ||
           s.semantics == Semantics::acquire || s.semantics == Semantics::release || s.semantics == Semantics::sc ||
           s.semantics == Semantics::acq_rel || s.semantics == Semantics::mmio;
}

// Fills the address part of a memory Inst.
void set_address(Emitter& e, Inst& in, const Access2& a) {
    in.op[address_operand] = a.address.base;
    in.size = static_cast<std::uint8_t>(a.address.base == no_guard ? 0 : a.address.base_bytes);
    in.imm = a.address.offset;
    if (a.address.param != nullptr) {
        in.op[5] = a.address.param->offset;
        in.target = a.address.param->size;
    }
    if (a.address.local_symbol) in.sub = static_cast<std::uint8_t>(in.sub | frame_relative);
    (void)e;
}

// The bytes of ld's or st's data type `t`.
unsigned data_bytes(Emitter& e, Ty t, const char* op) {
    const unsigned n = type_size(t);
    if (n == 0 || t == Ty::pred) e.error(std::string(op) + " needs a data type");
    return n;
}

// The untyped register type of a register of `size` bytes.
Ty bits_of_size(unsigned size) {
    return size == 1 ? Ty::b8 : size == 2 ? Ty::b16 : size == 4 ? Ty::b32 : size == 8 ? Ty::b64 : Ty::b128;
}

// Ordered (.volatile, .relaxed, .acquire, .release...) accesses need the ordered handlers (host
// atomics), except to shared and local memory: only the threads of one unit (a block, a cluster,
// a cooperative grid) reach those, and one worker runs all of a unit's threads (launch.cpp).
bool ordered_access(const Suffixes& s) {
    return ordered_semantics(s) && s.space != MemorySpace::shared && s.space != MemorySpace::local;
}

// The Inst of an ld or st: its registers, vector width, state space and address.
void emit_access(Emitter& e, Handler h, const std::uint32_t (&regs)[4], unsigned vec, const Access2& a) {
    Inst& in = e.emit(h);
    for (unsigned i = 0; i < 4; ++i) in.op[i] = regs[i];
    in.sub = static_cast<std::uint8_t>(vec);
    in.space = static_cast<std::uint8_t>(e.suffixes().space);
    set_address(e, in, a);
}

bool decode_ld(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    const unsigned n = data_bytes(e, t, "ld");
    const ptx::Operand& dst = e.operand(0);
    const Access2 a = where_of(e, e.operand(1));
    const unsigned vec = static_cast<unsigned>(s.vector);
    std::uint32_t regs[4] = {0, 0, 0, 0};
    unsigned r = 0;
    auto reg_of = [&](const ptx::Operand& o) -> std::uint32_t {
        unsigned size = e.register_size(o);
        if (o.kind == ptx::Operand::Kind::none) size = n;
        if (size == 0) e.error("ld's destination must be a register");
        if (size < n) e.error("register " + o.name + " is narrower than ." + type_name(t));
        if (r != 0 && size != r) e.error("the vector's registers differ in size");
        r = size;
        return e.destination(o, is_float(t) && size == n ? t : bits_of_size(size));
    };
    if (vec > 1) {
        if (dst.kind != ptx::Operand::Kind::vector || dst.elements.size() != vec)
            e.error("expected a vector of " + std::to_string(vec));
        if (vec > 4) {
            e.unsupported("ld.v8 is not implemented by the CPU device");
            return true;
        }
        for (unsigned i = 0; i < vec; ++i) regs[i] = reg_of(dst.elements[i]);
    } else {
        regs[0] = reg_of(dst);
    }
    Handler h = pick<true>(a.where, ordered_access(s), n, r, is_signed(t) && !is_float(t));
    if (h == nullptr)
        e.error("no load of " + std::to_string(n) + " bytes into a " + std::to_string(r) + "-byte register");
    emit_access(e, h, regs, vec, a);
    return true;
}

bool decode_st(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    const unsigned n = data_bytes(e, t, "st");
    const Access2 a = where_of(e, e.operand(0));
    const ptx::Operand& src = e.operand(1);
    if (a.where == Where::kernel_param) e.error("kernel parameters are read-only");
    const unsigned vec = static_cast<unsigned>(s.vector);
    if (vec > 4) {
        e.unsupported("st.v8 is not implemented by the CPU device");
        return true;
    }
    std::uint32_t regs[4] = {0, 0, 0, 0};
    unsigned r = 0;
    auto reg_of = [&](const ptx::Operand& o) -> std::uint32_t {
        unsigned size = e.register_size(o);
        if (size == 0) size = n;  // an immediate: a constant of the access's size
        if (size < n) e.error("register " + o.name + " is narrower than ." + type_name(t));
        if (r != 0 && size != r) e.error("the vector's registers differ in size");
        r = size;
        return e.source(o, e.register_size(o) == 0 ? t : (is_float(t) && size == n ? t : bits_of_size(size)));
    };
    if (vec > 1) {
        if (src.kind != ptx::Operand::Kind::vector || src.elements.size() != vec)
            e.error("expected a vector of " + std::to_string(vec));
        for (unsigned i = 0; i < vec; ++i) regs[i] = reg_of(src.elements[i]);
    } else {
        regs[0] = reg_of(src);
    }
    Handler h = pick<false>(a.where, ordered_access(s), n, r, false);
    if (h == nullptr)
        e.error("no store of " + std::to_string(n) + " bytes from a " + std::to_string(r) + "-byte register");
    emit_access(e, h, regs, vec, a);
    if (s.semantics == Semantics::release) {
        Inst& in = e.program().code.back();
        in.sub = static_cast<std::uint8_t>(in.sub | release_semantics);
    }
    return true;
}

// --- cvta / isspacep --------------------------------------------------------------------------

// cvta.space: a space's address to generic; cvta.to.space: back. `sub`: the space (MemorySpace),
// size 1: .to. op[0] d, op[1] a; `imm` 4 or 8: the register width.
template <class T>
void cvta(Exec& x, const Inst& in, U32 m) {
    const auto space = static_cast<MemorySpace>(in.sub);
    const bool to = in.size == 1;
    T* d = x.reg<T>(in.op[0]);
    const T* a = x.reg<T>(in.op[1]);
    if (space != MemorySpace::shared && space != MemorySpace::local && space != MemorySpace::param) {
        each_lane(m, d, [a](unsigned l) { return a[l]; });  // global and const addresses are generic already
        return;
    }
    if (space != MemorySpace::local) {  // one base for the warp
        const U64 base = space == MemorySpace::shared ? shared_window_base(x) : x.launch->params_address;
        each_lane(m, d, [&](unsigned l) {
            return static_cast<T>(to ? static_cast<U64>(a[l]) - base : static_cast<U64>(a[l]) + base);
        });
        return;
    }
    for_lanes(m, [&](unsigned l) {
        U64 base = 0;
        switch (space) {
            case MemorySpace::shared: base = shared_window_base(x); break;
            case MemorySpace::local: base = local_window_base(x, l); break;
            case MemorySpace::param: base = x.launch->params_address; break;
            default: base = 0;  // global and const addresses are generic already
        }
        d[l] = static_cast<T>(to ? static_cast<U64>(a[l]) - base : static_cast<U64>(a[l]) + base);
    });
}

bool decode_cvta(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (t != Ty::u64 && t != Ty::u32 && t != Ty::b64 && t != Ty::b32) e.error("cvta needs .u32 or .u64");
    MemorySpace space = s.space;
    if (space == MemorySpace::none) e.error("cvta needs a state space");
    const std::uint32_t a = e.source(e.operand(1), t);
    Inst& in = e.emit(type_size(t) == 8 ? &cvta<U64> : &cvta<U32>);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.sub = static_cast<std::uint8_t>(space);
    in.size = s.has("to") ? 1 : 0;
    return true;
}

void isspacep(Exec& x, const Inst& in, U32 m) {
    const auto space = static_cast<MemorySpace>(in.sub);
    const U64* a = x.reg<U64>(in.op[1]);
    const U32 bits = lane_bits(m, [&](unsigned l) {
        const MemorySpace got = generic_space(x, a[l], l);
        if (space == MemorySpace::global)
            return got == MemorySpace::global && x.launch->spec->memory->in_arena(a[l], 1);
        if (space == MemorySpace::constant)
            return got == MemorySpace::global && x.launch->spec->memory->in_arena(a[l], 1);
        return got == space;
    });
    x.set_pred(in.op[0], bits, m);
}

bool decode_isspacep(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (s.space == MemorySpace::none) e.error("isspacep needs a state space");
    const std::uint32_t a = e.source(e.operand(1), Ty::u64);
    Inst& in = e.emit(isspacep);
    in.op[0] = e.predicate_destination(e.operand(0));
    in.op[1] = a;
    in.sub = static_cast<std::uint8_t>(s.space);
    return true;
}

// --- hints and completions --------------------------------------------------------------------

void nothing(Exec&, const Inst&, U32) {}

bool decode_hint(Emitter& e) {
    e.emit(nothing);
    return true;
}

// createpolicy writes an opaque cache policy that only cache hints read: 0 does.
bool decode_createpolicy(Emitter& e) {
    Inst& in = e.emit(copy_lanes_handler(8));
    in.op[1] = e.constant(0, 8);
    in.op[0] = e.destination(e.operand(0), Ty::b64);
    return true;
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: copied at once (a later
// cp.async.wait_* then has nothing to wait for, which is a valid order). Bytes past src-size are
// zero-filled, as the instruction says.
void cp_async(Exec& x, const Inst& in, U32 mask) {
    const unsigned cp = in.sub;
    const U32* src_size = in.op[2] != no_guard ? x.reg<U32>(in.op[2]) : nullptr;
    while (mask != 0) {
        const unsigned l = first_lane(mask);
        mask &= mask - 1;
        const U64 dst =
            (in.size == 8 ? x.reg<U64>(in.op[0])[l] : U64{x.reg<U32>(in.op[0])[l]}) + static_cast<U64>(in.imm);
        const U64 src = x.reg<U64>(in.op[1])[l] + static_cast<U64>(in.target);
        const unsigned take = src_size != nullptr ? std::min<unsigned>(src_size[l], cp) : cp;
        std::byte value[16] = {};
        if (take > 0) {
            std::byte* p = global_address(x, src, cp, l, Access::read);
            if (p == nullptr) return;
            note_global_read(x, src, take, l);
            std::memcpy(value, p, take);
        }
        if (!shared_store(x, dst, cp, l, value)) return;
    }
}

bool decode_cp(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (!s.has("async") || s.has("bulk")) return false;  // cp.async.bulk*: TMA, unsupported
    if (s.has("commit_group") || s.has("wait_group") || s.has("wait_all") || s.has("mbarrier")) {
        if (s.has("mbarrier")) return false;
        e.emit(nothing);
        return true;
    }
    const Emitter::Address dst = e.address(e.operand(0));
    const Emitter::Address src = e.address(e.operand(1));
    const ptx::Operand& size = e.operand(2);
    if (size.kind != ptx::Operand::Kind::integer) e.error("cp.async's copy size must be an immediate");
    std::uint32_t src_size = no_guard;
    if (e.operand_count() > 3 && e.operand(3).kind != ptx::Operand::Kind::none) {
        if (e.operand(3).kind == ptx::Operand::Kind::integer || e.register_size(e.operand(3)) == 4) {
            src_size = e.source(e.operand(3), Ty::u32);
        }
    }
    if (dst.base == no_guard || src.base == no_guard) e.error("cp.async needs register addresses");
    Inst& in = e.emit(cp_async);
    in.op[0] = dst.base;
    in.size = static_cast<std::uint8_t>(dst.base_bytes);
    in.imm = dst.offset;
    in.op[1] = src.base;
    in.target = static_cast<std::uint32_t>(src.offset);
    in.op[2] = src_size;
    in.sub = static_cast<std::uint8_t>(size.integer);
    return true;
}

}  // namespace

void register_memory_ops(OpTable& t) {
    add_op(t, "ld", decode_ld);
    add_op(t, "ldu", decode_ld);
    add_op(t, "st", decode_st);
    add_op(t, "cvta", decode_cvta);
    add_op(t, "isspacep", decode_isspacep);
    add_op(t, "prefetch", decode_hint);
    add_op(t, "prefetchu", decode_hint);
    add_op(t, "applypriority", decode_hint);
    add_op(t, "discard", decode_hint);
    add_op(t, "createpolicy", decode_createpolicy);
    add_op(t, "cp", decode_cp);
}

}  // namespace xcuda::cpu
