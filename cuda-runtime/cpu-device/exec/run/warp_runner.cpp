// Executing one warp: the interpreter loop over decoded instructions for the running group, and
// what each control instruction does to the warp's groups and frames.
#include "exec/run/access_trace.hpp"
#include "exec/run/debug_session.hpp"
#include "exec/run/cta_scheduler.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;

// Merges groups that are at the same place in the same frame and state, and puts the ready group
// with the lowest pc first ("lowest pc first" reconverges structured branches where they join).
void normalize(Warp& w) {
    auto& g = w.groups;
    g.erase(std::remove_if(g.begin(), g.end(), [](const Group& x) { return x.mask == 0; }), g.end());
    for (std::size_t i = 0; i < g.size(); ++i) {
        for (std::size_t j = i + 1; j < g.size();) {
            if (g[j].pc == g[i].pc && g[j].frame == g[i].frame && g[j].state == g[i].state) {
                g[i].mask |= g[j].mask;
                g[i].wait_mask |= g[j].wait_mask;
                g.erase(g.begin() + static_cast<std::ptrdiff_t>(j));
            } else {
                ++j;
            }
        }
    }
    if (g.size() > 1) {
        std::sort(g.begin(), g.end(), [](const Group& a, const Group& b) {
            const bool ra = a.state == GroupState::ready, rb = b.state == GroupState::ready;
            if (ra != rb) return ra;
            return a.pc < b.pc;
        });
    }
}

std::uint16_t new_frame(Exec& x, WorkerState& ws, Warp& w, std::uint32_t function, std::int32_t caller) {
    const FunctionInfo& f = x.program->functions[function];
    std::uint16_t index = 1;  // frame 0 is the kernel's
    while (index < w.frames.size() && w.frames[index].in_use) ++index;
    if (index == w.frames.size()) w.frames.emplace_back();
    Frame& fr = w.frames[index];
    if (fr.regs != nullptr) ws.frames.give(fr.regs, x.program->functions[fr.function].frame_bytes);
    fr.function = function;
    fr.regs = ws.frames.take(f.frame_bytes);
    std::memcpy(fr.regs, f.frame_image.data(), f.frame_bytes);
    fr.caller = caller;
    fr.in_use = true;
    return index;
}

void free_frame(WorkerState& ws, const Exec& x, Frame& f) {
    ws.frames.give(f.regs, x.program->functions[f.function].frame_bytes);
    f.regs = nullptr;
    f.in_use = false;
}

std::uint32_t align16(std::uint32_t v) { return (v + 15u) & ~15u; }

// A .param value's bytes for each lane of `lanes`, from one frame's slot to another's.
void copy_params(const std::byte* from_regs, const ParamSlot& from, std::byte* to_regs, const ParamSlot& to,
                 U32 lanes) {
    const std::uint32_t n = std::min(from.size, to.size);
    for_lanes(lanes, [&](unsigned l) {
        std::memcpy(to_regs + to.offset + std::size_t{l} * to.size,
                    from_regs + from.offset + std::size_t{l} * from.size, n);
    });
}

void fail_here(Exec& x, FindingKind kind, std::string detail, unsigned lane, CUresult code, U32 lanes = 1) {
    Finding f;
    f.kind = kind;
    f.detail = std::move(detail);
    x.fail(std::move(f), lane, lanes, code);
}

enum class After : std::uint8_t { next, yield, fail };

