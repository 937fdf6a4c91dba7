// mbarrier: the asynchronous barrier objects in shared memory that cuda::barrier and
// cuda::pipeline are built on, and the copies that complete them (cp.async.bulk,
// cp.async.mbarrier.arrive). The object's 8 bytes are opaque to the program; here they hold its
// counts and phase (Barrier below). A CTA runs on one worker thread, so no host atomics are needed. A wait that
// finds its phase incomplete marks the warp as polling, so its spin loop lets other warps run.
#include "exec/decode/decode.hpp"
#include "exec/global_race_notes.hpp"
#include "exec/ops/lanes.hpp"
#include "exec/memory_access.hpp"

#include <algorithm>
#include <cstring>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

// The 8 bytes of an mbarrier: expected arrivals per phase (bits 0-19), arrivals still pending in
// the current phase (20-39), the transaction count still expected, signed (40-60), and the phase
// (63). PTX bounds both counts to 2^20 - 1, so they fit.
class Barrier {
public:
    explicit Barrier(std::byte* p) : p_(p) { std::memcpy(&v_, p, 8); }
    ~Barrier() { std::memcpy(p_, &v_, 8); }
    Barrier(const Barrier&) = delete;
    Barrier& operator=(const Barrier&) = delete;

    U32 expected() const { return static_cast<U32>(v_ & field); }
    U32 pending() const { return static_cast<U32>((v_ >> 20) & field); }
    std::int32_t tx() const { return static_cast<std::int32_t>(static_cast<std::int64_t>(v_ << 3) >> 43); }
    U32 phase() const { return static_cast<U32>(v_ >> 63); }

    void init(U32 count) { v_ = (U64{count} & field) | ((U64{count} & field) << 20); }
    void invalidate() { v_ = 0; }
    void drop(U32 count) { set(expected() - std::min(count, expected()), pending(), tx(), phase()); }
    void expect_tx(std::int32_t bytes) { set(expected(), pending(), tx() + bytes, phase()); }
    // Returns true when the phase completed (every arrival and every expected byte in). What the
    // arriving threads did before is ordered before what the waiters do after through the race
    // clock: the object is accessed as an atomic (a release, then an acquire).
    bool arrive(U32 count) {
        set(expected(), count >= pending() ? 0 : pending() - count, tx(), phase());
        return complete_if_done();
    }
    bool complete_tx(std::int32_t bytes) {
        set(expected(), pending(), tx() - bytes, phase());
        return complete_if_done();
    }

private:
    static constexpr U64 field = (U64{1} << 20) - 1;
    bool complete_if_done() {
        if (pending() != 0 || tx() != 0) return false;
        set(expected(), expected(), 0, phase() ^ 1u);  // the next phase starts
        return true;
    }
    void set(U32 expected, U32 pending, std::int32_t tx, U32 phase) {
        const U64 tx_bits = static_cast<U64>(static_cast<std::int64_t>(tx)) & ((U64{1} << 21) - 1);
        v_ = (U64{expected} & field) | ((U64{pending} & field) << 20) | (tx_bits << 40) | (U64{phase & 1u} << 63);
    }
    std::byte* p_;
    U64 v_ = 0;
};

// op[0] the result (a state token, a predicate mask, or no_guard), op[1] the address register
// (size: its bytes; no_guard: an absolute address in imm), op[2] a count or token operand
// (no_guard: 1), op[3] a transaction byte count (expect_tx, complete_tx), `sub` the operation,
// `space` 1 when the address is generic.
enum class Op : std::uint8_t {
    init,
    inval,
    arrive,
    arrive_drop,
    expect_tx,
    complete_tx,
    test_wait,
    test_wait_parity,
    pending_count,
};

U64 address_of(const Exec& x, std::uint32_t reg, unsigned bytes, std::int64_t offset, unsigned lane) {
    const U64 base = bytes == 8 ? x.reg<U64>(reg)[lane] : bytes == 4 ? U64{x.reg<U32>(reg)[lane]} : 0u;
    return base + static_cast<U64>(offset);
}

