#include "exec/memory_access.hpp"
#include "exec/run/barrier_divergence.hpp"
#include "check/shared_race.hpp"
#include "check/shared_state.hpp"
#include "exec/run/access_trace.hpp"
#include "exec/memory_checks.hpp"
#include "exec/run/race_clock.hpp"

#include <cstring>
#include <string>

namespace xcuda::cpu {
namespace {

// Which kernel parameter holds a pointer into [base, base + size] (the end included: a pointer
// one past an array is still that array's).
int parameter_pointing_into(const Exec& x, std::uint64_t base, std::uint64_t size) {
    const KernelInfo& k = *x.launch->kernel;
    const auto* params = reinterpret_cast<const std::byte*>(x.launch->params_address);
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        if (k.params[i].size != 8) continue;
        std::uint64_t v;
        std::memcpy(&v, params + k.params[i].offset, 8);
        if (v >= base && v <= base + size) return static_cast<int>(i);
    }
    return -1;
}

}  // namespace

Region region_of(const Exec& x, const Allocation& a, std::uint64_t address) {
    Region r;
    r.base = a.base;
    r.size = a.size;
    r.offset = static_cast<std::int64_t>(address - a.base);
    if (a.kind == Allocation::Kind::module_variable) {
        r.kind = Region::Kind::variable;
        r.variable = a.label;
    } else {
        r.kind = Region::Kind::allocation;
        r.parameter = parameter_pointing_into(x, a.base, a.size);
    }
    return r;
}

Finding memory_finding(FindingKind kind, Access access, MemorySpace space, unsigned size, std::uint64_t address) {
    Finding f;
    f.kind = kind;
    f.access = access;
    f.space = space;
    f.size = size;
    f.address = address;
    return f;
}

// The shared variable `offset` lies in or nearest to (a red zone lies between two: an overrun of
// the one before it, unless it is nearer the start of the next), for reports.
Region shared_region(const Exec& x, std::uint64_t offset) {
    Region r;
    const SharedVariable* best = nullptr;
    std::uint64_t best_distance = 0;
    for (const SharedVariable& v : x.launch->shared_layout->variables) {
        const std::uint64_t size = v.bytes != 0 ? v.bytes : x.launch->shared_window_bytes - v.offset;
        const std::uint64_t distance = offset < v.offset           ? v.offset - offset
                                       : offset >= v.offset + size ? offset - (v.offset + size) + 1
                                                                   : 0;
        if (best == nullptr || distance < best_distance) {
            best = &v;
            best_distance = distance;
        }
    }
    if (best == nullptr) return r;
    r.kind = Region::Kind::variable;
    r.variable = best->name;
    r.base = best->offset;
    r.size = best->bytes != 0 ? best->bytes : x.launch->shared_window_bytes - best->offset;
    r.offset = static_cast<std::int64_t>(offset) - static_cast<std::int64_t>(best->offset);
    return r;
}

namespace {

bool shared_checks(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, Access access, Cta*& cta,
                   std::uint64_t& within) {
    cta = cta_of_window(x, offset);
    within = offset & window_offset_mask;
    if (cta == nullptr) {
        Finding f = memory_finding(FindingKind::out_of_bounds, access, MemorySpace::shared, size, offset);
        f.detail = "the address names CTA rank " + std::to_string((offset >> cluster_rank_shift) - 1) +
                   ", which is not in this cluster";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return false;
    }
    if (within + size > x.launch->shared_window_bytes || within + size < within) {
        Finding f = memory_finding(FindingKind::out_of_bounds, access, MemorySpace::shared, size, offset);
        f.region = shared_region(x, within);
        f.detail = "the CTA has " + std::to_string(x.launch->shared_window_bytes) + " bytes of shared memory";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return false;
    }
    if (x.checks && (within & (size - 1)) != 0) {
        Finding f = memory_finding(FindingKind::misaligned, access, MemorySpace::shared, size, offset);
        f.region = shared_region(x, within);
        x.fail(std::move(f), lane, 1, CUDA_ERROR_MISALIGNED_ADDRESS);
        return false;
    }
    // Bytes not all written (or a red zone): the memory checks mark, hold or report them.
    if (cta->shared_state != nullptr && cta->shared_state->of(static_cast<std::uint32_t>(within), size) != 0)
        return shared_state_checks(x, *cta, offset, within, size, lane, access);
    return true;
}

void report_race(Exec& x, const RaceConflict& c, Access access, std::uint64_t offset, unsigned size, unsigned lane) {
    Finding f = memory_finding(FindingKind::shared_race, access, MemorySpace::shared, size, offset);
    f.region = shared_region(x, offset & window_offset_mask);
    f.other_access = c.other_access;
    const Dim3& b = x.launch->spec->block;
    f.other_thread = {c.other_thread % b.x, (c.other_thread / b.x) % b.y, c.other_thread / (b.x * b.y)};
    const Site& s = x.program->sites[x.code[c.other_pc].site];
    f.other_where = x.location_of(s.loc);
    if (const Cta* cta = cta_of_window(x, offset)) {
        f.skipped_barrier = barrier_waited_at(x, static_cast<std::uint32_t>(cta - x.ctas->data()), c.other_thread);
    }
    x.fail(std::move(f), lane, 1, CUDA_ERROR_LAUNCH_FAILED);
}

Accessor accessor(const Exec& x, unsigned lane) { return {x.linear_thread(lane), x.warp->warp_syncs, x.pc}; }

}  // namespace