// call: a builtin runs in place; a function gets a new frame for the calling lanes.
After call(Exec& x, WorkerState& ws, Warp& w, const Inst& in, U32 m) {
    const CallSite& cs = x.program->calls[static_cast<std::size_t>(in.imm)];
    Group& g = w.groups[0];
    const std::uint32_t pc = g.pc;
    if (m == 0) {
        g.pc = pc + 1;
        return After::next;
    }
    if (cs.builtin != CallSite::Builtin::none) {
        run_builtin(x, cs, m);
        if (x.faulted) return After::fail;
        g.pc = pc + 1;
        return After::next;
    }
    // Which function each calling lane calls (one for a direct call).
    std::uint32_t callee[32];
    if (cs.indirect) {
        const auto* handles = x.reg<std::uint64_t>(in.op[0]);
        bool bad = false;
        unsigned bad_lane = 0;
        for_lanes(m, [&](unsigned l) {
            const std::uint64_t h = handles[l];
            const auto index = static_cast<std::uint32_t>(h & 0xFFFFFFFFu);
            if ((h & ~std::uint64_t{0xFFFFFFFFu}) != function_handle_tag || index >= x.program->functions.size() ||
                x.program->functions[index].is_extern) {
                if (!bad) bad_lane = l;
                bad = true;
            }
            callee[l] = index;
        });
        if (bad) {
            char value[32];
            std::snprintf(value, sizeof value, "0x%llx", static_cast<unsigned long long>(handles[bad_lane]));
            fail_here(x, FindingKind::invalid_operation,
                      std::string("an indirect call through ") + value + ", which is not a function of this module",
                      bad_lane, CUDA_ERROR_ILLEGAL_INSTRUCTION);
            return After::fail;
        }
    } else {
        for_lanes(m, [&](unsigned l) { callee[l] = cs.callee; });
    }
    const std::uint16_t caller = g.frame;
    const U32 others = g.mask & ~m;
    // One new frame per distinct callee.
    U32 left = m;
    std::vector<Group> added;
    while (left != 0) {
        const std::uint32_t fn = callee[first_lane(left)];
        U32 lanes = 0;
        for_lanes(left, [&](unsigned l) {
            if (callee[l] == fn) lanes |= 1u << l;
        });
        left &= ~lanes;
        const std::uint16_t fi = new_frame(x, ws, w, fn, caller);
        Frame& f = w.frames[fi];
        const Frame& c = w.frames[caller];
        const FunctionInfo& target = x.program->functions[fn];
        f.local_base = c.local_base + align16(x.program->functions[c.function].local_bytes);
        f.return_pc = pc + 1;
        f.call_site = static_cast<std::uint32_t>(in.imm);
        f.lanes = static_cast<std::uint32_t>(__builtin_popcount(lanes));
        if (f.local_base + target.local_bytes > w.local_stride) {
            const std::uint32_t needed = f.local_base + target.local_bytes;
            free_frame(ws, x, f);
            fail_here(x, FindingKind::out_of_bounds,
                      "stack overflow: calling " + target.name + " needs " + std::to_string(needed) +
                          " bytes of local memory per thread, more than the " + std::to_string(w.local_stride) +
                          " each thread has (deep or unbounded recursion?)",
                      first_lane(lanes), CUDA_ERROR_LAUNCH_FAILED);
            return After::fail;
        }
        const std::size_t n = std::min(cs.arguments.size(), target.params.size());
        for (std::size_t i = 0; i < n; ++i) copy_params(c.regs, cs.arguments[i], f.regs, target.params[i], lanes);
        added.push_back({target.entry_pc, lanes, fi, GroupState::ready, 0});
    }
    Group& again = w.groups[0];  // new_frame may not touch groups, but be safe about references
    if (others != 0) {
        again.pc = pc + 1;
        again.mask = others;
    } else {
        again.mask = 0;  // removed by normalize
    }
    for (const Group& a : added) w.groups.push_back(a);
    return After::next;
}

After ret(Exec& x, WorkerState& ws, Warp& w, U32 lanes) {
    Group& g = w.groups[0];
    Frame& f = w.frames[g.frame];
    if (f.caller < 0) {  // ret from the kernel: the lanes exit
        retire_lanes(x, w, g.frame, lanes);
        Group& again = w.groups[0];
        again.mask &= ~lanes;
        again.pc += 1;
        return After::next;
    }
    const CallSite& cs = x.program->calls[f.call_site];
    const FunctionInfo& fn = x.program->functions[f.function];
    Frame& caller = w.frames[static_cast<std::size_t>(f.caller)];
    const std::size_t n = std::min(cs.results.size(), fn.returns.size());
    for (std::size_t i = 0; i < n; ++i) copy_params(f.regs, fn.returns[i], caller.regs, cs.results[i], lanes);
    const Group back{f.return_pc, lanes, static_cast<std::uint16_t>(f.caller), GroupState::ready, 0};
    f.lanes -= static_cast<std::uint32_t>(__builtin_popcount(lanes));
    if (f.lanes == 0) free_frame(ws, x, f);
    const U32 others = g.mask & ~lanes;
    if (others != 0) {
        g.mask = others;
        g.pc += 1;
    } else {
        g.mask = 0;
    }
    w.groups.push_back(back);
    return After::next;
}

