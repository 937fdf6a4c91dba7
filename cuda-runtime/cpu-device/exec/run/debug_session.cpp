// A debug launch: where it may stop (line starts), when it stops (breakpoints, steps of the
// followed thread), the worker thread parked while a thread is stopped, and what the controller
// reads of the stopped warp meanwhile.
#include "exec/run/debug_session.hpp"
#include "exec/decode/debug_symbols.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <utility>

namespace xcuda::cpu {

using U32 = std::uint32_t;

struct DebugSession::Impl {
    explicit Impl(std::string k) : kernel(std::move(k)) {}

    const std::string kernel;
    mutable std::mutex mutex;
    std::condition_variable changed;
    State state = State::armed;
    bool aborted = false;

    struct Breakpoint {
        int id = 0;
        std::string file;
        int line = 0;
        ThreadSelector who;
        bool every_thread = false;
    };
    std::vector<Breakpoint> breakpoints;
    int next_id = 1;

    // The launch, while it runs.
    LaunchState* launch = nullptr;
    std::vector<Inst> code;  // the program's, line starts made debug_stop

    // The thread steps and unconditional breakpoints follow.
    bool following = false;
    Dim3 follow_block;
    U32 follow_thread = 0;  // linear index in its block
    Resume mode = Resume::run;
    std::size_t step_depth = 0;

    // The stop: the parked worker's warp and the group at its line start.
    Exec* x = nullptr;
    Warp* warp = nullptr;
    Cta* cta = nullptr;
    U32 group_mask = 0;
    std::uint16_t group_frame = 0;
    U32 pc = 0;
    std::vector<std::pair<int, U32>> hits;

    bool stopped() const { return state == State::stopped && warp != nullptr; }

    U32 followed_lanes(const Cta& c, const Warp& w) const {
        if (!following || c.ctaid.x != follow_block.x || c.ctaid.y != follow_block.y || c.ctaid.z != follow_block.z)
            return 0;
        if (follow_thread < w.first_thread || follow_thread >= w.first_thread + 32) return 0;
        return 1u << (follow_thread - w.first_thread);
    }

    // Frame indices of the stopped group's call chain, innermost first.
    std::vector<std::size_t> chain() const {
        std::vector<std::size_t> out;
        for (std::int32_t f = group_frame; f >= 0; f = warp->frames[static_cast<std::size_t>(f)].caller)
            out.push_back(static_cast<std::size_t>(f));
        return out;
    }

    std::optional<DebugRegion> region(std::uint64_t address, unsigned lane) const;

