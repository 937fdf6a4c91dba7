#include "exec/memory_checks.hpp"

#include "check/init_shadow.hpp"
#include "check/shared_state.hpp"
#include "exec/run/device_heap.hpp"
#include "exec/memory_access.hpp"
#include "exec/pointer_source.hpp"

#include <utility>

namespace xcuda::cpu {
namespace {

Region heap_region(const HeapBlock& b, std::uint64_t address) {
    Region r;
    r.kind = Region::Kind::heap_block;
    r.base = b.base;
    r.size = b.size;
    r.offset = static_cast<std::int64_t>(address - b.base);
    r.allocated_at = b.allocated_at;
    r.freed_at = b.freed_at;
    return r;
}

}  // namespace

bool shared_state_checks(Exec& x, Cta& cta, std::uint64_t offset, std::uint64_t within, unsigned size, unsigned lane,
                         Access access) {
    SharedState& state = *cta.shared_state;
    const auto at = static_cast<std::uint32_t>(within);
    const std::uint8_t found = state.of(at, size);
    if (found & shared_red_zone) {
        Finding f = memory_finding(FindingKind::out_of_bounds, access, MemorySpace::shared, size, offset);
        // The variable beside the red zone; the offset is the access's (ta[32] for an overrun of ta).
        f.region = shared_region(x, state.first(at, size, shared_red_zone));
        f.region.offset = static_cast<std::int64_t>(at) - static_cast<std::int64_t>(f.region.base);
        x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
        return false;
    }
    if (access != Access::read) {
        state.mark_written(at, size);
    } else if (found & shared_unwritten) {
        // Held until the block's next barrier: a write by another thread before it is a race.
        const std::uint32_t first = state.first(at, size, shared_unwritten);
        Finding f = memory_finding(FindingKind::uninitialised_read, access, MemorySpace::shared, size, offset);
        f.region = shared_region(x, first);
        f.detail = "no thread of the block wrote it before this read, nor before the block's next barrier";
        state.hold(x.prepare(std::move(f), lane));
    }
    return true;
}

std::byte* heap_access(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access, MemorySpace space) {
    HeapBlock block;
    bool has_block = false;
    const HeapBlocks::Access result = DeviceHeap::instance().blocks().check(address, size, block, has_block);
    if (result == HeapBlocks::Access::ok) return reinterpret_cast<std::byte*>(address);
    Finding f =
        memory_finding(result == HeapBlocks::Access::freed ? FindingKind::use_after_free : FindingKind::out_of_bounds,
                       access, space, size, address);
    if (has_block) f.region = heap_region(block, address);
    f.detail = "in the device heap (memory device malloc returns)";
    x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
    return nullptr;
}

std::byte* unwritten_access(Exec& x, const Allocation& a, std::uint64_t address, unsigned size, unsigned lane,
                            Access access, MemorySpace space) {
    InitShadow& shadow = *a.unwritten;
    if (access != Access::read) {
        shadow.mark(address, size);
    } else if (!shadow.written(address, size)) {
        Finding f = memory_finding(FindingKind::uninitialised_read, access, space, size, address);
        f.region = region_of(x, a, shadow.first_unwritten(address, size));
        f.detail = "nothing wrote it since it was allocated (no copy, memset or kernel)";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_LAUNCH_FAILED);
        return nullptr;
    }
    return reinterpret_cast<std::byte*>(address);
}

// Where the code shows which pointer the address came from, the report is about that pointer:
// null, pointing nowhere, or the array it points into (an index far past its end). Otherwise it is
// about the nearest allocation, when the address is in device memory.
void outside_every_allocation(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access,
                              MemorySpace space) {
    const AllocationTable& table = *x.launch->table;
    Finding f = memory_finding(FindingKind::out_of_bounds, access, space, size, address);
    f.pointer = pointer_source(x, address);
    if (f.pointer.kind != PointerSource::Kind::unknown) {
        const Allocation* home = table.containing(f.pointer.value);
        const Allocation* freed = table.freed_containing(f.pointer.value);
        f.pointer.allocated =
            home != nullptr || freed != nullptr || DeviceHeap::instance().blocks().contains(f.pointer.value);
        if (home != nullptr && home->kind != Allocation::Kind::device_heap) {
            f.region = region_of(x, *home, address);
            if (f.pointer.kind == PointerSource::Kind::parameter && f.region.kind == Region::Kind::allocation)
                f.region.parameter = f.pointer.parameter;
        }
    } else if (x.launch->spec->memory->in_arena(address, 1)) {
        if (const Allocation* near = table.nearest(address)) f.region = region_of(x, *near, address);
    }
    if (f.region.kind == Region::Kind::none) {
        f.detail = address < 0x10000 ? "a null pointer" : "an address no allocation covers";
    }
    x.fail(std::move(f), lane, 1, CUDA_ERROR_ILLEGAL_ADDRESS);
}

void report_held_read(Exec& x, Cta& cta) {
    Finding read;
    if (cta.shared_state != nullptr && cta.shared_state->take_held(read))
        x.report(std::move(read), CUDA_ERROR_LAUNCH_FAILED);
}

bool atomic_operand_written(Exec& x, std::uint64_t address, unsigned size, unsigned lane, MemorySpace space) {
    if (space == MemorySpace::generic) {
        space = generic_space(x, address, lane);
        if (space == MemorySpace::shared) address -= shared_window_base(x);
    }
    if (space == MemorySpace::shared) {
        const std::uint64_t within = address & window_offset_mask;
        Cta* cta = cta_of_window(x, address);
        if (cta == nullptr || cta->shared_state == nullptr || within + size > x.launch->shared_window_bytes ||
            (within & (size - 1)) != 0) {
            return true;  // the access itself reports what is wrong
        }
        const auto at = static_cast<std::uint32_t>(within);
        if (cta->shared_state->of(at, size) != shared_unwritten) return true;
        Finding f = memory_finding(FindingKind::uninitialised_read, Access::atomic, MemorySpace::shared, size, address);
        f.region = shared_region(x, cta->shared_state->first(at, size, shared_unwritten));
        f.detail = "no thread of the block wrote it before this atomic read it";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_LAUNCH_FAILED);
        return false;
    }
    if (space != MemorySpace::global) return true;
    const Allocation* a = x.launch->table->find(address, size);
    if (a == nullptr || !a->unwritten || a->unwritten->written(address, size)) return true;
    Finding f = memory_finding(FindingKind::uninitialised_read, Access::atomic, space, size, address);
    f.region = region_of(x, *a, a->unwritten->first_unwritten(address, size));
    f.detail = "nothing wrote it since it was allocated (no copy, memset or kernel) before this atomic read it";
    x.fail(std::move(f), lane, 1, CUDA_ERROR_LAUNCH_FAILED);
    return false;
}

}  // namespace xcuda::cpu
