// Decoding the instructions that change a warp's flow: branches, calls and returns, exit,
// barriers, __syncwarp, trap, nanosleep. Their execution is the scheduler's (run/cta_scheduler.cpp);
// fences and the hints that order nothing here decode to no-ops.
#include "exec/decode/decode.hpp"
#include "exec/run/device_runtime.hpp"
#include "exec/global_race_notes.hpp"
#include "exec/ops/lanes.hpp"

#include <atomic>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;

bool decode_bra(Emitter& e) {
    const std::uint32_t target = e.label(e.operand(0));
    Inst& in = e.emit(nullptr, Flow::branch);
    in.target = target;
    return true;
}

// brx.idx index, table: per-lane targets from a .branchtargets list.
bool decode_brx(Emitter& e) {
    if (!e.suffixes().has("idx")) return false;
    const std::uint32_t index = e.source(e.operand(0), Ty::u32);
    const std::size_t table = e.branch_table(e.operand(1));
    Inst& in = e.emit(nullptr, Flow::branch_index);
    in.op[0] = index;
    in.imm = static_cast<std::int64_t>(table);
    return true;
}

std::vector<ParamSlot> param_list(Emitter& e, const ptx::Operand& list) {
    std::vector<ParamSlot> slots;
    for (const ptx::Operand& o : list.elements) slots.push_back(e.param_slot(o));
    return slots;
}

CallSite::Builtin builtin_of(const std::string& name) {
    if (name == "vprintf") return CallSite::Builtin::vprintf;
    if (name == "__assertfail") return CallSite::Builtin::assertfail;
    if (name == "malloc") return CallSite::Builtin::malloc;
    if (name == "free") return CallSite::Builtin::free;
    return CallSite::Builtin::none;
}

// call{.uni} (ret), func, (args) | call func, (args) | call (ret), %fptr, (args), prototype
bool decode_call(Emitter& e) {
    std::size_t i = 0;
    CallSite site;
    if (e.operand(0).kind == ptx::Operand::Kind::list) {
        site.results = param_list(e, e.operand(0));
        i = 1;
    }
    const ptx::Operand& callee = e.operand(i);
    if (e.operand_count() > i + 1 && e.operand(i + 1).kind == ptx::Operand::Kind::list) {
        site.arguments = param_list(e, e.operand(i + 1));
    }
    std::uint32_t pointer = no_guard;
    if (callee.kind == ptx::Operand::Kind::symbol) {
        const auto f = e.function_named(callee.name);
        if (!f) e.error("call to undeclared function " + callee.name);
        site.callee = *f;
        site.builtin = builtin_of(callee.name);
        if (site.builtin == CallSite::Builtin::malloc || site.builtin == CallSite::Builtin::free) {
            e.program().uses_device_heap = true;
        }
        const FunctionInfo& info = e.program().functions[*f];
        RuntimeEntry entry{};
        if (info.is_extern && site.builtin == CallSite::Builtin::none && device_runtime_entry(callee.name, entry)) {
            site.builtin = CallSite::Builtin::device_runtime;
            site.runtime_entry = static_cast<std::uint8_t>(entry);
            e.program().uses_device_runtime = true;
            if (entry == RuntimeEntry::malloc || entry == RuntimeEntry::free) e.program().uses_device_heap = true;
        } else if (info.is_extern && site.builtin == CallSite::Builtin::none) {
            // cudaEventRecord, cudaMemcpyAsync, ... (CDP2 names them __cudaCDP2EventRecord ...)
            const bool device_runtime = callee.name.rfind("cuda", 0) == 0 || callee.name.rfind("__cuda", 0) == 0;
            e.unsupported("a call to " + callee.name +
                          (device_runtime ? ", an entry point of the device-side CUDA runtime the CPU device does not "
                                            "implement (it implements launches from the device, their streams, "
                                            "cudaGetLastError, cudaPeekAtLastError, cudaGetDevice, cudaMalloc and "
                                            "cudaFree); run it on a GPU"
                                          : ", a function this module only declares: one defined in another cell "
                                            "(-dc, relocatable device code) is linked on a GPU only; on the CPU "
                                            "device define it in this cell or in a %%cuda_header it includes"));
            return true;
        }
    } else {
        site.indirect = true;
        pointer = e.source(callee, Ty::u64);
    }
    e.program().calls.push_back(std::move(site));
    Inst& in = e.emit(nullptr, Flow::call);
    in.imm = static_cast<std::int64_t>(e.program().calls.size() - 1);
    in.op[0] = pointer;
    return true;
}