std::byte* barrier_bytes(Exec& x, U64 address, bool generic, unsigned lane) {
    return generic ? generic_address(x, address, 8, lane, Access::atomic)
                   : shared_address(x, address, 8, lane, Access::atomic);
}

U64 operand(const Exec& x, const Inst& in, unsigned lane) {
    return in.op[2] == no_guard ? 1u : x.reg<U64>(in.op[2])[lane];
}

void mbarrier(Exec& x, const Inst& in, U32 mask) {
    const auto op = static_cast<Op>(in.sub);
    const U32 lanes = mask;
    U32 done = 0;
    while (mask != 0) {
        const unsigned l = first_lane(mask);
        mask &= mask - 1;
        if (op == Op::pending_count) {  // from a token: no object involved
            x.reg<U32>(in.op[0])[l] = static_cast<U32>(x.reg<U64>(in.op[2])[l] & 0x7FFFFFFFu);
            continue;
        }
        std::byte* p = barrier_bytes(x, address_of(x, in.op[1], in.size, in.imm, l), in.space == 1, l);
        if (p == nullptr) return;  // a finding was recorded
        Barrier b(p);
        const auto tx = in.op[3] != no_guard ? static_cast<std::int32_t>(x.reg<U32>(in.op[3])[l]) : 0;
        switch (op) {
            case Op::init: b.init(static_cast<U32>(operand(x, in, l))); break;
            case Op::inval: b.invalidate(); break;
            case Op::arrive:
            case Op::arrive_drop: {
                const auto count = static_cast<U32>(operand(x, in, l));
                if (in.op[0] != no_guard) {
                    // The state token: the phase arrived in (bit 63), the arrivals it left pending.
                    x.reg<U64>(in.op[0])[l] = (U64{b.phase()} << 63) | (b.pending() - std::min(count, b.pending()));
                }
                if (in.op[3] != no_guard) b.expect_tx(tx);
                if (op == Op::arrive_drop) b.drop(count);
                b.arrive(count);
                break;
            }
            case Op::expect_tx: b.expect_tx(tx); break;
            case Op::complete_tx: b.complete_tx(tx); break;
            case Op::test_wait:
            case Op::test_wait_parity: {
                const U64 v = x.reg<U64>(in.op[2])[l];
                const U32 waited = op == Op::test_wait ? static_cast<U32>((v >> 63) & 1u) : static_cast<U32>(v & 1u);
                if (b.phase() != waited) done |= 1u << l;  // the phase the token or parity names is over
                break;
            }
            case Op::pending_count: break;
        }
    }
    if (op == Op::test_wait || op == Op::test_wait_parity) {
        x.set_pred(in.op[0], done, lanes);
        x.warp->polled = true;
    }
}

// cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]: the barrier hears of the thread's earlier
// cp.async copies when they complete; they complete at once here, so only .noinc (the arrival
// counts as the thread's own) changes it. op[1]/size/imm/space: the address, as for mbarrier.
void cp_async_arrive(Exec& x, const Inst& in, U32 mask) {
    for_lanes(mask, [&](unsigned l) {
        if (x.faulted) return;
        std::byte* p = barrier_bytes(x, address_of(x, in.op[1], in.size, in.imm, l), in.space == 1, l);
        if (p == nullptr) return;
        Barrier(p).arrive(1);
    });
}

