// Distributed shared memory: mapa (an address in the executing CTA's shared memory to the same
// place in another CTA of its cluster: cooperative_groups' cluster.map_shared_rank) and
// getctarank (which CTA of the cluster an address is in). A cluster's CTAs run on one worker in
// rank order (launch.cpp's units), so another CTA's window is the worker's CTA at that rank.
#include "exec/decode/decode.hpp"
#include "exec/memory_access.hpp"

#include <cinttypes>
#include <cstdio>
#include <string>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

// The executing CTA's cluster: its CTAs are (*x.ctas)[first .. first + size).
struct Cluster {
    std::size_t first = 0;
    std::size_t size = 1;
};

Cluster cluster_of(const Exec& x) {
    Cluster c;
    c.first = static_cast<std::size_t>(x.cta - x.ctas->data()) - x.cta->cluster_rank;
    c.size = static_cast<std::size_t>(x.launch->spec->cluster.count());
    return c;
}

U64 window_base(const Exec& x, const Cluster& c, std::size_t rank) {
    return reinterpret_cast<U64>((*x.ctas)[c.first + rank].shared);
}

// The rank and window offset of a generic address inside one of the cluster's shared windows.
bool generic_window(const Exec& x, const Cluster& c, U64 address, std::size_t& rank, U64& offset) {
    for (std::size_t r = 0; r < c.size && c.first + r < x.ctas->size(); ++r) {
        const U64 base = window_base(x, c, r);
        if (address >= base && address < base + x.launch->shared_window_bytes) {
            rank = r;
            offset = address - base;
            return true;
        }
    }
    return false;
}

// The rank a shared::cluster address names (no rank bits: the executing CTA's own window).
std::size_t cluster_address_rank(const Exec& x, U64 address) {
    const U64 tagged = address >> cluster_rank_shift;
    return tagged == 0 ? x.cta->cluster_rank : static_cast<std::size_t>(tagged - 1);
}

std::string hex(U64 v) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%" PRIx64, v);
    return text;
}

void fail_operand(Exec& x, unsigned lane, const std::string& detail) {
    Finding f;
    f.kind = FindingKind::invalid_operation;
    f.space = MemorySpace::shared;
    f.detail = detail;
    x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
}

// op[0] d, op[1] a, op[2] b (u32 rank); sub 1: a shared::cluster address (else generic); size:
// the width of d and a.
template <class T>
void mapa(Exec& x, const Inst& in, U32 mask) {
    const Cluster c = cluster_of(x);
    T* d = x.reg<T>(in.op[0]);
    const T* a = x.reg<T>(in.op[1]);
    const U32* b = x.reg<U32>(in.op[2]);
    const bool cluster_space = in.sub != 0;
    while (mask != 0) {
        const unsigned l = first_lane(mask);
        mask &= mask - 1;
        if (b[l] >= c.size) {
            fail_operand(x, l,
                         "mapa (cluster.map_shared_rank) to CTA rank " + std::to_string(b[l]) + ": the cluster has " +
                             std::to_string(c.size) + " CTA" + (c.size == 1 ? "" : "s") + " (ranks 0 to " +
                             std::to_string(c.size - 1) + ")");
            return;
        }
        const U64 address = static_cast<U64>(a[l]);
        if (cluster_space) {
            d[l] = static_cast<T>(((U64{b[l]} + 1) << cluster_rank_shift) | (address & window_offset_mask));
            continue;
        }
        std::size_t rank = 0;
        U64 offset = 0;
        if (!generic_window(x, c, address, rank, offset)) {
            fail_operand(x, l,
                         "mapa (cluster.map_shared_rank) of " + hex(address) +
                             ", which is not an address in the shared memory of this CTA's cluster");
            return;
        }
        d[l] = static_cast<T>(window_base(x, c, b[l]) + offset);
    }
}

// op[0] d (u32), op[1] a; sub 1: a shared::cluster address (else generic); size: a's width.
template <class T>
void getctarank(Exec& x, const Inst& in, U32 mask) {
    const Cluster c = cluster_of(x);
    U32* d = x.reg<U32>(in.op[0]);
    const T* a = x.reg<T>(in.op[1]);
    while (mask != 0) {
        const unsigned l = first_lane(mask);
        mask &= mask - 1;
        const U64 address = static_cast<U64>(a[l]);
        std::size_t rank = 0;
        U64 offset = 0;
        if (in.sub != 0) {
            rank = cluster_address_rank(x, address);
        } else if (!generic_window(x, c, address, rank, offset)) {
            fail_operand(x, l,
                         "getctarank of " + hex(address) +
                             ", which is not an address in the shared memory of this CTA's cluster");
            return;
        }
        d[l] = static_cast<U32>(rank);
    }
}

// mapa{.shared::cluster}.{u32,u64} d, a, b
bool decode_mapa(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (t != Ty::u32 && t != Ty::u64) e.error("mapa needs .u32 or .u64");
    const std::uint32_t a = e.source(e.operand(1), t);
    const std::uint32_t b = e.source(e.operand(2), Ty::u32);
    Inst& in = e.emit(t == Ty::u64 ? &mapa<U64> : &mapa<U32>);
    in.op[0] = e.destination(e.operand(0), t);
    in.op[1] = a;
    in.op[2] = b;
    in.sub = s.space == MemorySpace::shared ? 1 : 0;
    return true;
}

// getctarank{.shared::cluster}.{u32,u64} d, a
bool decode_getctarank(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (t != Ty::u32 && t != Ty::u64) e.error("getctarank needs .u32 or .u64");
    const std::uint32_t a = e.source(e.operand(1), t);
    Inst& in = e.emit(t == Ty::u64 ? &getctarank<U64> : &getctarank<U32>);
    in.op[0] = e.destination(e.operand(0), Ty::u32);
    in.op[1] = a;
    in.sub = s.space == MemorySpace::shared ? 1 : 0;
    return true;
}

}  // namespace

void register_cluster_ops(OpTable& t) {
    add_op(t, "mapa", decode_mapa);
    add_op(t, "getctarank", decode_getctarank);
}

}  // namespace xcuda::cpu