void report_shared_race(Exec& x, const RaceConflict& conflict, Access access, std::uint64_t offset, unsigned size,
                        unsigned lane) {
    report_race(x, conflict, access, offset, size, lane);
}

bool cover_range(Exec& x, std::uint64_t lo, std::uint64_t end) {
    // Checks off: the fast paths know the whole arena already. A traced launch records every
    // access on the slow path.
    if (!x.checks || x.trace != nullptr || end <= lo) return false;
    const Allocation* a = x.launch->table->find(lo, end - lo);
    // The device heap's blocks and memory with unwritten bytes are checked access by access.
    if (a == nullptr || a->kind == Allocation::Kind::device_heap || a->unwritten) return false;
    x.ok_begin = a->base;
    x.ok_end = a->base + a->size;
    x.ok_allocation = a;
    return true;
}

std::byte* global_address_slow(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access,
                               MemorySpace space) {
    const AllocationTable& table = *x.launch->table;
    if (x.trace != nullptr && space != MemorySpace::constant) x.trace->global(x, address, size, lane, access);
    if (!x.checks) {
        // Only the arena's bounds: the host process must never be touched.
        const DeviceMemory& memory = *x.launch->spec->memory;
        if (memory.in_arena(address, size)) return reinterpret_cast<std::byte*>(address);
        Finding f = memory_finding(FindingKind::out_of_bounds, access, space, size, address);
        f.detail = "the address is outside the device's memory";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return nullptr;
    }
    if ((address & (size - 1)) != 0) {
        Finding f = memory_finding(FindingKind::misaligned, access, space, size, address);
        if (const Allocation* a = table.containing(address)) f.region = region_of(x, *a, address);
        x.fail(std::move(f), lane, 1, CUDA_ERROR_MISALIGNED_ADDRESS);
        return nullptr;
    }
    if (const Allocation* a = table.find(address, size)) {
        if (a->kind == Allocation::Kind::device_heap || a->unwritten) {
            x.unchecked_begin = a->base;
            x.unchecked_end = a->base + a->size;
        }
        if (a->kind == Allocation::Kind::device_heap) return heap_access(x, address, size, lane, access, space);
        if (a->unwritten) return unwritten_access(x, *a, address, size, lane, access, space);
        if (x.trace != nullptr) return reinterpret_cast<std::byte*>(address);  // the next access must come here too
        x.ok_begin = a->base;
        x.ok_end = a->base + a->size;
        x.ok_allocation = a;
        return reinterpret_cast<std::byte*>(address);
    }
    if (const Allocation* freed = table.freed_containing(address)) {
        Finding f = memory_finding(FindingKind::use_after_free, access, space, size, address);
        f.region = region_of(x, *freed, address);
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return nullptr;
    }
    outside_every_allocation(x, address, size, lane, access, space);
    return nullptr;
}

Region global_region(const Exec& x, std::uint64_t address) {
    if (const Allocation* a = x.launch->table->containing(address)) return region_of(x, *a, address);
    return {};
}

std::byte* shared_address(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, Access access,
                          Strength strength) {
    Cta* cta = nullptr;
    std::uint64_t within = 0;
    if (!shared_checks(x, offset, size, lane, access, cta, within)) return nullptr;
    const auto word = static_cast<std::uint32_t>(within / 4);
    if (access == Access::atomic) {
        synchronise_on(x, *cta, word, true, true);
    } else if (strength != Strength::weak) {
        synchronise_on(x, *cta, word, strength == Strength::acquire, strength == Strength::release);
    } else if (x.checks && access == Access::read && cta->shadow != nullptr) {
        RaceConflict c;
        if (cta->shadow->read(static_cast<std::uint32_t>(within), size, accessor(x, lane), *x.epochs, race_horizon(x),
                              c)) {
            report_race(x, c, access, offset, size, lane);
            return nullptr;
        }
    }
    if (x.trace != nullptr) x.trace->shared(x, offset, cta->shared + within, size, lane, access, nullptr);
    return cta->shared + within;
}

bool shared_store(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, const std::byte* value,
                  Strength strength) {
    Cta* cta = nullptr;
    std::uint64_t within = 0;
    if (!shared_checks(x, offset, size, lane, Access::write, cta, within)) return false;
    std::byte* p = cta->shared + within;
    if (strength != Strength::weak) {
        synchronise_on(x, *cta, static_cast<std::uint32_t>(within / 4), false, true);
    } else if (x.checks && cta->shadow != nullptr) {
        RaceConflict c;
        if (cta->shadow->write(static_cast<std::uint32_t>(within), size, accessor(x, lane), *x.epochs, race_horizon(x),
                               p, value, c)) {
            report_race(x, c, Access::write, offset, size, lane);
            return false;
        }
    }
    if (x.trace != nullptr) x.trace->shared(x, offset, p, size, lane, Access::write, value);
    std::memcpy(p, value, size);
    return true;
}

