// run_launch: one kernel launch, from its parameters to its last block, device printf and the
// line profile.
#include "exec/run/access_trace.hpp"
#include "exec/run/debug_session.hpp"
#include "exec/run/device_heap.hpp"
#include "exec/run/device_runtime.hpp"
#include "check/argument_extents.hpp"
#include "exec/global_race_notes.hpp"
#include "exec/run/cta_scheduler.hpp"
#include "exec/run/worker_pool.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace xcuda::cpu {
namespace {

std::uint32_t align16(std::uint64_t v) { return static_cast<std::uint32_t>((v + 15u) & ~std::uint64_t{15u}); }

// The global race check's accesses per launch, shared out among its workers: 320 MiB of log at most
// (a 512x512 SGEMM makes about a million; a 2048x2048 one sixty times as many).
constexpr std::size_t race_log_accesses = std::size_t{1} << 23;

// Local memory per thread: the kernel's own, plus room for every other function's once (a call
// chain without recursion), plus headroom for recursion; a call beyond it is a stack overflow.
std::uint32_t local_stride(const Program& p, const KernelInfo& k) {
    std::uint64_t bytes = align16(p.functions[static_cast<std::size_t>(k.entry_index)].local_bytes);
    bool calls = false;
    for (std::size_t i = 0; i < p.functions.size(); ++i) {
        if (static_cast<int>(i) == k.entry_index || p.functions[i].is_entry || p.functions[i].is_extern) continue;
        bytes += align16(p.functions[i].local_bytes);
        calls = true;
    }
    if (calls) bytes += 8192;
    return std::max<std::uint32_t>(16, align16(bytes));
}

void write_all(int fd, const std::string& text) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n <= 0) return;  // nowhere to report a failing stdout to
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

// The CTAs of unit `u`, by linear block index: one CTA; the CTAs of one cluster in rank order; or
// (cooperative) the whole grid.
std::vector<std::uint64_t> unit_blocks(const LaunchSpec& s, std::uint64_t u) {
    const std::uint64_t per_cluster = s.cluster.count();
    if (s.cooperative) {
        std::vector<std::uint64_t> all(s.grid.count());
        for (std::uint64_t i = 0; i < all.size(); ++i) all[i] = i;
        return all;
    }
    if (per_cluster <= 1) return {u};
    const Dim3 clusters{s.grid.x / s.cluster.x, s.grid.y / s.cluster.y, s.grid.z / s.cluster.z};
    const std::uint64_t cx = u % clusters.x, cy = (u / clusters.x) % clusters.y,
                        cz = u / (std::uint64_t{clusters.x} * clusters.y);
    std::vector<std::uint64_t> blocks;
    for (std::uint64_t r = 0; r < per_cluster; ++r) {
        const std::uint64_t rx = r % s.cluster.x, ry = (r / s.cluster.x) % s.cluster.y,
                            rz = r / (std::uint64_t{s.cluster.x} * s.cluster.y);
        const std::uint64_t x = cx * s.cluster.x + rx, y = cy * s.cluster.y + ry, z = cz * s.cluster.z + rz;
        blocks.push_back(x + s.grid.x * (y + std::uint64_t{s.grid.y} * z));
    }
    return blocks;
}

std::shared_ptr<LineProfile> build_profile(const LaunchState& L) {
    auto profile = std::make_shared<LineProfile>();
    profile->kernel = L.kernel->name;
    const Program& p = *L.program;
    Exec x;
    x.program = &p;
    x.code = p.code.data();
    for (std::size_t pc = 0; pc < L.counts.size(); ++pc) {
        const InstructionCounts& c = L.counts[pc];
        if (c.executed == 0) continue;
        const Site& site = p.sites[p.code[pc].site];
        LineProfile::Row row;
        row.function = p.functions[site.function].name;
        row.where = x.location_of(site.loc);
        row.instruction = site.opcode;
        row.counts = c;
        profile->rows.push_back(std::move(row));
    }
    return profile;
}

}  // namespace