// __syncwarp: the group waits until every live lane of its mask has arrived at one (any one).
void warp_sync(Exec& x, Warp& w, const Inst& in, U32 m) {
    Group& g = w.groups[0];
    const U32 member = x.reg<U32>(in.op[0])[first_lane(m != 0 ? m : g.mask)];
    g.state = GroupState::at_warp_sync;
    g.wait_mask = member & w.live;
    // Lanes of the group the guard turned off go on past it.
    const U32 skip = g.mask & ~m;
    if (skip != 0) {
        g.mask = m;
        w.groups.push_back({g.pc + 1, skip, g.frame, GroupState::ready, 0});
    }
    U32 arrived = 0, needed = 0;
    for (const Group& o : w.groups) {
        if (o.state == GroupState::at_warp_sync) {
            arrived |= o.mask;
            needed |= o.wait_mask;
        }
    }
    if ((needed & ~arrived) == 0) {
        for (Group& o : w.groups) {
            if (o.state == GroupState::at_warp_sync) {
                o.state = GroupState::ready;
                o.pc += 1;
                o.wait_mask = 0;
            }
        }
        ++w.warp_syncs;
    }
}

// shfl/vote/match/redux .sync: runs once every live lane of the membermask (op[5]) is here.
After collective(Exec& x, Warp& w, const Inst& in, U32 m) {
    // Lanes of another group already waiting at this very instruction join first.
    Group& g = w.groups[0];
    for (Group& o : w.groups) {
        if (&o != &g && o.state == GroupState::at_collective && o.pc == g.pc && o.frame == g.frame) {
            g.mask |= o.mask;
            m |= o.mask & (in.guard == no_guard ? ~0u : (x.pred(in.guard) ^ in.guard_xor));
            o.mask = 0;
        }
    }
    if (m == 0) {
        g.pc += 1;
        return After::next;
    }
    const U32 member = x.reg<U32>(in.op[5])[first_lane(m)];
    const U32 needed = member & w.live;
    if ((needed & ~m) != 0) {
        g.state = GroupState::at_collective;
        g.wait_mask = needed;
        return After::next;
    }
    in.exec(x, in, m);
    if (x.faulted) return After::fail;
    g.state = GroupState::ready;
    g.wait_mask = 0;
    g.pc += 1;
    return After::next;
}

After branch_index(Exec& x, Warp& w, const Inst& in, U32 m) {
    Group& g = w.groups[0];
    const auto& table = x.program->branch_tables[static_cast<std::size_t>(in.imm)];
    const U32* index = x.reg<U32>(in.op[0]);
    const std::uint32_t pc = g.pc;
    const std::uint16_t frame = g.frame;
    U32 bad = 0;
    for_lanes(m, [&](unsigned l) {
        if (index[l] >= table.size()) bad |= 1u << l;
    });
    if (bad != 0) {
        fail_here(x, FindingKind::invalid_operation,
                  "brx.idx index " + std::to_string(index[first_lane(bad)]) + " is past its " +
                      std::to_string(table.size()) + " targets",
                  first_lane(bad), CUDA_ERROR_ILLEGAL_INSTRUCTION);
        return After::fail;
    }
    const U32 stay = g.mask & ~m;
    g.mask = 0;
    if (stay != 0) w.groups.push_back({pc + 1, stay, frame, GroupState::ready, 0});
    for_lanes(m, [&](unsigned l) { w.groups.push_back({table[index[l]], 1u << l, frame, GroupState::ready, 0}); });
    return After::next;  // normalize merges lanes that go to the same target
}