    const DebugSymbols::FunctionNames* names(std::size_t frame) const {
        const Program& p = *launch->program;
        const std::uint32_t fn = warp->frames[frame].function;
        if (!p.debug || fn >= p.debug->functions.size()) return nullptr;
        return &p.debug->functions[fn];
    }
};

namespace {

std::mutex armed_mutex;
std::shared_ptr<DebugSession> armed;
std::atomic<bool> any_armed{false};

std::size_t depth_of(const Warp& w, std::uint16_t frame) {
    std::size_t depth = 0;
    for (std::int32_t f = frame; f >= 0; f = w.frames[static_cast<std::size_t>(f)].caller) ++depth;
    return depth;
}

// A breakpoint's file ("cell.cu") names the PTX's .file entry ("/tmp/work/cell.cu" under -G) by
// its last component; "" names every file.
bool same_file(const std::string& ptx_name, const std::string& wanted) {
    if (wanted.empty() || ptx_name == wanted) return true;
    return ptx_name.size() > wanted.size() && ptx_name[ptx_name.size() - wanted.size() - 1] == '/' &&
           ptx_name.compare(ptx_name.size() - wanted.size(), wanted.size(), wanted) == 0;
}

std::string file_name(const Program& p, int index) {
    auto it = p.files.find(index);
    return it == p.files.end() ? std::string() : it->second;
}

SourceLocation location(const Program& p, const ptx::Loc& loc) {
    SourceLocation s;
    if (loc.file == 0) return s;
    s.file = file_name(p, loc.file);
    s.line = loc.line;
    s.column = loc.column;
    return s;
}

std::optional<std::vector<std::byte>> copy(const std::byte* from, std::size_t bytes) {
    std::vector<std::byte> out(bytes);
    if (bytes != 0) std::memcpy(out.data(), from, bytes);
    return out;
}

// [address, address + bytes) inside [base, base + size)?
bool within(std::uint64_t address, std::size_t bytes, std::uint64_t base, std::uint64_t size) {
    return address >= base && bytes <= size && address - base <= size - bytes;
}

// Branch targets and function entries start a line even when the line does not change there
// (a loop's condition, reached again from its end).
std::vector<bool> line_starts(const Program& p) {
    std::vector<bool> start(p.code.size(), false);
    std::vector<bool> target(p.code.size(), false);
    for (const Inst& in : p.code) {
        if (in.flow == Flow::branch && in.target < target.size()) target[in.target] = true;
        if (in.flow == Flow::branch_index) {
            for (std::uint32_t t : p.branch_tables[static_cast<std::size_t>(in.imm)])
                if (t < target.size()) target[t] = true;
        }
    }
    for (const FunctionInfo& f : p.functions) {
        if (f.is_extern || f.entry_pc >= f.end_pc) continue;
        // The function's first line starts after its prologue (its declaration's line: the loads
        // of its parameters), where they hold their values, as gdb stops; a function written on
        // one line starts after the loads of its parameters.
        const int entry_line = p.sites[p.code[f.entry_pc].site].loc.line;
        std::uint32_t first = f.entry_pc;
        while (first < f.end_pc && p.sites[p.code[first].site].loc.line == entry_line) ++first;
        if (first == f.end_pc || p.code[first].flow == Flow::ret || p.code[first].flow == Flow::exit) {
            first = f.entry_pc;
            while (first + 1 < f.end_pc && p.sites[p.code[first].site].opcode.rfind("ld.param", 0) == 0) ++first;
        }
        for (std::uint32_t pc = first; pc < f.end_pc; ++pc) {
            const ptx::Loc& loc = p.sites[p.code[pc].site].loc;
            if (loc.file == 0 || loc.line == 0) continue;
            if (pc == first || target[pc]) {
                start[pc] = true;
                continue;
            }
            const ptx::Loc& before = p.sites[p.code[pc - 1].site].loc;
            start[pc] = before.line != loc.line || before.file != loc.file;
        }
    }
    return start;
}

}  // namespace

std::optional<DebugRegion> DebugSession::Impl::region(std::uint64_t address, unsigned lane) const {
    if (!stopped() || lane >= 32) return std::nullopt;
    const LaunchState& L = *launch;
    if (const Allocation* a = L.table->containing(address)) return DebugRegion{a->base, a->size, MemorySpace::global};
    const auto shared = reinterpret_cast<std::uint64_t>(cta->shared);
    if (within(address, 1, shared, L.shared_window_bytes))
        return DebugRegion{shared, L.shared_window_bytes, MemorySpace::shared};
    const auto local = reinterpret_cast<std::uint64_t>(warp->local + std::size_t{lane} * warp->local_stride);
    if (within(address, 1, local, warp->local_stride))
        return DebugRegion{local, warp->local_stride, MemorySpace::local};
    if (within(address, 1, L.params_address, L.kernel->param_bytes))
        return DebugRegion{L.params_address, L.kernel->param_bytes, MemorySpace::param};
    return std::nullopt;
}

bool ThreadSelector::matches(const Dim3& b, const Dim3& t) const noexcept {
    auto ok = [](int want, unsigned have) { return want < 0 || static_cast<unsigned>(want) == have; };
    return ok(block[0], b.x) && ok(block[1], b.y) && ok(block[2], b.z) && ok(thread[0], t.x) && ok(thread[1], t.y) &&
           ok(thread[2], t.z);
}

DebugSession::DebugSession(std::string kernel) : impl_(std::make_unique<Impl>(std::move(kernel))) {}
DebugSession::~DebugSession() = default;

const std::string& DebugSession::kernel() const { return impl_->kernel; }

int DebugSession::add_breakpoint(std::string file, int line, ThreadSelector who, bool every_thread) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Impl::Breakpoint b;
    b.id = impl_->next_id++;
    b.file = std::move(file);
    b.line = line;
    b.who = who;
    b.every_thread = every_thread;
    impl_->breakpoints.push_back(std::move(b));
    return impl_->breakpoints.back().id;
}

