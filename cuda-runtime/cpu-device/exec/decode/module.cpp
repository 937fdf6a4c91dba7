// Module::load: PTX text to a decoded Program with its variables placed in device memory, and
// what the driver asks of its kernels.
#include "exec/decode/debug_symbols.hpp"
#include "exec/decode/decode.hpp"
#include "exec/engine.hpp"
#include "exec/decode/function_decoder.hpp"
#include "exec/decode/program.hpp"
#include "exec/ops/special_registers.hpp"
#include "ptx/parser.hpp"

#include <algorithm>
#include <cstring>

namespace xcuda::cpu {
namespace {

// Without ptxas's count (PTX loaded on its own), a typical small kernel's: what occupancy uses.
constexpr int registers_when_unknown = 32;

Dim3 dims(const unsigned (&d)[3]) { return {d[0], d[1], d[2]}; }

unsigned product(const unsigned (&d)[3]) {
    unsigned n = 1;
    for (unsigned v : d) n *= std::max(v, 1u);
    return n;
}

// Whether function `entry`, or one it calls directly or through others, reads the grid workspace
// (%envreg1 or %envreg2).
bool reaches_grid_workspace(const Program& p, std::uint32_t entry) {
    const Handler envreg = envreg_reader();
    std::vector<bool> seen(p.functions.size(), false);
    std::vector<std::uint32_t> todo{entry};
    seen[entry] = true;
    while (!todo.empty()) {
        const FunctionInfo& f = p.functions[todo.back()];
        todo.pop_back();
        for (std::uint32_t pc = f.entry_pc; pc < f.end_pc; ++pc) {
            const Inst& in = p.code[pc];
            if (in.exec == envreg && (in.imm == 1 || in.imm == 2)) return true;
            if (in.flow != Flow::call) continue;
            const CallSite& call = p.calls[static_cast<std::size_t>(in.imm)];
            if (call.indirect || seen[call.callee]) continue;
            seen[call.callee] = true;
            todo.push_back(call.callee);
        }
    }
    return false;
}

}  // namespace

Module::~Module() {
    for (std::uint64_t a : owned_) memory_->free(a);
}

std::shared_ptr<Module> Module::load(std::string_view ptx_text, DeviceMemory& memory,
                                     const std::map<std::string, int>& register_counts) {
    ptx::Module parsed;
    try {
        parsed = ptx::parse(ptx_text);
    } catch (const ptx::ParseError& e) {
        throw ModuleLoadError(e.what());
    }
    std::shared_ptr<Module> m(new Module());
    m->memory_ = &memory;
    m->program_ = std::make_unique<Program>();
    Program& p = *m->program_;
    const auto& target_options = parsed.target_options;
    if (std::find(target_options.begin(), target_options.end(), "debug") != target_options.end())
        p.debug = std::make_shared<DebugSymbols>();
    try {
        decode_variables(parsed, p);
        // Place the variables, then fill in the addresses their initializers name.
        std::vector<std::uint64_t> addresses;
        std::size_t const_bytes = 0;
        for (const ModuleVariable& v : p.variables) {
            if (v.is_extern) {
                throw ModuleLoadError("the module declares .extern variable " + v.name +
                                      " without defining it (link it with -rdc and a device link)");
            }
            const std::uint64_t a =
                memory.allocate(std::max<std::size_t>(v.bytes, 1), Allocation::Kind::module_variable, v.name);
            if (a == 0) throw ModuleLoadError("out of device memory for variable " + v.name);
            m->owned_.push_back(a);
            if (!v.image.empty()) std::memcpy(reinterpret_cast<void*>(a), v.image.data(), v.image.size());
            addresses.push_back(a);
            m->globals_[v.name] = {a, v.bytes};
            if (v.space == ptx::Space::const_) const_bytes += v.bytes;
        }
        decode_functions(parsed, p, addresses);
        for (std::size_t i = 0; i < p.variables.size(); ++i) {
            for (const ModuleVariable::Relocation& r : p.variables[i].relocations) {
                std::uint64_t target = 0;
                if (auto g = m->globals_.find(r.symbol); g != m->globals_.end()) {
                    target = g->second.address;
                } else if (auto f = p.function_index.find(r.symbol); f != p.function_index.end()) {
                    target = function_handle(f->second);
                } else {
                    throw ModuleLoadError("variable " + p.variables[i].name + " is initialised with the address of " +
                                          r.symbol + ", which the module does not define");
                }
                target += static_cast<std::uint64_t>(r.addend);
                std::memcpy(reinterpret_cast<std::byte*>(addresses[i]) + r.at, &target,
                            std::min<std::size_t>(r.size, 8));
            }
        }
        for (const ptx::Function& f : parsed.functions) {
            if (!f.is_entry || !f.has_body) continue;
            KernelInfo k;
            k.name = f.name;
            k.params = kernel_param_layout(f, &k.param_bytes);
            k.entry_index = static_cast<int>(p.function_index.at(f.name));
            const FunctionInfo& info = p.functions[static_cast<std::size_t>(k.entry_index)];
            k.static_shared_bytes = p.shared_layouts[static_cast<std::size_t>(k.entry_index)].declared_bytes;
            k.local_bytes = info.local_bytes;
            k.const_bytes = const_bytes;
            auto rc = register_counts.find(f.name);
            k.num_regs = rc != register_counts.end() ? rc->second : registers_when_unknown;
            if (product(f.reqntid) > 1 || f.reqntid[0] != 0) {
                k.max_threads_per_block = static_cast<int>(product(f.reqntid));
            } else if (f.maxntid[0] != 0) {
                k.max_threads_per_block = static_cast<int>(product(f.maxntid));
            }
            k.reqntid = dims(f.reqntid);
            k.cluster_dims = dims(f.reqnctapercluster);
            k.explicit_cluster = f.explicitcluster;
            k.max_cluster_rank = f.maxclusterrank;
            k.syncs_grid = reaches_grid_workspace(p, static_cast<std::uint32_t>(k.entry_index));
            // The virtual architecture the PTX targets (sm_90 -> 90), as the driver reports it.
            k.ptx_version = std::atoi(p.target.c_str() + (p.target.rfind("sm_", 0) == 0 ? 3 : 0));
            m->kernels_.push_back(std::move(k));
        }
    } catch (const DecodeError& e) {
        throw ModuleLoadError(e.what());
    }
    return m;
}

const KernelInfo* Module::kernel(std::string_view name) const {
    for (const KernelInfo& k : kernels_) {
        if (k.name == name) return &k;
    }
    return nullptr;
}

std::vector<const KernelInfo*> Module::kernels() const {
    std::vector<const KernelInfo*> out;
    for (const KernelInfo& k : kernels_) out.push_back(&k);
    return out;
}

std::optional<Module::Symbol> Module::global(std::string_view name) const {
    auto it = globals_.find(name);
    if (it == globals_.end()) return std::nullopt;
    return it->second;
}

}  // namespace xcuda::cpu
