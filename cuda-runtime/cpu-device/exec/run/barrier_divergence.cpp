#include "exec/run/barrier_divergence.hpp"

#include <algorithm>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;

const FunctionInfo& function_of(const Program& p, std::uint32_t pc) {
    return p.functions[p.sites[p.code[pc].site].function];
}

// An instruction after which a lane runs nothing more of the kernel.
bool exits(const Program& p, const FunctionInfo& f, std::uint32_t pc) {
    const Flow flow = p.code[pc].flow;
    return flow == Flow::exit || flow == Flow::trap || flow == Flow::unsupported || (flow == Flow::ret && f.is_entry);
}

template <class F>
void successors(const Program& p, const FunctionInfo& f, std::uint32_t pc, F&& next) {
    const Inst& in = p.code[pc];
    switch (in.flow) {
        case Flow::exit:
        case Flow::trap:
        case Flow::unsupported:
        case Flow::ret: return;  // the kernel's exit, or back to a caller (outside this function)
        case Flow::branch:
            next(in.target);
            if (in.guard != no_guard) next(pc + 1);
            return;
        case Flow::branch_index:
            for (std::uint32_t t : p.branch_tables[static_cast<std::size_t>(in.imm)]) next(t);
            return;
        default:
            if (pc + 1 < f.end_pc) next(pc + 1);
            return;
    }
}

std::string plural(std::size_t n, const std::string& ranges) { return (n == 1 ? "thread " : "threads ") + ranges; }

// Where lanes that skipped a barrier went: the first line after `from` other than the barrier's.
SourceLocation went_to(const Exec& x, std::uint32_t from, std::uint32_t barrier) {
    const Program& p = *x.program;
    const int barrier_line = p.sites[p.code[barrier].site].loc.line;
    const FunctionInfo& f = function_of(p, from);
    for (std::uint32_t pc = from; pc < f.end_pc && pc < from + 16; ++pc) {
        const ptx::Loc& loc = p.sites[p.code[pc].site].loc;
        if (loc.file != 0 && loc.line != 0 && loc.line != barrier_line) return x.location_of(loc);
    }
    return {};
}

}  // namespace

std::string threads_text(const std::vector<std::uint32_t>& threads) {
    std::string s;
    for (std::size_t i = 0; i < threads.size();) {
        std::size_t j = i;
        while (j + 1 < threads.size() && threads[j + 1] == threads[j] + 1) ++j;
        if (!s.empty()) s += ", ";
        s += std::to_string(threads[i]);
        if (j > i) s += "-" + std::to_string(threads[j]);
        i = j + 1;
    }
    return plural(threads.size(), s);
}

std::string lanes_text(const Warp& w, std::uint32_t lanes) {
    std::vector<std::uint32_t> threads;
    for_lanes(lanes, [&](unsigned l) { threads.push_back(w.first_thread + l); });
    return threads_text(threads);
}

SourceLocation barrier_waited_at(const Exec& x, std::uint32_t cta, std::uint32_t thread) {
    // A unit's warps are one array, CTA by CTA (cta_scheduler.cpp's run_unit).
    const std::uint32_t per_cta = x.launch->warps_per_cta;
    const Warp* first = x.warp - (std::size_t{x.warp->cta} * per_cta + x.warp->index);
    const Warp& w = first[std::size_t{cta} * per_cta + thread / 32];
    for (const Group& g : w.groups) {
        if (g.state == GroupState::at_barrier && ((g.mask >> (thread % 32)) & 1u)) {
            return x.location_of(x.program->sites[x.code[g.pc].site].loc);
        }
    }
    return {};
}

bool BarrierPaths::rejoin(const Program& p, std::uint32_t barrier, std::uint32_t from) {
    const std::uint64_t key = std::uint64_t{barrier} << 32 | from;
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    const FunctionInfo& f = function_of(p, barrier);
    bool answer = false;
    if (from >= f.entry_pc && from < f.end_pc) {
        // What the barrier's lanes can run after it...
        const std::uint32_t n = f.end_pc - f.entry_pc;
        std::vector<char> after(n, 0), seen(n, 0);
        std::vector<std::uint32_t> work;
        auto visit = [&](std::vector<char>& set, std::uint32_t pc) {
            if (pc < f.entry_pc || pc >= f.end_pc || set[pc - f.entry_pc]) return;
            set[pc - f.entry_pc] = 1;
            work.push_back(pc);
        };
        if (barrier + 1 < f.end_pc) visit(after, barrier + 1);
        while (!work.empty()) {
            const std::uint32_t pc = work.back();
            work.pop_back();
            successors(p, f, pc, [&](std::uint32_t next) { visit(after, next); });
        }
        // ...and whether the other lanes' paths meet it anywhere but at an exit.
        visit(seen, from);
        while (!work.empty() && !answer) {
            const std::uint32_t pc = work.back();
            work.pop_back();
            if (after[pc - f.entry_pc] && !exits(p, f, pc)) {
                answer = true;
                break;
            }
            successors(p, f, pc, [&](std::uint32_t next) { visit(seen, next); });
        }
    }
    cache_.emplace(key, answer);
    return answer;
}