void DebugSession::clear_breakpoints() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->breakpoints.clear();
}

DebugSession::State DebugSession::wait(int timeout_ms) {
    std::unique_lock<std::mutex> lock(impl_->mutex);
    impl_->changed.wait_for(lock, std::chrono::milliseconds(std::max(timeout_ms, 0)),
                            [&] { return impl_->state == State::stopped || impl_->state == State::finished; });
    return impl_->state;
}

DebugSession::State DebugSession::state() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->state;
}

void DebugSession::follow(unsigned lane) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Impl& d = *impl_;
    if (!d.stopped() || lane >= 32 || !((d.warp->live >> lane) & 1u)) return;
    d.following = true;
    d.follow_block = d.cta->ctaid;
    d.follow_thread = d.warp->first_thread + lane;
}

void DebugSession::resume(Resume how) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Impl& d = *impl_;
    if (!d.stopped()) return;
    if (how != Resume::run && (d.followed_lanes(*d.cta, *d.warp) & d.group_mask) == 0) {
        // Stepping from a stop that followed nobody in this group: the first lane stopped is stepped.
        d.following = true;
        d.follow_block = d.cta->ctaid;
        d.follow_thread = d.warp->first_thread + static_cast<U32>(__builtin_ctz(d.group_mask));
    }
    d.mode = how;
    d.step_depth = depth_of(*d.warp, d.group_frame);
    d.state = State::running;
    d.changed.notify_all();
}

void DebugSession::abort() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->aborted = true;
    impl_->changed.notify_all();
}

std::uint32_t DebugSession::pc() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->stopped() ? impl_->pc : 0;
}

std::vector<std::pair<int, std::uint32_t>> DebugSession::hits() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->stopped() ? impl_->hits : std::vector<std::pair<int, std::uint32_t>>{};
}

std::optional<unsigned> DebugSession::followed_lane() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const Impl& d = *impl_;
    if (!d.stopped()) return std::nullopt;
    const U32 lanes = d.followed_lanes(*d.cta, *d.warp) & d.group_mask;
    if (lanes == 0) return std::nullopt;
    return static_cast<unsigned>(__builtin_ctz(lanes));
}

DebugThread DebugSession::thread(unsigned lane) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const Impl& d = *impl_;
    DebugThread t;
    if (!d.stopped() || lane >= 32) return t;
    const LaunchSpec& spec = *d.launch->spec;
    const U32 linear = d.warp->first_thread + lane;
    t.block = d.cta->ctaid;
    t.thread = {linear % spec.block.x, (linear / spec.block.x) % spec.block.y, linear / (spec.block.x * spec.block.y)};
    t.grid_dim = spec.grid;
    t.block_dim = spec.block;
    t.warp = d.warp->index;
    t.lane = lane;
    t.active = d.group_mask;
    t.live = d.warp->live;
    return t;
}

std::vector<DebugFrame> DebugSession::frames() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const Impl& d = *impl_;
    std::vector<DebugFrame> out;
    if (!d.stopped()) return out;
    const Program& p = *d.launch->program;
    std::uint32_t pc = d.pc;
    for (std::size_t f : d.chain()) {
        const Frame& frame = d.warp->frames[f];
        DebugFrame df;
        df.function = p.functions[frame.function].name;
        df.pc = pc;
        df.where = location(p, p.sites[p.code[pc].site].loc);
        out.push_back(std::move(df));
        pc = frame.return_pc - 1;  // the caller's call
    }
    return out;
}

