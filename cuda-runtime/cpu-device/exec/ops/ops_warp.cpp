// Warp-level instructions: shfl, vote, match, redux, elect (run by the scheduler once every lane
// of their membermask is present: Flow::collective, membermask in op[5]) and activemask.
#include "exec/decode/decode.hpp"
#include "exec/ops/lanes.hpp"

#include <algorithm>
#include <limits>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr int member_operand = 5;

// shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c: `sub` the mode; op[1] a, op[2] b, op[3] c,
// op[4] the predicate destination (no_guard: none).
void shfl(Exec& x, const Inst& in, U32 m) {
    const U32* a = x.reg<U32>(in.op[1]);
    const U32* b = x.reg<U32>(in.op[2]);
    const U32* c = x.reg<U32>(in.op[3]);
    U32 source[32];
    std::copy(a, a + 32, source);  // d may be a's own slot
    U32* d = x.reg<U32>(in.op[0]);
    U32 valid = 0;
    for_lanes(m, [&](unsigned lane) {
        const U32 bval = b[lane] & 31u, cval = c[lane] & 31u, segmask = (c[lane] >> 8) & 31u;
        const U32 max_lane = (lane & segmask) | (cval & ~segmask);
        const U32 min_lane = lane & segmask;
        int j = 0;
        bool pval = false;
        switch (in.sub) {
            case 0:
                j = static_cast<int>(lane) - static_cast<int>(bval);
                pval = j >= static_cast<int>(max_lane);
                break;
            case 1:
                j = static_cast<int>(lane + bval);
                pval = j <= static_cast<int>(max_lane);
                break;
            case 2:
                j = static_cast<int>(lane ^ bval);
                pval = j <= static_cast<int>(max_lane);
                break;
            default:
                j = static_cast<int>(min_lane | (bval & ~segmask));
                pval = j <= static_cast<int>(max_lane);
                break;
        }
        if (!pval) j = static_cast<int>(lane);
        d[lane] = source[j & 31];
        if (pval) valid |= 1u << lane;
    });
    if (in.op[4] != no_guard) x.set_pred(in.op[4], valid, m);
}

// Runs `f(lanes, member)` once for each membermask the lanes of `m` name: converged lanes may name
// different, disjoint masks (cooperative groups' labeled_partition does), and each set of lanes
// votes or reduces over its own. `member` is the mask's lanes that are present.
template <class F>
void per_membermask(Exec& x, const Inst& in, U32 m, F&& f) {
    const U32* masks = x.reg<U32>(in.op[member_operand]);
    const U32 present = m;
    while (m != 0) {
        const U32 mask = masks[first_lane(m)];
        U32 lanes = 0;
        for_lanes(m, [&](unsigned l) {
            if (masks[l] == mask) lanes |= 1u << l;
        });
        f(lanes, mask & present);
        m &= ~lanes;
    }
}

// vote.sync.{all,any,uni}.pred d, {!}a / vote.sync.ballot.b32 d, {!}a: `sub` 0 all, 1 any, 2 uni,
// 3 ballot; `size` 1: a negated.
void vote(Exec& x, const Inst& in, U32 m) {
    U32 votes = x.pred(in.op[1]);
    if (in.size == 1) votes = ~votes;
    per_membermask(x, in, m, [&](U32 lanes, U32 member) {
        const U32 p = votes & member;
        switch (in.sub) {
            case 0: x.set_pred(in.op[0], p == member ? ~0u : 0u, lanes); break;
            case 1: x.set_pred(in.op[0], p != 0 ? ~0u : 0u, lanes); break;
            case 2: x.set_pred(in.op[0], (p == member || p == 0) ? ~0u : 0u, lanes); break;
            default: each_lane(lanes, x.reg<U32>(in.op[0]), [=](unsigned) { return p; }); break;
        }
    });
}

