// A launch: its units of work (a CTA, a cluster, or a cooperative grid) shared out to the worker
// threads; each unit's warps interleaved on its worker, barriers completed, and the waits that
// can never complete reported.
#include "exec/memory_checks.hpp"
#include "exec/run/cta_scheduler.hpp"
#include "exec/run/worker_pool.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

namespace xcuda::cpu {

// --- FramePool ------------------------------------------------------------------------------

std::byte* FramePool::take(std::uint32_t bytes) {
    for (Free& f : free_) {
        if (f.bytes == bytes && !f.frames.empty()) {
            std::byte* p = f.frames.back();
            f.frames.pop_back();
            return p;
        }
    }
    // 64-byte aligned: lane arrays are read with vector instructions.
    owned_.push_back(aligned_bytes(bytes));
    return owned_.back().get();
}

void FramePool::give(std::byte* frame, std::uint32_t bytes) {
    for (Free& f : free_) {
        if (f.bytes == bytes) {
            f.frames.push_back(frame);
            return;
        }
    }
    free_.push_back({bytes, {frame}});
}

namespace {

using U32 = std::uint32_t;

// A warp's instructions before it must let the other warps of its unit run: long enough that
// a warp usually runs from barrier to barrier in one go, short enough that spinning warps share.
constexpr std::uint64_t quantum = 1u << 16;

Dim3 block_index(const Dim3& grid, std::uint64_t linear) {
    return {static_cast<unsigned>(linear % grid.x), static_cast<unsigned>((linear / grid.x) % grid.y),
            static_cast<unsigned>(linear / (std::uint64_t{grid.x} * grid.y))};
}

bool has_ready_group(const Warp& w) {
    for (const Group& g : w.groups) {
        if (g.state == GroupState::ready) return true;
    }
    return false;
}

SourceLocation location_of_pc(const Exec& x, std::uint32_t pc) {
    return x.location_of(x.program->sites[x.code[pc].site].loc);
}

U32 barrier_value(const Exec& x, const Warp& w, const Group& g, std::uint32_t reg, U32 fixed) {
    if (reg == no_guard) return fixed;
    U32 v;
    std::memcpy(&v, w.frames[g.frame].regs + reg + 4 * first_lane(g.mask), 4);
    (void)x;
    return v;
}

// Every warp of the unit waits. Completes the CTA barriers that every expected thread reached;
// false when none can complete (then a finding says why).
bool complete_barriers(Exec& x, WorkerState& ws, std::vector<Cta>& ctas) {
    bool progress = false;
    for (Cta& cta : ctas) {
        x.cta = &cta;
        // Per barrier id: the threads waiting and where.
        struct Waiting {
            U32 threads = 0;
            std::uint32_t expected = 0;
            std::vector<std::pair<Warp*, std::size_t>> groups;  // warp, group index
        };
        std::map<U32, Waiting> waiting;
        for (std::uint32_t wi : cta.warps) {
            Warp& w = ws.warps[wi];
            if (w.done()) continue;
            for (std::size_t gi = 0; gi < w.groups.size(); ++gi) {
                const Group& g = w.groups[gi];
                if (g.state != GroupState::at_barrier) continue;
                const BarrierSite& b = x.program->barriers[static_cast<std::size_t>(x.code[g.pc].imm)];
                const U32 id = barrier_value(x, w, g, b.id_reg, b.id) & 15u;
                const U32 count = barrier_value(x, w, g, b.count_reg, b.count);
                Waiting& wt = waiting[id];
                wt.threads += static_cast<U32>(__builtin_popcount(g.mask));
                wt.expected = count != 0 ? count : cta.live_threads;
                wt.groups.push_back({&w, gi});
            }
        }
        for (auto& [id, wt] : waiting) {
            BarrierState& state = cta.barriers[id];
            if (wt.threads + state.arrived < wt.expected) continue;
            // Every thread expected is here. Diverged, as synccheck judges it (with the checks on;
            // a GPU runs on)?
            const std::uint32_t pc0 = wt.groups.front().first->groups[wt.groups.front().second].pc;
            const BarrierSite& b = x.program->barriers[static_cast<std::size_t>(x.code[pc0].imm)];
            const bool whole_block = b.count_reg == no_guard && b.count == 0;
            if (x.checks && divergent_at_barrier(x, cta, wt.groups, whole_block)) return false;
            if (b.kind != BarrierSite::Kind::sync) {  // bar.red: the reduction over every waiting thread
                U32 popc = 0;
                bool all = true, any = false;
                for (const auto& [w, gi] : wt.groups) {
                    const Group& g = w->groups[gi];
                    U32 p;
                    std::memcpy(&p, w->frames[g.frame].regs + b.predicate, 4);
                    if (b.predicate_negated) p = ~p;
                    p &= g.mask;
                    popc += static_cast<U32>(__builtin_popcount(p));
                    all = all && p == g.mask;
                    any = any || p != 0;
                }
                for (const auto& [w, gi] : wt.groups) {
                    const Group& g = w->groups[gi];
                    std::byte* regs = w->frames[g.frame].regs;
                    if (b.kind == BarrierSite::Kind::red_popc) {
                        for_lanes(g.mask, [&](unsigned l) { std::memcpy(regs + b.result + 4 * l, &popc, 4); });
                    } else {
                        const bool v = b.kind == BarrierSite::Kind::red_and ? all : any;
                        U32 m;
                        std::memcpy(&m, regs + b.result, 4);
                        m = (m & ~g.mask) | (v ? g.mask : 0u);
                        std::memcpy(regs + b.result, &m, 4);
                    }
                }
            }
            for (const auto& [w, gi] : wt.groups) {
                Group& g = w->groups[gi];
                g.state = GroupState::ready;
                g.pc += 1;
            }
            state.arrived = 0;
            cta.barrier_epoch = ++ws.epochs;  // accesses on either side are ordered
            // Deferred reads are dropped only where no other CTA can reach this window: a cluster's
            // CTAs (distributed shared memory) do not wait at this barrier.
            if (cta.shadow != nullptr && x.launch->spec->cluster.count() == 1) cta.shadow->barrier_completed();
            if (x.races != nullptr) x.races->barrier_completed(static_cast<std::uint32_t>(&cta - ctas.data()));
            if (cta.shared_state != nullptr) {
                report_held_read(x, cta);
                if (x.faulted) return false;
            }
            progress = true;
        }
    }
    return progress;
}

// Cluster barriers (barrier.cluster.arrive/wait): a wait completes when every thread of every CTA
// of the cluster has arrived. Arrive and wait are one step here: a thread arrives when it waits.
bool complete_cluster_barriers(Exec& x, WorkerState& ws, std::vector<Cta>& ctas) {
    const std::uint64_t per_cluster = x.launch->spec->cluster.count();
    bool progress = false;
    for (std::size_t first = 0; first < ctas.size(); first += per_cluster) {
        U32 waiting = 0, live = 0;
        bool any = false;
        for (std::size_t c = first; c < first + per_cluster && c < ctas.size(); ++c) {
            live += ctas[c].live_threads;
            for (std::uint32_t wi : ctas[c].warps) {
                for (const Group& g : ws.warps[wi].groups) {
                    if (g.state == GroupState::at_cluster_barrier) {
                        waiting += static_cast<U32>(__builtin_popcount(g.mask));
                        any = true;
                    }
                }
            }
        }
        if (!any || waiting < live) continue;
        for (std::size_t c = first; c < first + per_cluster && c < ctas.size(); ++c) {
            for (std::uint32_t wi : ctas[c].warps) {
                for (Group& g : ws.warps[wi].groups) {
                    if (g.state == GroupState::at_cluster_barrier) {
                        g.state = GroupState::ready;
                        g.pc += 1;
                    }
                }
            }
            ctas[c].barrier_epoch = ++ws.epochs;
            if (ctas[c].shadow != nullptr) ctas[c].shadow->barrier_completed();
        }
        if (x.races != nullptr) x.races->cluster_barrier_completed();
        progress = true;
    }
    return progress;
}

// Nothing can run and no barrier can complete: say what each waiting warp waits for.
void report_stuck(Exec& x, WorkerState& ws, std::vector<Cta>& ctas) {
    for (Cta& cta : ctas) {
        x.cta = &cta;
        for (std::uint32_t wi : cta.warps) {
            Warp& w = ws.warps[wi];
            if (w.done()) continue;
            x.warp = &w;
            for (const Group& g : w.groups) {
                Finding f;
                x.pc = g.pc;
                switch (g.state) {
                    case GroupState::at_collective:
                    case GroupState::at_warp_sync: {
                        const U32 missing = g.wait_mask & ~g.mask;
                        for (const Group& o : w.groups) {  // where the first of them are
                            if (&o == &g || (o.mask & missing) == 0) continue;
                            f.absent = lanes_text(w, o.mask & missing);
                            f.other_where = location_of_pc(x, o.pc);
                            break;
                        }
                        char mask[16];
                        std::snprintf(mask, sizeof mask, "%08x", g.wait_mask);
                        f.kind = FindingKind::collective_absent_lanes;
                        f.detail =
                            std::string(g.state == GroupState::at_warp_sync ? "__syncwarp" : "a warp collective") +
                            " with mask 0x" + mask + " waits for " + lanes_text(w, missing) + " of block " +
                            cta.ctaid.str() + ", which never arrive";
                        x.fail(std::move(f), first_lane(g.mask), 1, CUDA_ERROR_LAUNCH_FAILED);
                        return;
                    }
                    case GroupState::at_barrier: {
                        // A barrier that can never complete: some threads wait at it that the
                        // others will never reach.
                        const U32 elsewhere = w.live & ~g.mask;
                        f.kind = FindingKind::divergent_barrier;
                        f.waiting = lanes_text(w, g.mask);
                        if (elsewhere != 0) {
                            f.divergence = Divergence::warp;
                            for (const Group& o : w.groups) {
                                if (&o == &g) continue;
                                f.absent = lanes_text(w, o.mask);
                                f.absent_at_barrier = o.state == GroupState::at_barrier;
                                f.other_where = location_of_pc(x, o.pc);
                                break;
                            }
                        } else {
                            f.divergence = Divergence::block;
                            const U32 others = cta.live_threads - static_cast<U32>(__builtin_popcount(g.mask));
                            f.absent = "the block's other " + std::to_string(others) + " running thread" +
                                       (others == 1 ? "" : "s");
                        }
                        x.fail(std::move(f), first_lane(g.mask), static_cast<U32>(__builtin_popcount(g.mask)),
                               CUDA_ERROR_LAUNCH_FAILED);
                        return;
                    }
                    case GroupState::at_cluster_barrier:
                        f.kind = FindingKind::divergent_barrier;
                        f.detail =
                            "threads wait at this cluster barrier, which other threads of the cluster never reach";
                        x.fail(std::move(f), first_lane(g.mask), 1, CUDA_ERROR_LAUNCH_FAILED);
                        return;
                    case GroupState::ready: break;
                }
            }
        }
    }
}

void give_back_frames(const Exec& x, WorkerState& ws, Warp& w) {
    for (Frame& f : w.frames) {
        if (f.regs != nullptr) ws.frames.give(f.regs, x.program->functions[f.function].frame_bytes);
        f.regs = nullptr;
        f.in_use = false;
    }
    w.frames.clear();
    w.groups.clear();
}

}  // namespace

void run_unit(Exec& x, WorkerState& ws, const std::vector<std::uint64_t>& blocks) {
    LaunchState& L = *x.launch;
    const Program& p = *x.program;
    const FunctionInfo& kernel = p.functions[static_cast<std::size_t>(L.kernel->entry_index)];
    const std::size_t n = blocks.size();
    const std::uint32_t wpc = L.warps_per_cta;

    // Buffers for n CTAs, kept from unit to unit.
    if (ws.shared_bytes < L.shared_window_bytes || ws.shared.size() < n) {
        const std::size_t bytes = std::max<std::size_t>(L.shared_window_bytes, ws.shared_bytes);
        ws.shared.clear();
        for (std::size_t i = 0; i < n; ++i) ws.shared.push_back(aligned_bytes(bytes));
        ws.shared_bytes = bytes;
    }
    while (ws.shadows.size() < n) ws.shadows.push_back(std::make_unique<SharedShadow>());
    while (ws.shared_states.size() < n) ws.shared_states.push_back(std::make_unique<SharedState>());
    const std::size_t local_needed = n * wpc * 32 * std::size_t{L.local_stride};
    if (ws.local_bytes < local_needed) {
        ws.local = aligned_bytes(local_needed);
        ws.local_bytes = local_needed;
    }
    ws.ctas.assign(n, Cta{});
    ws.warps.resize(n * wpc);
    const std::uint64_t cluster = L.spec->cluster.count();
    for (std::size_t c = 0; c < n; ++c) {
        Cta& cta = ws.ctas[c];
        cta.ctaid = block_index(L.spec->grid, blocks[c]);
        cta.cluster_rank = static_cast<std::uint32_t>(c % cluster);
        cta.shared = ws.shared[c].get();
        cta.live_threads = L.threads_per_cta;
        cta.barrier_epoch = ++ws.epochs;
        if (x.checks) {
            ws.shadows[c]->barrier_completed();  // the CTA's start: the last one's reads are ordered before it
            ws.shadows[c]->resize(L.shared_window_bytes);
            cta.shadow = ws.shadows[c].get();
            // A kernel without shared variables has a window of the reserved part alone: nothing to check.
            if (L.shared_window_bytes > L.shared_layout->check_state.size() || !L.shared_layout->variables.empty()) {
                ws.shared_states[c]->start(L.shared_layout->check_state, L.shared_window_bytes);
                cta.shared_state = ws.shared_states[c].get();
            }
        }
        for (std::uint32_t wi = 0; wi < wpc; ++wi) {
            const std::size_t index = c * wpc + wi;
            Warp& w = ws.warps[index];
            w.index = wi;
            w.cta = static_cast<std::uint32_t>(c);
            w.first_thread = wi * 32;
            const std::uint32_t lanes = std::min<std::uint32_t>(32, L.threads_per_cta - wi * 32);
            w.exists = lanes == 32 ? 0xFFFFFFFFu : ((1u << lanes) - 1);
            w.live = w.exists;
            w.warp_syncs = 0;
            w.polled = false;
            w.local_stride = L.local_stride;
            w.local = ws.local.get() + index * 32 * std::size_t{L.local_stride};
            w.frames.clear();
            w.frames.emplace_back();
            Frame& f = w.frames[0];
            f.function = static_cast<std::uint32_t>(L.kernel->entry_index);
            f.regs = ws.frames.take(kernel.frame_bytes);
            std::memcpy(f.regs, kernel.frame_image.data(), kernel.frame_bytes);
            f.local_base = 0;
            f.caller = -1;
            f.lanes = lanes;
            f.in_use = true;
            w.groups.assign(1, Group{kernel.entry_pc, w.exists, 0, GroupState::ready, 0});
            cta.warps.push_back(static_cast<std::uint32_t>(index));
        }
    }
    x.ctas = &ws.ctas;
    x.epochs = &ws.epochs;
    if (x.races != nullptr) {
        x.races->begin_unit(blocks.front(), n, wpc);  // a unit's first block names it
        for (const Cta& cta : ws.ctas) x.races->add_cta(cta.ctaid);
    }

    for (;;) {
        bool ran = false, all_done = true;
        for (Warp& w : ws.warps) {
            if (w.done()) continue;
            all_done = false;
            if (!has_ready_group(w)) continue;
            x.cta = &ws.ctas[w.cta];
            const WarpStop stop = run_warp(x, ws, w, quantum);
            ran = true;
            if (stop == WarpStop::failed) break;
            if (L.stop.load(std::memory_order_relaxed) || L.cancel->load(std::memory_order_relaxed)) break;
        }
        if (all_done || x.faulted || L.stop.load(std::memory_order_relaxed) ||
            L.cancel->load(std::memory_order_relaxed)) {
            break;
        }
        if (!ran && !complete_barriers(x, ws, ws.ctas) && !x.faulted && !complete_cluster_barriers(x, ws, ws.ctas)) {
            report_stuck(x, ws, ws.ctas);
            break;
        }
        if (x.faulted) break;
    }
    if (!x.faulted && !L.stop.load(std::memory_order_relaxed)) {
        for (Cta& cta : ws.ctas) {
            if (cta.shared_state != nullptr) report_held_read(x, cta);
        }
    }
    for (Warp& w : ws.warps) give_back_frames(x, ws, w);
    if (x.races != nullptr && !x.faulted && !L.stop.load(std::memory_order_relaxed)) x.races->end_unit();
}

}  // namespace xcuda::cpu