std::optional<std::vector<std::byte>> DebugSession::read_register(std::size_t frame, const std::string& name,
                                                                  unsigned lane) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const Impl& d = *impl_;
    if (!d.stopped() || lane >= 32) return std::nullopt;
    const auto chain = d.chain();
    if (frame >= chain.size()) return std::nullopt;
    const auto* names = d.names(chain[frame]);
    if (names == nullptr) return std::nullopt;
    auto it = names->registers.find(name);
    if (it == names->registers.end()) return std::nullopt;
    const std::byte* regs = d.warp->frames[chain[frame]].regs;
    if (it->second.size == 0) {
        U32 mask;
        std::memcpy(&mask, regs + it->second.offset, 4);
        return std::vector<std::byte>{std::byte{static_cast<unsigned char>((mask >> lane) & 1u)}};
    }
    return copy(regs + it->second.offset + std::size_t{lane} * it->second.size, it->second.size);
}

std::optional<std::vector<std::byte>> DebugSession::read_variable(MemorySpace space, const std::string& symbol,
                                                                  std::uint64_t offset, std::size_t bytes,
                                                                  std::size_t frame, unsigned lane) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const Impl& d = *impl_;
    if (!d.stopped() || lane >= 32) return std::nullopt;
    const auto chain = d.chain();
    if (frame >= chain.size()) return std::nullopt;
    const LaunchState& L = *d.launch;
    const Program& p = *L.program;
    const auto* names = d.names(chain[frame]);
    const Frame& f = d.warp->frames[chain[frame]];
    switch (space) {
        case MemorySpace::param: {
            if (names != nullptr) {
                if (auto it = names->params.find(symbol); it != names->params.end()) {
                    if (!within(offset, bytes, 0, it->second.size)) return std::nullopt;
                    return copy(f.regs + it->second.offset + std::size_t{lane} * it->second.size + offset, bytes);
                }
            }
            if (!p.debug) return std::nullopt;
            auto it = p.debug->kernel_params.find(symbol);
            if (it == p.debug->kernel_params.end() || !within(offset, bytes, 0, it->second.size)) return std::nullopt;
            return copy(reinterpret_cast<const std::byte*>(L.params_address) + it->second.offset + offset, bytes);
        }
        case MemorySpace::local: {
            if (names == nullptr) return std::nullopt;
            auto it = names->locals.find(symbol);
            if (it == names->locals.end()) return std::nullopt;
            const std::uint64_t at = std::uint64_t{f.local_base} + it->second + offset;
            if (!within(at, bytes, 0, d.warp->local_stride)) return std::nullopt;
            return copy(d.warp->local + std::size_t{lane} * d.warp->local_stride + at, bytes);
        }
        case MemorySpace::shared: {
            for (const SharedVariable& s : L.shared_layout->variables) {
                if (s.name != symbol) continue;
                const std::uint64_t at = std::uint64_t{s.offset} + offset;
                if (!within(at, bytes, 0, L.shared_window_bytes)) return std::nullopt;
                return copy(d.cta->shared + at, bytes);
            }
            return std::nullopt;
        }
        case MemorySpace::global:
        case MemorySpace::constant: {
            auto g = L.spec->module->global(symbol);
            if (!g || !within(offset, bytes, 0, g->bytes)) return std::nullopt;
            return copy(reinterpret_cast<const std::byte*>(g->address) + offset, bytes);
        }
        default: return std::nullopt;
    }
}

std::optional<DebugRegion> DebugSession::region_of(std::uint64_t address, unsigned lane) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->region(address, lane);
}

std::optional<std::vector<std::byte>> DebugSession::read_memory(std::uint64_t address, std::size_t bytes,
                                                                unsigned lane) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto region = impl_->region(address, lane);
    if (!region || !within(address, bytes, region->base, region->size)) return std::nullopt;
    return copy(reinterpret_cast<const std::byte*>(address), bytes);
}

std::optional<std::uint32_t> DebugSession::label_pc(const std::string& label) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const Impl& d = *impl_;
    if (d.launch == nullptr || !d.launch->program->debug) return std::nullopt;
    auto it = d.launch->program->debug->labels.find(label);
    if (it == d.launch->program->debug->labels.end()) return std::nullopt;
    return it->second;
}