// cp.async.bulk: op[0] the destination, op[1] the source, op[2] the byte count (32-bit lanes),
// op[3] the mbarrier whose transaction the bytes complete (no_guard: none; a bulk group instead),
// all 64-bit addresses made by address_into first. `sub` 1: global to shared, 0: shared to global.
void bulk_copy(Exec& x, const Inst& in, U32 mask) {
    const bool to_shared = in.sub == 1;
    for_lanes(mask, [&](unsigned l) {
        if (x.faulted) return;
        const U64 dst = x.reg<U64>(in.op[0])[l], src = x.reg<U64>(in.op[1])[l];
        const U32 bytes = x.reg<U32>(in.op[2])[l];
        // In 16-byte pieces, each checked: the instruction needs 16-byte alignment and sizes.
        for (U32 at = 0; at < bytes; at += 16) {
            const unsigned n = std::min<U32>(16, bytes - at);
            std::byte piece[16];
            const std::byte* from = to_shared ? global_address(x, src + at, n, l, Access::read)
                                              : shared_address(x, src + at, n, l, Access::read);
            if (from == nullptr) return;
            if (to_shared) note_global_read(x, src + at, n, l);
            std::memcpy(piece, from, n);
            if (to_shared) {
                if (!shared_store(x, dst + at, n, l, piece)) return;
            } else {
                std::byte* into = global_address(x, dst + at, n, l, Access::write);
                if (into == nullptr) return;
                note_global_write(x, dst + at, n, l, std::memcmp(into, piece, n) != 0);
                std::memcpy(into, piece, n);
            }
        }
        if (in.op[3] == no_guard) return;
        std::byte* p = barrier_bytes(x, x.reg<U64>(in.op[3])[l], false, l);
        if (p == nullptr) return;
        Barrier(p).complete_tx(static_cast<std::int32_t>(bytes));
    });
}

void address_into(Exec& x, const Inst& in, U32 mask) {
    U64* d = x.reg<U64>(in.op[0]);
    for_lanes(mask, [&](unsigned l) { d[l] = address_of(x, in.op[1], in.size, in.imm, l); });
}

void nothing(Exec&, const Inst&, U32) {}

// An address operand ([reg], [reg+imm], [symbol]) computed into a 64-bit temporary.
std::uint32_t address_register(Emitter& e, const ptx::Operand& o) {
    const Emitter::Address a = e.address(o);
    const std::uint32_t t = e.temporary(8);
    Inst& in = e.emit(address_into);
    in.op[0] = t;
    in.op[1] = a.base;
    in.size = static_cast<std::uint8_t>(a.base == no_guard ? 0 : a.base_bytes);
    in.imm = a.offset;
    return t;
}

void widen(Exec& x, const Inst& in, U32 m) {
    unary<U64, U32>(x, in, m, [](U32 v) { return U64{v}; });
}

// A count, token or parity operand as 64-bit lanes (a 32-bit register is widened first).
std::uint32_t u64_operand(Emitter& e, const ptx::Operand& o) {
    if (e.register_size(o) != 4) return e.source(o, Ty::b64);
    const std::uint32_t narrow = e.source(o, Ty::b32);
    const std::uint32_t wide = e.temporary(8);
    Inst& in = e.emit(widen);
    in.op[0] = wide;
    in.op[1] = narrow;
    return wide;
}

