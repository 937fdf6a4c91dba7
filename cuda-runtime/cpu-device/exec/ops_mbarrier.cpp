// mbarrier: the asynchronous barrier objects in shared memory that cuda::barrier and
// cuda::pipeline are built on. The object's 8 bytes are opaque to the program; here they hold the
// expected arrivals with the phase bit (low word) and the arrivals still pending in the current
// phase (high word). A CTA runs on one worker thread, so no host atomics are needed. A wait that
// finds its phase incomplete marks the warp as polling, so its spin loop lets other warps run.
#include "decode.hpp"
#include "lanes.hpp"
#include "memory_access.hpp"

#include <cstring>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

constexpr U32 phase_bit = 0x80000000u;

struct Barrier {
    U32 expected_and_phase;
    U32 pending;
};

// op[0] the result (a state token, a predicate mask, or no_guard), op[1] the address register
// (size: its bytes; no_guard: an absolute address in imm), op[2] a count or token operand
// (no_guard: 1), `sub` the operation, `space` 1 when the address is generic.
enum class Op : std::uint8_t { init, inval, arrive, arrive_drop, test_wait, test_wait_parity, pending_count };

Barrier* barrier_at(Exec& x, const Inst& in, unsigned lane) {
    const U64 base = in.size == 8 ? x.reg<U64>(in.op[1])[lane] : in.size == 4 ? U64{x.reg<U32>(in.op[1])[lane]} : 0u;
    const U64 address = base + static_cast<U64>(in.imm);
    std::byte* p = in.space == 1 ? generic_address(x, address, 8, lane, Access::atomic)
                                 : shared_address(x, address, 8, lane, Access::atomic);
    return reinterpret_cast<Barrier*>(p);
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
        Barrier* b = barrier_at(x, in, l);
        if (b == nullptr) return;  // a finding was recorded
        switch (op) {
            case Op::init: {
                const auto count = static_cast<U32>(operand(x, in, l)) & ~phase_bit;
                *b = {count, count};
                break;
            }
            case Op::inval: *b = {0, 0}; break;
            case Op::arrive:
            case Op::arrive_drop: {
                const auto count = static_cast<U32>(operand(x, in, l));
                const U32 phase = b->expected_and_phase & phase_bit;
                if (in.op[0] != no_guard) x.reg<U64>(in.op[0])[l] = (U64{phase} << 32) | (b->pending - count);
                if (op == Op::arrive_drop) b->expected_and_phase -= count;
                b->pending = count >= b->pending ? 0 : b->pending - count;
                if (b->pending == 0) {  // the phase completes: the next one starts
                    b->expected_and_phase ^= phase_bit;
                    b->pending = b->expected_and_phase & ~phase_bit;
                }
                break;
            }
            case Op::test_wait:
            case Op::test_wait_parity: {
                const U32 phase = (b->expected_and_phase & phase_bit) != 0 ? 1u : 0u;
                const U64 v = x.reg<U64>(in.op[2])[l];
                const U32 waited = op == Op::test_wait ? static_cast<U32>((v >> 63) & 1u) : static_cast<U32>(v & 1u);
                if (phase != waited) done |= 1u << l;  // the phase the token or parity names is over
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
    if (s.has("expect_tx") || s.has("complete_tx")) {
        e.unsupported("mbarrier transaction counts belong to the bulk copies (TMA), which need a GPU");
        return true;
    }
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
    } else if (s.has("test_wait") || s.has("try_wait")) {
        op = s.has("parity") ? Op::test_wait_parity : Op::test_wait;
    } else if (s.has("pending_count")) {
        const std::uint32_t token = u64_operand(e, e.operand(1));
        Inst& in = e.emit(mbarrier);
        in.op[0] = e.destination(e.operand(0), Ty::u32);
        in.op[1] = no_guard;
        in.op[2] = token;
        in.sub = static_cast<std::uint8_t>(Op::pending_count);
        return true;
    } else {
        return false;
    }
    const Emitter::Address a = e.address(e.operand(address));
    std::uint32_t extra = no_guard;
    if (e.operand_count() > address + 1 && e.operand(address + 1).kind != ptx::Operand::Kind::none) {
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
    in.size = static_cast<std::uint8_t>(a.base == no_guard ? 0 : a.base_bytes);
    in.imm = a.offset;
    in.sub = static_cast<std::uint8_t>(op);
    in.space = s.space == MemorySpace::shared ? 0 : 1;
    return true;
}

}  // namespace

void register_mbarrier_ops(OpTable& t) { add_op(t, "mbarrier", decode_mbarrier); }

}  // namespace xcuda::cpu