void arm_debug_session(std::shared_ptr<DebugSession> session) {
    std::lock_guard<std::mutex> lock(armed_mutex);
    armed = std::move(session);
    any_armed.store(armed != nullptr, std::memory_order_release);
}

std::shared_ptr<DebugSession> take_debug_session(const LaunchSpec& spec) {
    if (!any_armed.load(std::memory_order_acquire)) return nullptr;
    if (!spec.module->program().debug) return nullptr;
    std::lock_guard<std::mutex> lock(armed_mutex);
    if (!armed || armed->kernel() != spec.kernel->name) return nullptr;
    any_armed.store(false, std::memory_order_release);
    return std::move(armed);
}

const Inst* debug_launch_begin(DebugSession& session, LaunchState& launch) {
    DebugSession::Impl& d = session.impl();
    std::lock_guard<std::mutex> lock(d.mutex);
    const Program& p = *launch.program;
    d.launch = &launch;
    d.state = DebugSession::State::running;
    d.code = p.code;
    const std::vector<bool> starts = line_starts(p);
    for (std::size_t pc = 0; pc < d.code.size(); ++pc) {
        if (!starts[pc]) continue;
        d.code[pc].flow = Flow::debug_stop;
        d.code[pc].guard = no_guard;  // the program's own instruction is guarded when it runs
    }
    return d.code.data();
}

bool debug_launch_end(DebugSession& session) {
    DebugSession::Impl& d = session.impl();
    std::lock_guard<std::mutex> lock(d.mutex);
    d.state = DebugSession::State::finished;
    d.warp = nullptr;
    d.changed.notify_all();
    return d.aborted;
}

namespace {
std::atomic<int> held_stops{0};  // launches parked in debug_arrive
std::function<void()>& stop_listener() {
    static std::function<void()> listener;
    return listener;
}
}  // namespace

bool debug_stop_held() { return held_stops.load() > 0; }

void set_debug_stop_listener(std::function<void()> listener) { stop_listener() = std::move(listener); }

bool debug_arrive(Exec& x, Warp& w, std::uint32_t pc) {
    DebugSession::Impl& d = x.launch->debug->impl();
    std::unique_lock<std::mutex> lock(d.mutex);
    if (d.aborted) return false;
    const Group& g = w.groups[0];
    const Program& p = *x.program;
    const ptx::Loc& loc = p.sites[p.code[pc].site].loc;
    const U32 followed = d.followed_lanes(*x.cta, w) & g.mask;
    std::vector<std::pair<int, U32>> hits;
    for (const auto& b : d.breakpoints) {
        if ((b.line != 0 && b.line != loc.line) || !same_file(file_name(p, loc.file), b.file)) continue;
        U32 lanes = 0;
        for_lanes(g.mask, [&](unsigned l) {
            if (b.who.matches(x.cta->ctaid, x.thread_of(l))) lanes |= 1u << l;
        });
        if (!b.every_thread && d.following) lanes &= followed;
        if (lanes != 0) hits.emplace_back(b.id, lanes);
    }
    if (hits.empty()) {
        if (d.mode == DebugSession::Resume::run || followed == 0) return true;
        const std::size_t depth = depth_of(w, g.frame);
        const bool stop = d.mode == DebugSession::Resume::step_in ||
                          (d.mode == DebugSession::Resume::step_over && depth <= d.step_depth) ||
                          (d.mode == DebugSession::Resume::step_out && depth < d.step_depth);
        if (!stop) return true;
    }
    d.x = &x;
    d.warp = &w;
    d.cta = x.cta;
    d.group_mask = g.mask;
    d.group_frame = g.frame;
    d.pc = pc;
    d.hits = std::move(hits);
    d.state = DebugSession::State::stopped;
    d.changed.notify_all();
    held_stops.fetch_add(1);
    if (stop_listener()) stop_listener()();
    d.changed.wait(lock, [&] { return d.state != DebugSession::State::stopped || d.aborted; });
    held_stops.fetch_sub(1);
    d.warp = nullptr;
    d.hits.clear();
    if (d.aborted) {
        d.state = DebugSession::State::running;
        return false;
    }
    return true;
}

}  // namespace xcuda::cpu