bool decode_ret(Emitter& e) {
    e.emit(nullptr, Flow::ret);
    return true;
}
bool decode_exit(Emitter& e) {
    e.emit(nullptr, Flow::exit);
    return true;
}
bool decode_trap(Emitter& e) {
    e.emit(nullptr, Flow::trap);
    return true;
}
bool decode_nanosleep(Emitter& e) {
    e.emit(nullptr, Flow::yield);
    return true;
}

// A barrier's id and count: immediates, or registers read when the barrier is reached.
void barrier_operand(Emitter& e, const ptx::Operand& o, std::uint32_t& reg, std::uint32_t& value) {
    if (o.kind == ptx::Operand::Kind::integer) {
        value = static_cast<std::uint32_t>(o.integer);
    } else {
        reg = e.source(o, Ty::u32);
    }
}

// bar{.cta}.sync / bar.arrive / bar.red / barrier{.cta}.sync{.aligned} / barrier.arrive ...
bool decode_bar(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (s.has("warp")) {  // bar.warp.sync membermask
        const std::uint32_t mask = e.source(e.operand(0), Ty::b32);
        Inst& in = e.emit(nullptr, Flow::warp_sync);
        in.op[0] = mask;
        return true;
    }
    BarrierSite b;
    std::size_t next = 0;
    if (s.has("red")) {
        // bar.red.popc.u32 d, a{, b}, {!}c | bar.red.{and,or}.pred p, a{, b}, {!}c
        b.kind = s.has("popc")  ? BarrierSite::Kind::red_popc
                 : s.has("and") ? BarrierSite::Kind::red_and
                                : BarrierSite::Kind::red_or;
        next = 1;
    } else if (s.has("arrive")) {
        b.kind = BarrierSite::Kind::arrive;
    }
    // barrier.sync without .aligned lets the lanes of a warp arrive separately; bar.sync is aligned.
    b.aligned = e.instruction().opcode == "bar" || s.has("aligned");
    const std::size_t operands = e.operand_count();
    const std::size_t last = b.kind == BarrierSite::Kind::red_popc || b.kind == BarrierSite::Kind::red_and ||
                                     b.kind == BarrierSite::Kind::red_or
                                 ? operands - 1
                                 : operands;
    if (next < last) barrier_operand(e, e.operand(next), b.id_reg, b.id);
    if (next + 1 < last) barrier_operand(e, e.operand(next + 1), b.count_reg, b.count);
    if (next > 0) {
        bool negated = false;
        b.predicate = e.predicate(e.operand(operands - 1), &negated);
        b.predicate_negated = negated;
        b.result = b.kind == BarrierSite::Kind::red_popc ? e.destination(e.operand(0), Ty::u32)
                                                         : e.predicate_destination(e.operand(0));
    }
    e.program().barriers.push_back(b);
    Inst& in = e.emit(nullptr, Flow::barrier);
    in.imm = static_cast<std::int64_t>(e.program().barriers.size() - 1);
    return true;
}

// barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}{.aligned}
bool decode_cluster_barrier(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (!s.has("cluster")) return false;
    Inst& in = e.emit(nullptr, Flow::cluster_barrier);
    in.sub = s.has("arrive") ? 1 : 0;  // 1: arrive, 0: wait
    return true;
}

void fence(Exec& x, const Inst&, U32) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    note_fence(x);  // a strong write after it releases what came before (check/happens_before.hpp)
}
void nothing(Exec&, const Inst&, U32) {}

bool decode_fence(Emitter& e) {
    e.emit(fence);
    return true;
}
bool decode_noop(Emitter& e) {
    e.emit(nothing);
    return true;
}

}  // namespace

void register_control_ops(OpTable& t) {
    add_op(t, "bra", decode_bra);
    add_op(t, "brx", decode_brx);
    add_op(t, "call", decode_call);
    add_op(t, "ret", decode_ret);
    add_op(t, "exit", decode_exit);
    add_op(t, "trap", decode_trap);
    add_op(t, "nanosleep", decode_nanosleep);
    add_op(t, "bar", decode_bar);
    add_op(t, "barrier", decode_cluster_barrier);
    add_op(t, "barrier", decode_bar);
    add_op(t, "membar", decode_fence);
    add_op(t, "fence", decode_fence);
    // Orderings and hints with nothing to order or hint on one host: no-ops.
    add_op(t, "griddepcontrol", decode_noop);
    add_op(t, "setmaxnreg", decode_noop);
    add_op(t, "pmevent", decode_noop);
    add_op(t, "brkpt", decode_noop);
}

}  // namespace xcuda::cpu