bool decode_mbarrier(Emitter& e) {
    const Suffixes& s = e.suffixes();
    Op op;
    std::size_t address = 1;
    if (s.has("init")) {
        op = Op::init;
        address = 0;
    } else if (s.has("inval")) {
        op = Op::inval;
        address = 0;
    } else if (s.has("arrive")) {
        op = Op::arrive;
    } else if (s.has("arrive_drop")) {
        op = Op::arrive_drop;
    } else if (s.has("expect_tx")) {
        op = Op::expect_tx;
        address = 0;
    } else if (s.has("complete_tx")) {
        op = Op::complete_tx;
        address = 0;
    } else if (s.has("test_wait") || s.has("try_wait")) {
        op = s.has("parity") ? Op::test_wait_parity : Op::test_wait;
    } else if (s.has("pending_count")) {
        const std::uint32_t token = u64_operand(e, e.operand(1));
        Inst& in = e.emit(mbarrier);
        in.op[0] = e.destination(e.operand(0), Ty::u32);
        in.op[1] = no_guard;
        in.op[2] = token;
        in.op[3] = no_guard;
        in.sub = static_cast<std::uint8_t>(Op::pending_count);
        return true;
    } else {
        return false;
    }
    const bool with_tx = s.has("expect_tx") || s.has("complete_tx");
    const Emitter::Address a = e.address(e.operand(address));
    const bool has_next = e.operand_count() > address + 1 && e.operand(address + 1).kind != ptx::Operand::Kind::none;
    std::uint32_t extra = no_guard, tx = no_guard;
    if (has_next && with_tx) {
        tx = e.source(e.operand(address + 1), Ty::u32);  // arrive.expect_tx's count is 1
    } else if (has_next) {
        // init/arrive: a count; waits: the token or the parity (a suspend-time hint after it is ignored).
        extra = u64_operand(e, e.operand(address + 1));
    }
    std::uint32_t result = no_guard;
    if (op == Op::test_wait || op == Op::test_wait_parity) {
        result = e.predicate_destination(e.operand(0));
    } else if (address == 1 && e.operand(0).kind != ptx::Operand::Kind::none) {
        result = e.destination(e.operand(0), Ty::b64);
    }
    Inst& in = e.emit(mbarrier);
    in.op[0] = result;
    in.op[1] = a.base;
    in.op[2] = extra;
    in.op[3] = tx;
    in.size = static_cast<std::uint8_t>(a.base == no_guard ? 0 : a.base_bytes);
    in.imm = a.offset;
    in.sub = static_cast<std::uint8_t>(op);
    in.space = s.space == MemorySpace::shared ? 0 : 1;
    return true;
}

// The state space a suffix names, for instructions that name two (the first is the destination's).
MemorySpace first_space(const ptx::Instruction& in) {
    for (const std::string& w : in.suffixes) {
        if (w == "global") return MemorySpace::global;
        if (w.rfind("shared", 0) == 0) return MemorySpace::shared;
    }
    return MemorySpace::none;
}

// The cp.async forms that work with mbarriers and bulk groups (the per-thread cp.async copies
// are ops_memory's).
bool decode_cp_async_barrier(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (!s.has("async")) return false;
    if (s.has("tensor")) {
        e.unsupported("tensor memory copies (TMA: cp.async.bulk.tensor) need a GPU");
        return true;
    }
    if (s.has("mbarrier") && s.has("arrive")) {  // cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar]
        if (!s.has("noinc")) {
            e.emit(nothing);  // + 1 pending, then the copies' arrival: no change
            return true;
        }
        const Emitter::Address a = e.address(e.operand(0));
        Inst& in = e.emit(cp_async_arrive);
        in.op[1] = a.base;
        in.size = static_cast<std::uint8_t>(a.base == no_guard ? 0 : a.base_bytes);
        in.imm = a.offset;
        in.space = s.space == MemorySpace::shared ? 0 : 1;
        return true;
    }
    if (!s.has("bulk")) return false;
    if (s.has("commit_group") || s.has("wait_group") || s.has("prefetch")) {
        e.emit(nothing);  // the copies are done when issued: a group has nothing to wait for
        return true;
    }
    const MemorySpace to = first_space(e.instruction());
    const bool complete_tx = s.has("mbarrier::complete_tx::bytes");
    if ((to != MemorySpace::shared || !complete_tx) && (to != MemorySpace::global || complete_tx)) {
        return false;  // shared::cta to shared::cluster, multicast, reductions: not run here
    }
    const std::uint32_t dst = address_register(e, e.operand(0));
    const std::uint32_t src = address_register(e, e.operand(1));
    const std::uint32_t bytes = e.source(e.operand(2), Ty::u32);
    const std::uint32_t bar = complete_tx ? address_register(e, e.operand(3)) : no_guard;
    Inst& in = e.emit(bulk_copy);
    in.op[0] = dst;
    in.op[1] = src;
    in.op[2] = bytes;
    in.op[3] = bar;
    in.sub = to == MemorySpace::shared ? 1 : 0;
    return true;
}

}  // namespace

void register_mbarrier_ops(OpTable& t) {
    add_op(t, "mbarrier", decode_mbarrier);
    add_op(t, "cp", decode_cp_async_barrier);
}

}  // namespace xcuda::cpu