std::uint32_t expected_at_barrier(Exec& x, BarrierPaths& paths, const Warp& w, const Group& arrived,
                                  std::uint32_t& absent_pc) {
    U32 expected = arrived.mask;
    absent_pc = arrived.pc;
    bool first = true;
    for (const Group& g : w.groups) {
        if (&g == &arrived || (g.mask & w.live) == 0 || g.frame != arrived.frame) continue;
        // Waiting at another barrier, or on its way back to where this one leads: diverged, not gone.
        const bool diverged = g.state == GroupState::at_barrier || paths.rejoin(*x.program, arrived.pc, g.pc);
        if (!diverged) continue;
        expected |= g.mask & w.live;
        if (first) absent_pc = g.pc;
        first = false;
    }
    return expected;
}

bool divergent_at_barrier(Exec& x, Cta& cta, const std::vector<std::pair<Warp*, std::size_t>>& waiting,
                          bool whole_block) {
    // Threads of the block at different barrier instructions.
    std::uint32_t highest = 0;
    bool differ = false;
    for (const auto& [w, gi] : waiting) {
        const std::uint32_t pc = w->groups[gi].pc;
        differ = differ || pc != waiting.front().first->groups[waiting.front().second].pc;
        highest = std::max(highest, pc);
    }
    Finding f;
    f.kind = FindingKind::divergent_barrier;
    if (whole_block && differ) {
        // Within one warp first: its lanes at the later of its barriers are reported.
        for (const auto& [w, gi] : waiting) {
            const Group& g = w->groups[gi];
            for (const auto& [v, gj] : waiting) {
                const Group& o = v->groups[gj];
                if (v != w || o.pc >= g.pc) continue;
                f.divergence = Divergence::warp;
                f.waiting = lanes_text(*w, g.mask);
                f.absent = lanes_text(*w, o.mask);
                f.absent_at_barrier = true;
                f.other_where = x.location_of(x.program->sites[x.code[o.pc].site].loc);
                x.warp = w;
                x.pc = g.pc;
                x.fail(std::move(f), first_lane(g.mask), static_cast<U32>(__builtin_popcount(g.mask)));
                return true;
            }
        }
        // Whole warps: the threads at the latest barrier in the code against the others.
        std::vector<std::uint32_t> here, elsewhere;
        const std::pair<Warp*, std::size_t>* primary = nullptr;
        std::uint32_t other_pc = highest;
        for (const auto& entry : waiting) {
            const Group& g = entry.first->groups[entry.second];
            auto& list = g.pc == highest ? here : elsewhere;
            for_lanes(g.mask, [&](unsigned l) { list.push_back(entry.first->first_thread + l); });
            if (g.pc == highest && primary == nullptr) primary = &entry;
            if (g.pc != highest && (other_pc == highest || g.pc < other_pc)) other_pc = g.pc;
        }
        std::sort(here.begin(), here.end());
        std::sort(elsewhere.begin(), elsewhere.end());
        f.divergence = Divergence::block;
        f.waiting = threads_text(here);
        f.absent = threads_text(elsewhere);
        f.absent_at_barrier = true;
        f.other_where = x.location_of(x.program->sites[x.code[other_pc].site].loc);
        const Group& g = primary->first->groups[primary->second];
        x.warp = primary->first;
        x.pc = g.pc;
        x.fail(std::move(f), first_lane(g.mask), static_cast<U32>(here.size()));
        return true;
    }
    // Lanes of a warp that an aligned barrier expected with the ones that arrived, and that
    // went on without it (they have exited since, or run on elsewhere).
    (void)cta;
    for (const auto& [w, gi] : waiting) {
        const Group& g = w->groups[gi];
        const BarrierSite& b = x.program->barriers[static_cast<std::size_t>(x.code[g.pc].imm)];
        const U32 absent = g.wait_mask & ~g.mask;
        if (!b.aligned || absent == 0) continue;
        f.divergence = Divergence::warp;
        f.waiting = lanes_text(*w, g.mask);
        f.absent = lanes_text(*w, absent);
        // At another barrier of the same id (one that waits for a thread count)?
        for (const auto& [v, gj] : waiting) {
            const Group& o = v->groups[gj];
            if (v == w && (o.mask & absent) != 0 && o.pc != g.pc) {
                f.absent_at_barrier = true;
                f.other_where = x.location_of(x.program->sites[x.code[o.pc].site].loc);
            }
        }
        if (!f.absent_at_barrier) f.other_where = went_to(x, g.absent_pc, g.pc);
        x.warp = w;
        x.pc = g.pc;
        x.fail(std::move(f), first_lane(g.mask), static_cast<U32>(__builtin_popcount(g.mask)));
        return true;
    }
    return false;
}

}  // namespace xcuda::cpu