// match.sync.{any,all}.b{32,64} d[|p], a: `sub` 0 any, 1 all; op[2] the predicate (or no_guard).
template <class T>
void match(Exec& x, const Inst& in, U32 m) {
    T a[32];
    std::copy(x.reg<T>(in.op[1]), x.reg<T>(in.op[1]) + 32, a);  // d may be a's own slot
    U32* d = x.reg<U32>(in.op[0]);
    per_membermask(x, in, m, [&](U32 lanes, U32 member) {
        U32 same_as_first = 0;
        for_lanes(member, [&](unsigned l) {
            if (a[l] == a[first_lane(member)]) same_as_first |= 1u << l;
        });
        const bool all = same_as_first == member;
        for_lanes(lanes, [&](unsigned lane) {
            if (in.sub == 1) {
                d[lane] = all ? member : 0u;
            } else {
                U32 same = 0;
                for_lanes(member, [&](unsigned l) {
                    if (a[l] == a[lane]) same |= 1u << l;
                });
                d[lane] = same;
            }
        });
        if (in.op[2] != no_guard) x.set_pred(in.op[2], all ? ~0u : 0u, lanes);
    });
}

// redux.sync.{add,min,max,and,or,xor}: `sub` the operation, `size` 1 signed.
void redux(Exec& x, const Inst& in, U32 m) {
    U32 a[32];
    std::copy(x.reg<U32>(in.op[1]), x.reg<U32>(in.op[1]) + 32, a);  // d may be a's own slot
    const bool sgn = in.size == 1;
    per_membermask(x, in, m, [&](U32 lanes, U32 member) {
        U64 sum = 0;
        U32 bits_and = ~0u, bits_or = 0, bits_xor = 0;
        std::int64_t smin = std::numeric_limits<std::int64_t>::max(), smax = std::numeric_limits<std::int64_t>::min();
        for_lanes(member, [&](unsigned l) {
            sum += a[l];
            bits_and &= a[l];
            bits_or |= a[l];
            bits_xor ^= a[l];
            const std::int64_t v = sgn ? static_cast<std::int32_t>(a[l]) : static_cast<std::int64_t>(a[l]);
            smin = std::min(smin, v);
            smax = std::max(smax, v);
        });
        U32 r = 0;
        switch (in.sub) {
            case 0: r = static_cast<U32>(sum); break;
            case 1: r = static_cast<U32>(smin); break;
            case 2: r = static_cast<U32>(smax); break;
            case 3: r = bits_and; break;
            case 4: r = bits_or; break;
            default: r = bits_xor; break;
        }
        each_lane(lanes, x.reg<U32>(in.op[0]), [=](unsigned) { return r; });
    });
}

// elect.sync d|p, membermask: the lowest lane of the mask is the leader.
void elect(Exec& x, const Inst& in, U32 m) {
    per_membermask(x, in, m, [&](U32 lanes, U32 member) {
        const U32 leader = member != 0 ? first_lane(member) : 32u;
        each_lane(lanes, x.reg<U32>(in.op[0]), [=](unsigned) { return leader; });
        if (in.op[1] != no_guard) x.set_pred(in.op[1], leader < 32 ? (1u << leader) : 0u, lanes);
    });
}

void activemask(Exec& x, const Inst& in, U32 m) {
    each_lane(m, x.reg<U32>(in.op[0]), [=](unsigned) { return m; });
}

// --- decoding ---------------------------------------------------------------------------------

// The predicate register of a destination written `d|p` (shfl.sync, match.sync and elect.sync write
// a second, predicate result there), or no_guard where the instruction names none.
std::uint32_t pair_predicate(Emitter& e, const ptx::Operand& d) {
    if (d.pair.empty()) return no_guard;
    ptx::Operand po;
    po.kind = ptx::Operand::Kind::reg;
    po.name = d.pair;
    return e.predicate_destination(po);
}

