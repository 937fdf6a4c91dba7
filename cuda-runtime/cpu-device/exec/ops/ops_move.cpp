// Moves (mov, with packing and unpacking of vectors) and the special registers: thread, block
// and cluster coordinates, lane masks, clocks, environment registers.
#include "exec/decode/decode.hpp"
#include "exec/ops/lanes.hpp"
#include "exec/ops/special_registers.hpp"

#include <chrono>
#include <cstring>
#include <string>

namespace xcuda::cpu {

Handler predicate_move_handler();  // ops_integer.cpp

namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

const Dim3& block_dims(const Exec& x) { return x.launch->spec->block; }
const Dim3& grid_dims(const Exec& x) { return x.launch->spec->grid; }
const Dim3& cluster_dims(const Exec& x) { return x.launch->spec->cluster; }

unsigned component(const Dim3& d, std::int64_t c) { return c == 0 ? d.x : c == 1 ? d.y : d.z; }

template <class T, class F>
void write_all(const Exec& x, const Inst& in, U32 mask, F&& f) {
    each_lane(mask, slot<T>(x, in.op[0]), f);
}

void read_tid(Exec& x, const Inst& in, U32 m) {
    const Dim3& b = block_dims(x);
    const U32 first = x.warp->first_thread;
    const auto c = in.imm;
    // Lane l is thread first + l: its x, y and z count up like a counter's digits from the first
    // lane's (one division for the warp, not three per lane).
    U32 tx = first % b.x, ty = (first / b.x) % b.y, tz = first / (b.x * b.y);
    U32 v[32];
    for (unsigned l = 0; l < 32; ++l) {
        v[l] = c == 0 ? tx : c == 1 ? ty : tz;
        if (++tx == b.x) {
            tx = 0;
            if (++ty == b.y) {
                ty = 0;
                ++tz;
            }
        }
    }
    write_all<U32>(x, in, m, [&](unsigned l) { return v[l]; });
}
void read_ntid(Exec& x, const Inst& in, U32 m) {
    const U32 v = component(block_dims(x), in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_ctaid(Exec& x, const Inst& in, U32 m) {
    const U32 v = component(x.cta->ctaid, in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_nctaid(Exec& x, const Inst& in, U32 m) {
    const U32 v = component(grid_dims(x), in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_laneid(Exec& x, const Inst& in, U32 m) {
    write_all<U32>(x, in, m, [](unsigned l) { return static_cast<U32>(l); });
}
void read_warpid(Exec& x, const Inst& in, U32 m) {
    const U32 v = x.warp->index;
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_constant32(Exec& x, const Inst& in, U32 m) {
    const auto v = static_cast<U32>(in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_constant64(Exec& x, const Inst& in, U32 m) {
    const auto v = static_cast<U64>(in.imm);
    write_all<U64>(x, in, m, [=](unsigned) { return v; });
}
void read_smid(Exec& x, const Inst& in, U32 m) {
    const U32 v = x.worker;
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
// %lanemask_{eq,le,lt,ge,gt}: imm 0..4.
void read_lanemask(Exec& x, const Inst& in, U32 m) {
    const auto kind = in.imm;
    write_all<U32>(x, in, m, [=](unsigned l) {
        const U32 bit = 1u << l;
        switch (kind) {
            case 0: return bit;
            case 1: return bit | (bit - 1);
            case 2: return bit - 1;
            case 3: return ~(bit - 1);
            default: return ~(bit | (bit - 1));
        }
    });
}

U64 nanoseconds() {
    return static_cast<U64>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}
// Cycle counters tick at about the emulated SM clock (1.98 GHz) of wall time, so a kernel that
// measures or waits in cycles behaves in proportion.
U64 cycles() { return nanoseconds() * 2; }

void read_clock(Exec& x, const Inst& in, U32 m) {
    const auto v = static_cast<U32>(in.imm == 1 ? cycles() >> 32 : cycles());
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_clock64(Exec& x, const Inst& in, U32 m) {
    const U64 v = cycles();
    write_all<U64>(x, in, m, [=](unsigned) { return v; });
}
void read_globaltimer(Exec& x, const Inst& in, U32 m) {
    const U64 v = nanoseconds();
    write_all<U64>(x, in, m, [=](unsigned) { return v; });
}
void read_globaltimer32(Exec& x, const Inst& in, U32 m) {
    const U64 t = nanoseconds();
    const auto v = static_cast<U32>(in.imm == 1 ? t >> 32 : t);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
// %envreg1 / %envreg2: the high and low words of the cooperative grid workspace's address
// (cooperative_groups' get_grid_workspace reads load_env_reg64<1, 2>: hi, lo); the others are 0.
void read_envreg(Exec& x, const Inst& in, U32 m) {
    const U64 ws = x.launch->grid_workspace;
    const U32 v = in.imm == 1 ? static_cast<U32>(ws >> 32) : in.imm == 2 ? static_cast<U32>(ws) : 0u;
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_dynamic_smem(Exec& x, const Inst& in, U32 m) {
    const U32 v = x.launch->spec->dynamic_shared_bytes;
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_total_smem(Exec& x, const Inst& in, U32 m) {
    // As declared: the kernel's variables and the launch's dynamic bytes (no reserved part, no red zones).
    const U32 v = static_cast<U32>(x.launch->kernel->static_shared_bytes) + x.launch->spec->dynamic_shared_bytes;
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_cluster_ctaid(Exec& x, const Inst& in, U32 m) {
    const U32 v = component(x.cta->ctaid, in.imm) % component(cluster_dims(x), in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_cluster_nctaid(Exec& x, const Inst& in, U32 m) {
    const U32 v = component(cluster_dims(x), in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_clusterid(Exec& x, const Inst& in, U32 m) {
    const U32 v = component(x.cta->ctaid, in.imm) / component(cluster_dims(x), in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_nclusterid(Exec& x, const Inst& in, U32 m) {
    const U32 v = component(grid_dims(x), in.imm) / component(cluster_dims(x), in.imm);
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_cluster_ctarank(Exec& x, const Inst& in, U32 m) {
    const U32 v = x.cta->cluster_rank;
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_cluster_nctarank(Exec& x, const Inst& in, U32 m) {
    const U32 v = static_cast<U32>(cluster_dims(x).count());
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}
void read_is_explicit_cluster(Exec& x, const Inst& in, U32 m) {
    const U32 v = x.launch->kernel->explicit_cluster || cluster_dims(x).count() > 1 ? 1u : 0u;
    write_all<U32>(x, in, m, [=](unsigned) { return v; });
}

struct Named {
    const char* name;
    unsigned bytes;
    Handler read;
    std::int64_t argument;
};

// clang-format off
const Named special_registers[] = {
    {"%tid.x", 4, read_tid, 0}, {"%tid.y", 4, read_tid, 1}, {"%tid.z", 4, read_tid, 2},
    {"%ntid.x", 4, read_ntid, 0}, {"%ntid.y", 4, read_ntid, 1}, {"%ntid.z", 4, read_ntid, 2},
    {"%ctaid.x", 4, read_ctaid, 0}, {"%ctaid.y", 4, read_ctaid, 1}, {"%ctaid.z", 4, read_ctaid, 2},
    {"%nctaid.x", 4, read_nctaid, 0}, {"%nctaid.y", 4, read_nctaid, 1}, {"%nctaid.z", 4, read_nctaid, 2},
    {"%laneid", 4, read_laneid, 0}, {"%warpid", 4, read_warpid, 0}, {"%nwarpid", 4, read_constant32, 64},
    {"%smid", 4, read_smid, 0}, {"%nsmid", 4, read_constant32, 132}, {"%gridid", 8, read_constant64, 1},
    {"%lanemask_eq", 4, read_lanemask, 0}, {"%lanemask_le", 4, read_lanemask, 1},
    {"%lanemask_lt", 4, read_lanemask, 2}, {"%lanemask_ge", 4, read_lanemask, 3},
    {"%lanemask_gt", 4, read_lanemask, 4},
    {"%clock", 4, read_clock, 0}, {"%clock_hi", 4, read_clock, 1}, {"%clock64", 8, read_clock64, 0},
    {"%globaltimer", 8, read_globaltimer, 0}, {"%globaltimer_lo", 4, read_globaltimer32, 0},
    {"%globaltimer_hi", 4, read_globaltimer32, 1},
    {"%dynamic_smem_size", 4, read_dynamic_smem, 0}, {"%total_smem_size", 4, read_total_smem, 0},
    {"%aggr_smem_size", 4, read_total_smem, 0},
    {"%cluster_ctaid.x", 4, read_cluster_ctaid, 0}, {"%cluster_ctaid.y", 4, read_cluster_ctaid, 1},
    {"%cluster_ctaid.z", 4, read_cluster_ctaid, 2},
    {"%cluster_nctaid.x", 4, read_cluster_nctaid, 0}, {"%cluster_nctaid.y", 4, read_cluster_nctaid, 1},
    {"%cluster_nctaid.z", 4, read_cluster_nctaid, 2},
    {"%clusterid.x", 4, read_clusterid, 0}, {"%clusterid.y", 4, read_clusterid, 1},
    {"%clusterid.z", 4, read_clusterid, 2},
    {"%nclusterid.x", 4, read_nclusterid, 0}, {"%nclusterid.y", 4, read_nclusterid, 1},
    {"%nclusterid.z", 4, read_nclusterid, 2},
    {"%cluster_ctarank", 4, read_cluster_ctarank, 0}, {"%cluster_nctarank", 4, read_cluster_nctarank, 0},
    {"%is_explicit_cluster", 4, read_is_explicit_cluster, 0},
    {"%current_graph_exec", 8, read_constant64, 0},
    {"%reserved_smem_offset_begin", 4, read_constant32, 0},
    {"%reserved_smem_offset_end", 4, read_constant32, reserved_shared_bytes},
    {"%reserved_smem_offset_cap", 4, read_constant32, reserved_shared_bytes},
    {"%reserved_smem_offset_0", 4, read_constant32, 0},
    {"%reserved_smem_offset_1", 4, read_constant32, reserved_shared_offset_1},
};
// clang-format on

const SpecialRegister* lookup(std::string_view name) {
    static const std::vector<SpecialRegister> table = [] {
        std::vector<SpecialRegister> t;
        for (const auto& n : special_registers) t.push_back({n.name, n.bytes, n.read, n.argument});
        return t;
    }();
    for (const auto& r : table) {
        if (name == r.name) return &r;
    }
    return nullptr;
}

// %envregN and the performance monitor counters (%pmN, %pmN_64) form families.
const SpecialRegister* lookup_numbered(std::string_view name) {
    static thread_local SpecialRegister numbered;
    auto number_after = [&](std::string_view prefix, int& n) {
        if (name.substr(0, prefix.size()) != prefix) return false;
        const std::string rest(name.substr(prefix.size()));
        if (rest.empty()) return false;
        n = std::atoi(rest.c_str());
        return true;
    };
    int n = 0;
    if (number_after("%envreg", n) && n >= 0 && n < 32) {
        numbered = {"%envreg", 4, read_envreg, n};
        return &numbered;
    }
    if (number_after("%pm", n) && n >= 0 && n < 8) {
        const bool wide = name.size() > 3 && name.find("_64") != std::string_view::npos;
        numbered = {"%pm", wide ? 8u : 4u, wide ? read_constant64 : read_constant32, 0};
        return &numbered;
    }
    return nullptr;
}

template <unsigned N>
void copy_lanes(Exec& x, const Inst& in, U32 m) {
    std::byte* d = x.regs + in.op[0];
    const std::byte* a = x.regs + in.op[1];
    if (m == all_lanes) {
        std::memmove(d, a, 32 * N);
        return;
    }
    for_lanes(m, [&](unsigned l) { std::memmove(d + l * N, a + l * N, N); });
}

Handler copy_handler(unsigned bytes) {
    switch (bytes) {
        case 1: return copy_lanes<1>;
        case 2: return copy_lanes<2>;
        case 4: return copy_lanes<4>;
        case 8: return copy_lanes<8>;
        case 16: return copy_lanes<16>;
        default: return nullptr;
    }
}

void local_address(Exec& x, const Inst& in, U32 m) {
    const U64 v = x.frame_local_base + static_cast<U64>(in.imm);
    if (in.size == 8) {
        write_all<U64>(x, in, m, [=](unsigned) { return v; });
    } else {
        write_all<U32>(x, in, m, [=](unsigned) { return static_cast<U32>(v); });
    }
}

// mov.b64 d, {lo, hi} / mov.b32 d, {lo, hi}: element bytes in `size`, count in `sub`.
void pack(Exec& x, const Inst& in, U32 m) {
    const unsigned es = in.size, n = in.sub, total = es * n;
    std::byte* d = x.regs + in.op[0];
    for_lanes(m, [&](unsigned l) {
        for (unsigned i = 0; i < n; ++i) std::memcpy(d + l * total + i * es, x.regs + in.op[1 + i] + l * es, es);
    });
}
// mov.b64 {lo, hi}, a: the reverse.
void unpack(Exec& x, const Inst& in, U32 m) {
    const unsigned es = in.size, n = in.sub, total = es * n;
    const std::byte* a = x.regs + in.op[n];
    // Read all lanes first: a destination may be the source's own slot in another view.
    std::byte buffer[32 * 16];
    std::memcpy(buffer, a, 32 * total);
    for_lanes(m, [&](unsigned l) {
        for (unsigned i = 0; i < n; ++i) std::memcpy(x.regs + in.op[i] + l * es, buffer + l * total + i * es, es);
    });
}

bool decode_mov(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    const ptx::Operand& d = e.operand(0);
    const ptx::Operand& a = e.operand(1);
    if (t == Ty::pred) {
        const std::uint32_t src = e.predicate(a);
        Inst& in = e.emit(predicate_move_handler());
        in.op[0] = e.predicate_destination(d);
        in.op[1] = src;
        return true;
    }
    const unsigned size = type_size(t);
    if (size == 0) e.error("mov needs a type");
    if (a.kind == ptx::Operand::Kind::vector) {  // pack
        const unsigned n = static_cast<unsigned>(a.elements.size());
        if (n < 2 || n > 4 || size % n != 0)
            e.error("cannot pack " + std::to_string(n) + " values into ." + type_name(t));
        const unsigned es = size / n;
        const Ty et = es == 1 ? Ty::b8 : es == 2 ? Ty::b16 : es == 4 ? Ty::b32 : Ty::b64;
        std::uint32_t parts[4];
        for (unsigned i = 0; i < n; ++i) parts[i] = e.source(a.elements[i], et);
        Inst& in = e.emit(pack);
        in.op[0] = e.destination(d, t);
        for (unsigned i = 0; i < n; ++i) in.op[1 + i] = parts[i];
        in.size = static_cast<std::uint8_t>(es);
        in.sub = static_cast<std::uint8_t>(n);
        return true;
    }
    if (d.kind == ptx::Operand::Kind::vector) {  // unpack
        const unsigned n = static_cast<unsigned>(d.elements.size());
        if (n < 2 || n > 4 || size % n != 0)
            e.error("cannot unpack ." + std::string(type_name(t)) + " into " + std::to_string(n));
        const unsigned es = size / n;
        const Ty et = es == 1 ? Ty::b8 : es == 2 ? Ty::b16 : es == 4 ? Ty::b32 : Ty::b64;
        const std::uint32_t src = e.source(a, t);
        Inst& in = e.emit(unpack);
        for (unsigned i = 0; i < n; ++i) in.op[i] = e.destination(d.elements[i], et);
        in.op[n] = src;
        in.size = static_cast<std::uint8_t>(es);
        in.sub = static_cast<std::uint8_t>(n);
        return true;
    }
    if (a.kind == ptx::Operand::Kind::reg && e.register_size(a) == 0) {  // (a register declared without '%'
                                                                         // is a register: register_size says so)
        // A special register straight into the destination, without a temporary.
        const std::string full = a.name + (a.vector_select.empty() ? "" : "." + a.vector_select);
        if (const SpecialRegister* sr = find_special_register(full)) {
            if (sr->bytes != size) e.error(full + " is " + std::to_string(sr->bytes * 8) + " bits");
            Inst& in = e.emit(sr->read);
            in.op[0] = e.destination(d, t);
            in.imm = sr->argument;
            return true;
        }
    }
    if (a.kind == ptx::Operand::Kind::symbol && e.register_size(a) == 0) {
        e.emit_symbol_address(a.name, a.integer, e.destination(d, t), size);
        return true;
    }
    const std::uint32_t src = e.source(a, t);
    Inst& in = e.emit(copy_handler(size));
    in.op[0] = e.destination(d, t);
    in.op[1] = src;
    return true;
}

}  // namespace

Handler envreg_reader() { return read_envreg; }

const SpecialRegister* find_special_register(std::string_view name) {
    if (const SpecialRegister* r = lookup(name)) return r;
    return lookup_numbered(name);
}

Handler special_local_address() { return local_address; }
Handler copy_lanes_handler(unsigned bytes) { return copy_handler(bytes); }

void register_move_ops(OpTable& t) { add_op(t, "mov", decode_mov); }

}  // namespace xcuda::cpu