LaunchOutcome run_launch(const LaunchSpec& spec, const RunOptions& options, const std::atomic<bool>& cancel) {
    LaunchState L;
    L.program = &spec.module->program();
    L.kernel = spec.kernel;
    L.spec = &spec;
    L.options = options;
    L.cancel = &cancel;
    const Program& p = *L.program;

    // The parameter buffer: host memory aligned as a GPU's constant bank would be.
    std::vector<std::byte> params(std::max<std::size_t>(spec.kernel->param_bytes, 1) + 16);
    std::byte* params_base = params.data() + ((16 - reinterpret_cast<std::uintptr_t>(params.data()) % 16) % 16);
    std::memcpy(params_base, spec.params.data(), std::min(spec.params.size(), spec.kernel->param_bytes));
    L.params_address = reinterpret_cast<std::uint64_t>(params_base);

    if (spec.cooperative) {  // cooperative_groups' grid barrier: { unsigned size; unsigned barrier; }
        L.grid_workspace = spec.memory->allocate(16, Allocation::Kind::workspace, "cooperative grid workspace");
        if (L.grid_workspace == 0) {
            LaunchOutcome out;
            out.status = CUDA_ERROR_OUT_OF_MEMORY;
            return out;
        }
        const std::uint32_t size = 8;
        std::memcpy(reinterpret_cast<void*>(L.grid_workspace), &size, 4);
    }
    if (p.uses_device_heap && !DeviceHeap::instance().ensure(*spec.memory)) {
        LaunchOutcome out;
        out.status = CUDA_ERROR_OUT_OF_MEMORY;
        return out;
    }
    std::unique_ptr<DeviceRuntime> runtime;
    if (p.uses_device_runtime) {
        runtime = std::make_unique<DeviceRuntime>(p, *spec.module, *spec.memory);
        if (!runtime->ready()) {
            if (L.grid_workspace != 0) spec.memory->free(L.grid_workspace);
            LaunchOutcome out;
            out.status = CUDA_ERROR_OUT_OF_MEMORY;
            return out;
        }
        L.device_runtime = runtime.get();
    }
    L.table = spec.memory->table();
    if (options.checks && !spec.argument_extents.empty()) {
        if (auto narrowed = narrowed_to_arguments(*L.table, spec.argument_extents)) L.table = std::move(narrowed);
    }
    L.threads_per_cta = static_cast<std::uint32_t>(spec.block.count());
    L.warps_per_cta = (L.threads_per_cta + 31) / 32;
    L.shared_layout = &p.shared_layouts[static_cast<std::size_t>(spec.kernel->entry_index)];
    L.dynamic_shared_offset = L.shared_layout->dynamic_offset;
    L.shared_window_bytes = L.dynamic_shared_offset + spec.dynamic_shared_bytes;
    L.local_stride = local_stride(p, *spec.kernel);
    // Tracing counts too: its steps are recorded where the counts are made.
    const bool profile = options.profile || options.trace;
    if (profile) L.counts.assign(p.code.size(), InstructionCounts{});
    std::unique_ptr<AccessRecorder> recorder;
    if (options.trace) recorder = std::make_unique<AccessRecorder>();

    // A debugger's launch runs its copy of the code on one worker: a stopped thread holds the rest.
    const std::shared_ptr<DebugSession> debug = take_debug_session(spec);
    const Inst* const code = debug ? debug_launch_begin(*debug, L) : p.code.data();
    L.debug = debug.get();
    struct DebugLaunchEnd {  // the controller waits for the end, however the launch ends
        DebugSession* session;
        bool aborted = false;
        void finish() {
            if (session != nullptr) aborted = debug_launch_end(*session);
            session = nullptr;
        }
        ~DebugLaunchEnd() { finish(); }
    } debug_end{debug.get()};

    const std::uint64_t units =
        spec.cooperative ? 1 : spec.grid.count() / std::max<std::uint64_t>(1, spec.cluster.count());
    const unsigned wanted = options.deterministic || options.trace || debug
                                ? 1
                                : (options.workers != 0 ? options.workers : WorkerPool::cores());
    const auto workers = static_cast<unsigned>(std::min<std::uint64_t>(wanted, std::max<std::uint64_t>(units, 1)));
    std::atomic<std::uint64_t> next{0};
    // The global-memory race check: the workers' logs, compared by the last worker to finish.
    // Kept per calling thread (each stream's), so a launch allocates nothing for it; the workers
    // reach it through this reference (a thread_local named in the job would be theirs).
    thread_local GlobalRaces races_of_this_thread;
    GlobalRaces& races = races_of_this_thread;
    races.table.clear();
    races.logs.clear();
    races.unresolved.clear();
    races.limited = races.overflowed = false;
    std::atomic<unsigned> finished{0};
    const std::function<void(unsigned)> job = [&](unsigned worker) {
        thread_local WorkerState ws;
        Exec x;
        x.launch = &L;
        x.program = &p;
        x.code = code;
        x.checks = options.checks;
        x.worker = worker;
        x.trace = recorder.get();
        if (x.checks) {
            ws.barrier_paths.clear();
            ws.race_log.begin_launch(races, race_log_accesses / workers);
            x.races = &ws.race_log;
            std::lock_guard<std::mutex> lock(races.mutex);
            races.logs.push_back(&ws.race_log);
        }
        std::vector<InstructionCounts> counts;
        if (profile) {
            counts.assign(p.code.size(), InstructionCounts{});
            x.counts = counts.data();
        }
        for (;;) {
            if (L.stop.load(std::memory_order_relaxed) || cancel.load(std::memory_order_relaxed)) break;
            const std::uint64_t u = next.fetch_add(1);
            if (u >= units) break;
            if (x.checks || x.trace != nullptr) {
                x.ok_begin = ~std::uint64_t{0};  // nothing known to be live yet (tracing: never)
                x.ok_end = 0;
                x.unchecked_begin = 0;
                x.unchecked_end = 0;
            } else {
                x.ok_begin = spec.memory->arena_begin();
                x.ok_end = spec.memory->arena_end();
            }
            run_unit(x, ws, unit_blocks(spec, u));
            if (x.faulted) break;
        }
        if (x.checks && finished.fetch_add(1, std::memory_order_acq_rel) + 1 == workers &&
            !L.stop.load(std::memory_order_relaxed) && !cancel.load(std::memory_order_relaxed)) {
            check_global_races(x, races);
        }
        if (profile) {
            std::lock_guard<std::mutex> lock(L.profile_mutex);
            for (std::size_t i = 0; i < counts.size(); ++i) L.counts[i] += counts[i];
        }
    };
    WorkerPool::instance().run(workers, job);
    debug_end.finish();

    if (L.grid_workspace != 0) spec.memory->free(L.grid_workspace);
    // What the kernel wrote: with checks on its stores were marked; with checks off nobody knows,
    // so no byte counts as unwritten any more (a later checked read is no false alarm).
    if (options.checks) {
        spec.memory->settle_written();
    } else {
        spec.memory->forget_unwritten();
    }
    if (!L.printf_output.empty()) write_all(1, L.printf_output);
    if (races.overflowed) {
        write_all(2,
                  "xcuda CPU device: this launch synchronised through memory more than the global-memory race check "
                  "can follow; it was not checked for races on global memory\n");
    } else if (races.limited) {
        write_all(2, "xcuda CPU device: this launch made more global memory accesses than the race check keeps (" +
                         std::to_string(race_log_accesses) +
                         "); past them, reads of arrays a block did not write were not compared, and races through "
                         "them may have gone unseen\n");
    }
    if (L.printf_dropped > 0) {
        write_all(2, "xcuda CPU device: " + std::to_string(L.printf_dropped) +
                         " bytes of device printf output were dropped: the printf buffer (CU_LIMIT_PRINTF_FIFO_SIZE, " +
                         std::to_string(options.printf_fifo_bytes) + " bytes) was full\n");
    }
    LaunchOutcome out;
    out.status = L.status;
    out.failure = L.failure;
    out.cancelled = L.status == CUDA_SUCCESS && (cancel.load() || debug_end.aborted);
    if (options.profile) out.profile = build_profile(L);
    if (recorder) out.trace = recorder->build(L);
    if (runtime && out.status == CUDA_SUCCESS && !out.cancelled) {
        // The grid is complete only once the grids it launched are (device_runtime.hpp).
        LaunchOutcome children = runtime->run_children(spec, options, cancel);
        out.status = children.status;
        out.failure = std::move(children.failure);
        out.cancelled = children.cancelled;
        out.child_profiles = std::move(children.child_profiles);
    }
    return out;
}

}  // namespace xcuda::cpu
