// The global-memory race check's finding: the two accesses in the launch's terms (their lines,
// threads, blocks, the allocation and the kernel parameter that points into it).
#include "exec/global_race_notes.hpp"
#include "exec/memory_access.hpp"

namespace xcuda::cpu {
namespace {

Access access_of(GlobalAccessKind k) {
    switch (k) {
        case GlobalAccessKind::read: return Access::read;
        case GlobalAccessKind::write: return Access::write;
        case GlobalAccessKind::atomic: return Access::atomic;
    }
    return Access::none;
}

Dim3 thread_in_block(const Dim3& block, std::uint32_t linear) {
    return {linear % block.x, (linear / block.x) % block.y, linear / (block.x * block.y)};
}

// The first byte of the element of `a` that holds `address`.
std::uint64_t element_start(const GlobalAccess& a, std::uint64_t address) {
    return a.elem == 0 ? a.lo : a.lo + (address - a.lo) / a.elem * a.elem;
}

}  // namespace

void check_global_races(Exec& x, GlobalRaces& races) {
    const GlobalRaceFound race = find_global_race(races);
    if (!race.found) return;
    const Dim3& block = x.launch->spec->block;
    Finding f;
    f.kind = FindingKind::global_race;
    f.space = MemorySpace::global;
    f.access = access_of(race.second.kind);
    f.other_access = access_of(race.first.kind);
    f.size = race.second.elem != 0 ? race.second.elem : race.second.bytes;
    f.address = element_start(race.second, race.address);
    f.region = global_region(x, f.address);
    f.thread = thread_in_block(block, race.second.warp * 32u + race.second_lane);
    f.block = race.second_block;
    f.other_thread = thread_in_block(block, race.first.warp * 32u + race.first_lane);
    f.other_block = race.first_block;
    x.pc = race.second.pc;
    x.locate(f);
    f.other_where = x.location_of(x.program->sites[x.code[race.first.pc].site].loc);
    f.lanes = 1;
    std::lock_guard<std::mutex> lock(x.launch->failure_mutex);
    if (!x.launch->failure) {
        auto failure = std::make_shared<Failure>();
        failure->code = CUDA_ERROR_LAUNCH_FAILED;
        failure->kernel = x.launch->kernel->name;
        failure->grid = x.launch->spec->grid;
        failure->block = block;
        failure->finding = std::move(f);
        x.launch->failure = std::move(failure);
        x.launch->status = CUDA_ERROR_LAUNCH_FAILED;
    }
    x.launch->stop.store(true, std::memory_order_relaxed);
}

}  // namespace xcuda::cpu