std::byte* local_address(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, Access access) {
    const std::uint32_t stride = x.warp->local_stride;
    if (offset + size > stride || offset + size < offset) {
        Finding f = memory_finding(FindingKind::out_of_bounds, access, MemorySpace::local, size, offset);
        f.detail = "each thread has " + std::to_string(stride) +
                   " bytes of local memory (its stack: deep recursion or large local arrays overflow it)";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return nullptr;
    }
    if (x.checks && (offset & (size - 1)) != 0) {
        x.fail(memory_finding(FindingKind::misaligned, access, MemorySpace::local, size, offset), lane, 1,
               CUDA_ERROR_MISALIGNED_ADDRESS);
        return nullptr;
    }
    return x.warp->local + std::size_t{lane} * stride + offset;
}

std::uint64_t shared_window_base(const Exec& x) { return reinterpret_cast<std::uint64_t>(x.cta->shared); }

std::uint64_t local_window_base(const Exec& x, unsigned lane) {
    return reinterpret_cast<std::uint64_t>(x.warp->local) + std::uint64_t{lane} * x.warp->local_stride;
}

MemorySpace generic_space(const Exec& x, std::uint64_t address, unsigned lane) {
    const std::uint64_t shared = shared_window_base(x);
    if (address >= shared && address < shared + x.launch->shared_window_bytes) return MemorySpace::shared;
    if (x.ctas != nullptr && x.launch->spec->cluster.count() > 1) {
        for (const Cta& c : *x.ctas) {
            const auto base = reinterpret_cast<std::uint64_t>(c.shared);
            if (address >= base && address < base + x.launch->shared_window_bytes) return MemorySpace::shared;
        }
    }
    const std::uint64_t local = local_window_base(x, lane);
    if (address >= local && address < local + x.warp->local_stride) return MemorySpace::local;
    if (address >= x.launch->params_address && address < x.launch->params_address + x.launch->kernel->param_bytes) {
        return MemorySpace::param;
    }
    return MemorySpace::global;
}

namespace {

// A generic address in another CTA of the cluster: its window offset as shared_address takes it.
bool cluster_window_offset(const Exec& x, std::uint64_t address, std::uint64_t& offset) {
    if (x.ctas == nullptr || x.launch->spec->cluster.count() <= 1) return false;
    const std::size_t first = x.cta - x.ctas->data() - x.cta->cluster_rank;
    for (std::size_t r = 0; r < x.launch->spec->cluster.count() && first + r < x.ctas->size(); ++r) {
        const auto base = reinterpret_cast<std::uint64_t>((*x.ctas)[first + r].shared);
        if (address >= base && address < base + x.launch->shared_window_bytes) {
            offset = ((r + 1) << cluster_rank_shift) | (address - base);
            return true;
        }
    }
    return false;
}

}  // namespace

std::byte* generic_address(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access,
                           Strength strength) {
    const std::uint64_t shared = shared_window_base(x);
    if (address - shared < x.launch->shared_window_bytes)
        return shared_address(x, address - shared, size, lane, access, strength);
    const std::uint64_t local = local_window_base(x, lane);
    if (address - local < x.warp->local_stride) return local_address(x, address - local, size, lane, access);
    std::uint64_t offset = 0;
    if (cluster_window_offset(x, address, offset)) return shared_address(x, offset, size, lane, access, strength);
    return global_address(x, address, size, lane, access, MemorySpace::generic);
}

bool generic_store(Exec& x, std::uint64_t address, unsigned size, unsigned lane, const std::byte* value,
                   Strength strength) {
    const std::uint64_t shared = shared_window_base(x);
    if (address - shared < x.launch->shared_window_bytes)
        return shared_store(x, address - shared, size, lane, value, strength);
    std::uint64_t offset = 0;
    if (cluster_window_offset(x, address, offset)) return shared_store(x, offset, size, lane, value, strength);
    const std::uint64_t local = local_window_base(x, lane);
    std::byte* p = address - local < x.warp->local_stride
                       ? local_address(x, address - local, size, lane, Access::write)
                       : global_address(x, address, size, lane, Access::write, MemorySpace::generic);
    if (p == nullptr) return false;
    std::memcpy(p, value, size);
    return true;
}

std::byte* kernel_param_address(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, Access access) {
    const std::size_t bytes = x.launch->kernel->param_bytes;
    if (offset + size > bytes || offset + size < offset || access != Access::read) {
        Finding f = memory_finding(FindingKind::out_of_bounds, access, MemorySpace::param, size, offset);
        f.detail = access != Access::read ? "kernel parameters are read-only"
                                          : "the kernel's parameters take " + std::to_string(bytes) + " bytes";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return nullptr;
    }
    return reinterpret_cast<std::byte*>(x.launch->params_address + offset);
}

}  // namespace xcuda::cpu
