#include "exec/run/access_trace.hpp"
#include "check/device_memory.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace xcuda::cpu {
namespace {

std::uint64_t linear_block(const Exec& x) {
    const Dim3& g = x.launch->spec->grid;
    const Dim3& c = x.cta->ctaid;
    return c.x + std::uint64_t{g.x} * (c.y + std::uint64_t{g.y} * c.z);
}

std::uint64_t little_endian(const std::byte* p, unsigned size) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, std::min<unsigned>(size, 8));
    return v;
}

}  // namespace

bool AccessRecorder::full(std::size_t size, std::size_t limit) {
    if (size < limit) return false;
    truncated_ = true;
    return true;
}

void AccessRecorder::settle() {
    if (pending_ != nullptr) pending_->m.value = little_endian(pending_at_, pending_->m.size);
    pending_ = nullptr;
    pending_at_ = nullptr;
}

AccessRecorder::Raw* AccessRecorder::add(const Exec& x, unsigned lane, Access access, MemorySpace space, unsigned size,
                                         std::uint64_t address) {
    settle();
    if (full(accesses_.size(), AccessTrace::max_accesses)) return nullptr;
    Raw& r = accesses_.emplace_back();
    r.m.block = linear_block(x);
    r.m.thread = x.linear_thread(lane);
    r.m.access = access;
    r.m.space = space;
    r.m.size = static_cast<std::uint8_t>(std::min(size, 255u));
    r.pc = x.pc;
    r.address = address;
    return &r;
}

void AccessRecorder::global(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access) {
    Raw* r = add(x, lane, access, MemorySpace::global, size, address);
    if (r == nullptr) return;
    // Only memory the launch may touch is read back: an access that fails its check is never made.
    const Allocation* a = x.launch->table->find(address, size);
    if (a == nullptr) return;
    const auto* p = reinterpret_cast<const std::byte*>(address);
    if (access == Access::read) {
        r->m.value = little_endian(p, size);
    } else {
        pending_ = r;
        pending_at_ = p;
    }
}

void AccessRecorder::shared(Exec& x, std::uint64_t window_offset, const std::byte* p, unsigned size, unsigned lane,
                            Access access, const std::byte* value) {
    Raw* r = add(x, lane, access, MemorySpace::shared, size, window_offset);
    if (r == nullptr) return;
    if (value != nullptr) {
        r->m.value = little_endian(value, size);
    } else if (access == Access::read) {
        r->m.value = little_endian(p, size);
    } else {
        pending_ = r;
        pending_at_ = p;
    }
}

void AccessRecorder::step(const Exec& x, std::uint32_t pc, std::uint32_t lanes) {
    if (full(steps_.size(), AccessTrace::max_steps)) return;
    steps_.push_back({linear_block(x), x.warp->first_thread, lanes, pc});
}

std::shared_ptr<AccessTrace> AccessRecorder::build(const LaunchState& L) {
    settle();
    auto trace = std::make_shared<AccessTrace>();
    const Program& p = *L.program;
    trace->kernel = L.kernel->name;
    trace->grid = L.spec->grid;
    trace->block = L.spec->block;
    trace->truncated = truncated_;
    // The launched kernel's own window: a GPU gives each kernel only the variables it uses.
    const std::vector<SharedVariable>& shared = L.shared_layout->variables;
    for (const SharedVariable& v : shared) trace->shared_variables.push_back(v.name);

    Exec x;  // for location_of
    x.program = &p;
    x.code = p.code.data();
    std::unordered_map<std::uint32_t, std::uint32_t> site_of_pc;
    auto site = [&](std::uint32_t pc) {
        auto [it, added] = site_of_pc.try_emplace(pc, static_cast<std::uint32_t>(trace->sites.size()));
        if (added) {
            const Site& s = p.sites[p.code[pc].site];
            trace->sites.push_back({x.location_of(s.loc), s.opcode, pc});
        }
        return it->second;
    };

    // The kernel's pointer parameters and the allocations they point into.
    struct Pointer {
        int parameter;
        std::uint64_t value, begin, end;
    };
    std::vector<Pointer> pointers;
    const auto* params = reinterpret_cast<const std::byte*>(L.params_address);
    for (std::size_t i = 0; i < L.kernel->params.size(); ++i) {
        if (L.kernel->params[i].size != 8) continue;
        std::uint64_t v;
        std::memcpy(&v, params + L.kernel->params[i].offset, 8);
        if (const Allocation* a = L.table->containing(v)) {
            pointers.push_back({static_cast<int>(i), v, a->base, a->base + a->size});
        }
    }

    trace->steps = std::move(steps_);
    for (AccessTrace::Step& s : trace->steps) s.site = site(s.site);
    trace->accesses.reserve(accesses_.size());
    for (Raw& r : accesses_) {
        AccessTrace::Memory m = r.m;
        m.site = site(r.pc);
        if (m.space == MemorySpace::global) {
            const Pointer* best = nullptr;
            for (const Pointer& ptr : pointers) {
                if (r.address < ptr.begin || r.address >= ptr.end) continue;
                if (best == nullptr || (ptr.value <= r.address && (best->value > r.address || ptr.value > best->value)))
                    best = &ptr;
            }
            if (best != nullptr) {
                m.parameter = best->parameter;
                m.offset = static_cast<std::int64_t>(r.address - best->value);
            } else {
                m.offset = static_cast<std::int64_t>(r.address);
            }
        } else {
            const std::uint64_t within = r.address & ((std::uint64_t{1} << 24) - 1);
            int best = -1;
            for (std::size_t i = 0; i < shared.size(); ++i) {
                if (shared[i].offset <= within && (best < 0 || shared[i].offset >= shared[best].offset))
                    best = static_cast<int>(i);
            }
            m.shared_variable = best;
            m.offset = static_cast<std::int64_t>(within - (best >= 0 ? shared[best].offset : 0));
        }
        trace->accesses.push_back(m);
    }
    accesses_.clear();
    return trace;
}

}  // namespace xcuda::cpu