After control(Exec& x, WorkerState& ws, Warp& w, const Inst& in, U32 m) {
    Group& g = w.groups[0];
    const std::uint32_t pc = g.pc;
    switch (in.flow) {
        case Flow::branch: {
            const U32 taken = m, not_taken = g.mask & ~m;
            if (x.counts != nullptr && taken != 0 && not_taken != 0) ++x.counts[pc].divergent;
            if (taken == 0) {
                g.pc = pc + 1;
            } else if (not_taken == 0) {
                g.pc = in.target;
                if (in.target <= pc && w.polled) {
                    w.polled = false;
                    return After::yield;  // a spin loop on memory: let the warp it waits for run
                }
            } else {
                const std::uint16_t frame = g.frame;
                g.pc = pc + 1;
                g.mask = not_taken;
                w.groups.push_back({in.target, taken, frame, GroupState::ready, 0});
            }
            return After::next;
        }
        case Flow::branch_index: return branch_index(x, w, in, m);
        case Flow::call: return call(x, ws, w, in, m);
        case Flow::ret: {
            if (m == 0) {
                g.pc = pc + 1;
                return After::next;
            }
            return ret(x, ws, w, m);
        }
        case Flow::exit: {
            if (m != 0) retire_lanes(x, w, g.frame, m);
            Group& again = w.groups[0];
            again.mask &= ~m;
            again.pc = pc + 1;
            return After::next;
        }
        case Flow::barrier: {
            const BarrierSite& b = x.program->barriers[static_cast<std::size_t>(in.imm)];
            const U32 skip = g.mask & ~m;
            if (b.kind == BarrierSite::Kind::arrive) {
                if (m != 0) {
                    const U32 id = b.id_reg != no_guard ? x.reg<U32>(b.id_reg)[first_lane(m)] : b.id;
                    x.cta->barriers[id & 15u].arrived += static_cast<std::uint32_t>(__builtin_popcount(m));
                }
                g.pc = pc + 1;
                return After::next;
            }
            if (m == 0) {
                g.pc = pc + 1;
                return After::next;
            }
            g.mask = m;
            g.state = GroupState::at_barrier;
            if (skip != 0) w.groups.push_back({pc + 1, skip, w.groups[0].frame, GroupState::ready, 0});
            // An aligned barrier expects the warp's lanes to arrive with it: with the checks on,
            // those still running that will come back to where it leads (not those on their way
            // out of the kernel: barrier_divergence.hpp).
            Group& arrived = w.groups[0];
            arrived.wait_mask = w.live;
            if (x.checks && (w.live & ~arrived.mask) != 0) {
                arrived.wait_mask = expected_at_barrier(x, ws.barrier_paths, w, arrived, arrived.absent_pc);
            }
            return After::next;
        }
        case Flow::warp_sync: warp_sync(x, w, in, m); return After::next;
        case Flow::collective: return collective(x, w, in, m);
        case Flow::cluster_barrier:
            if (m == 0) {
                g.pc = pc + 1;
                return After::next;
            }
            g.mask = m | (g.mask & ~m);
            g.state = GroupState::at_cluster_barrier;
            return After::next;
        case Flow::trap:
            if (m == 0) {
                g.pc = pc + 1;
                return After::next;
            }
            fail_here(x, FindingKind::trap, "", first_lane(m), CUDA_ERROR_LAUNCH_FAILED,
                      static_cast<U32>(__builtin_popcount(m)));
            return After::fail;
        case Flow::unsupported: {
            if (m == 0) {
                g.pc = pc + 1;
                return After::next;
            }
            Finding f;
            f.kind = FindingKind::unsupported;
            f.detail = x.program->unsupported_reasons[static_cast<std::size_t>(in.imm)];
            x.fail(std::move(f), first_lane(m), 1, CUDA_ERROR_NOT_SUPPORTED);
            return After::fail;
        }
        case Flow::yield: g.pc = pc + 1; return After::yield;
        case Flow::debug_stop: {
            // A line start of a debugger's launch: it may stop here; then the program's own
            // instruction runs, with its guard and every check.
            if (!debug_arrive(x, w, pc)) {
                x.launch->stop.store(true, std::memory_order_relaxed);
                return After::yield;
            }
            const Inst& own = x.program->code[pc];
            U32 lanes = w.groups[0].mask;
            if (own.guard != no_guard) lanes &= x.pred(own.guard) ^ own.guard_xor;
            if (own.flow != Flow::plain) return control(x, ws, w, own, lanes);
            if (lanes != 0) {
                own.exec(x, own, lanes);
                if (x.faulted) return After::fail;
            }
            w.groups[0].pc = pc + 1;
            return After::next;
        }
        case Flow::plain: break;
    }
    g.pc = pc + 1;
    return After::next;
}

}  // namespace