bool decode_shfl(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (!s.has("sync")) {
        e.unsupported("shfl without .sync (removed after sm_6x) is not supported; use __shfl_*_sync");
        return true;
    }
    std::uint8_t mode = 3;
    if (s.has("up")) mode = 0;
    if (s.has("down")) mode = 1;
    if (s.has("bfly")) mode = 2;
    const ptx::Operand& d = e.operand(0);
    const std::uint32_t a = e.source(e.operand(1), Ty::b32), b = e.source(e.operand(2), Ty::b32),
                        c = e.source(e.operand(3), Ty::b32), member = e.source(e.operand(4), Ty::b32);
    const std::uint32_t p = pair_predicate(e, d);
    Inst& in = e.emit(shfl, Flow::collective);
    in.op[0] = e.destination(d, Ty::b32);
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.op[4] = p;
    in.op[member_operand] = member;
    in.sub = mode;
    return true;
}

bool decode_vote(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (!s.has("sync")) {
        e.unsupported("vote without .sync (removed after sm_6x) is not supported; use __all_sync and friends");
        return true;
    }
    bool negated = false;
    const std::uint32_t a = e.predicate(e.operand(1), &negated);
    const std::uint32_t member = e.source(e.operand(2), Ty::b32);
    std::uint8_t kind = 0;
    if (s.has("any")) kind = 1;
    if (s.has("uni")) kind = 2;
    if (s.has("ballot")) kind = 3;
    Inst& in = e.emit(vote, Flow::collective);
    in.op[0] = kind == 3 ? e.destination(e.operand(0), Ty::b32) : e.predicate_destination(e.operand(0));
    in.op[1] = a;
    in.op[member_operand] = member;
    in.sub = kind;
    in.size = negated ? 1 : 0;
    return true;
}

bool decode_match(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (t != Ty::b32 && t != Ty::b64) e.error("match.sync takes .b32 or .b64");
    const ptx::Operand& d = e.operand(0);
    const std::uint32_t a = e.source(e.operand(1), t), member = e.source(e.operand(2), Ty::b32);
    const std::uint32_t p = pair_predicate(e, d);
    Inst& in = e.emit(t == Ty::b64 ? &match<U64> : &match<U32>, Flow::collective);
    in.op[0] = e.destination(d, Ty::b32);
    in.op[1] = a;
    in.op[2] = p;
    in.op[member_operand] = member;
    in.sub = s.has("all") ? 1 : 0;
    return true;
}

bool decode_redux(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (is_float(t)) {
        e.unsupported("redux.sync on floating point (sm_100a) is not implemented by the CPU device");
        return true;
    }
    static const char* const ops[] = {"add", "min", "max", "and", "or", "xor"};
    std::uint8_t op = 0;
    for (std::uint8_t i = 0; i < 6; ++i) {
        if (s.has(ops[i])) op = i;
    }
    const std::uint32_t a = e.source(e.operand(1), Ty::b32), member = e.source(e.operand(2), Ty::b32);
    Inst& in = e.emit(redux, Flow::collective);
    in.op[0] = e.destination(e.operand(0), Ty::b32);
    in.op[1] = a;
    in.op[member_operand] = member;
    in.sub = op;
    in.size = t == Ty::s32 ? 1 : 0;
    return true;
}

bool decode_elect(Emitter& e) {
    const ptx::Operand& d = e.operand(0);
    const std::uint32_t member = e.source(e.operand(1), Ty::b32);
    const std::uint32_t p = pair_predicate(e, d);
    Inst& in = e.emit(elect, Flow::collective);
    in.op[0] = e.destination(d, Ty::b32);
    in.op[1] = p;
    in.op[member_operand] = member;
    return true;
}

bool decode_activemask(Emitter& e) {
    Inst& in = e.emit(activemask);
    in.op[0] = e.destination(e.operand(0), Ty::b32);
    return true;
}

}  // namespace

void register_warp_ops(OpTable& t) {
    add_op(t, "shfl", decode_shfl);
    add_op(t, "vote", decode_vote);
    add_op(t, "match", decode_match);
    add_op(t, "redux", decode_redux);
    add_op(t, "elect", decode_elect);
    add_op(t, "activemask", decode_activemask);
}

}  // namespace xcuda::cpu