void retire_lanes(Exec& x, Warp& w, std::uint16_t frame, U32 lanes) {
    lanes &= w.live;
    const auto n = static_cast<std::uint32_t>(__builtin_popcount(lanes));
    w.live &= ~lanes;
    x.cta->live_threads -= n;
    // The lanes leave their frame and every frame that called it; frames left empty are freed
    // lazily (new_frame reuses a frame that is not in use).
    for (std::int32_t f = frame; f > 0;) {
        Frame& fr = w.frames[static_cast<std::size_t>(f)];
        fr.lanes -= std::min(fr.lanes, n);
        const std::int32_t up = fr.caller;
        // A frame left empty is reused by the next call (new_frame) or given back with the warp.
        if (fr.lanes == 0) fr.in_use = false;
        f = up;
    }
}

WarpStop run_warp(Exec& x, WorkerState& ws, Warp& w, std::uint64_t quantum) {
    x.warp = &w;
    const Inst* const code = x.code;
    for (;;) {
        normalize(w);
        if (w.groups.empty() || w.live == 0) {
            w.groups.clear();
            return WarpStop::done;
        }
        if (w.groups[0].state != GroupState::ready) return WarpStop::waiting;
        Group* g = &w.groups[0];
        const Frame& frame = w.frames[g->frame];
        x.regs = frame.regs;
        x.frame_local_base = frame.local_base;
        // Where the running group meets another ready group of its frame: stop there to merge.
        std::uint32_t stop = ~0u;
        for (std::size_t i = 1; i < w.groups.size(); ++i) {
            const Group& o = w.groups[i];
            if (o.state == GroupState::ready && o.frame == g->frame && o.pc > g->pc && o.pc < stop) stop = o.pc;
        }
        std::uint32_t pc = g->pc;
        const U32 mask = g->mask;
        InstructionCounts* const counts = x.counts;
        for (;;) {
            const Inst& in = code[pc];
            U32 m = mask;
            if (in.guard != no_guard) m &= x.pred(in.guard) ^ in.guard_xor;
            if (counts != nullptr && m != 0) {
                ++counts[pc].executed;
                counts[pc].lanes += static_cast<std::uint64_t>(__builtin_popcount(m));
                if (x.trace != nullptr) x.trace->step(x, pc, m);
            }
            if (in.flow == Flow::plain) {
                if (m != 0) {
                    x.pc = pc;
                    in.exec(x, in, m);
                    if (x.faulted) {
                        g->pc = pc;
                        return WarpStop::failed;
                    }
                }
                ++pc;
                if (pc == stop) {
                    g->pc = pc;
                    break;
                }
                if (--quantum == 0) {
                    g->pc = pc;
                    return WarpStop::yielded;
                }
                continue;
            }
            x.pc = pc;
            g->pc = pc;
            const After after = control(x, ws, w, in, m);
            if (after == After::fail) return WarpStop::failed;
            if (after == After::yield) return WarpStop::yielded;
            if (--quantum == 0) return WarpStop::yielded;
            break;
        }
    }
}

}  // namespace xcuda::cpu
