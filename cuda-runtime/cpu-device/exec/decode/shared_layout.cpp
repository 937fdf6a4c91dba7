#include "exec/decode/shared_layout.hpp"

#include "exec/decode/function_decoder.hpp"

#include "check/shared_state.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace xcuda::cpu {
namespace {

constexpr std::uint32_t leading_red_zone = 64;  // between the reserved part and the first variable

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

struct Declared {
    const ptx::Variable* variable = nullptr;
    bool dynamic = false;  // extern, or an unsized array: dynamic shared memory
};

bool is_dynamic(const ptx::Variable& v) { return v.is_extern || (!v.dims.empty() && v.dims.back() == 0); }

// Every name an operand mentions (a symbol, an address's base, a vector's or list's elements).
void names_in(const ptx::Operand& o, std::set<std::string>& out) {
    using K = ptx::Operand::Kind;
    if ((o.kind == K::symbol || o.kind == K::address) && !o.name.empty()) out.insert(o.name);
    for (const ptx::Operand& e : o.elements) names_in(e, out);
}

std::set<std::string> names_used(const ptx::Function& f) {
    std::set<std::string> out;
    for (const ptx::Statement& s : f.body) {
        if (s.kind != ptx::Statement::Kind::instruction) continue;
        for (const ptx::Operand& o : s.instruction.operands) names_in(o, out);
    }
    return out;
}

// Places `used` (in declaration order) after the reserved part, each followed by its red zone.
SharedLayout place(const std::vector<Declared>& declared, const std::set<std::string>& used) {
    SharedLayout layout;
    std::uint32_t at = reserved_shared_bytes + leading_red_zone;
    std::uint32_t declared_at = 0;
    std::uint32_t dynamic_align = 16;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;  // variables' [offset, offset + bytes)
    std::vector<std::string> dynamic;
    for (const Declared& d : declared) {
        const ptx::Variable& v = *d.variable;
        if (used.count(v.name) == 0) continue;
        const auto align = static_cast<std::uint32_t>(std::max<std::size_t>(variable_align(v), 1));
        if (d.dynamic) {
            dynamic_align = std::max(dynamic_align, align);
            dynamic.push_back(v.name);
            continue;
        }
        const auto bytes = static_cast<std::uint32_t>(variable_bytes(v));
        at = align_up(at, align);
        layout.variables.push_back({v.name, at, bytes});
        spans.emplace_back(at, at + bytes);
        at += bytes + shared_red_zone_bytes(bytes);
        declared_at = align_up(declared_at, align) + bytes;
    }
    layout.dynamic_offset = align_up(at, dynamic_align);
    layout.declared_bytes = declared_at;
    for (const std::string& name : dynamic) layout.variables.push_back({name, layout.dynamic_offset, 0});
    layout.check_state.assign(layout.dynamic_offset, shared_red_zone);
    // The reserved part is the system's (cooperative groups' scratch): never a finding.
    std::fill(layout.check_state.begin(), layout.check_state.begin() + reserved_shared_bytes, shared_written);
    for (const auto& [begin, end] : spans) {
        std::fill(layout.check_state.begin() + begin, layout.check_state.begin() + end, shared_unwritten);
    }
    return layout;
}

}  // namespace

std::uint32_t shared_red_zone_bytes(std::uint32_t bytes) noexcept {
    return std::clamp<std::uint32_t>(align_up(bytes, 16), 64, 1024);
}

void plan_shared_layouts(const ptx::Module& module, Program& program) {
    std::vector<Declared> declared;
    for (const ptx::Variable& v : module.variables) {
        if (v.space == ptx::Space::shared) declared.push_back({&v, is_dynamic(v)});
    }
    for (const ptx::Function& f : module.functions) {
        for (const ptx::Statement& s : f.body) {
            if (s.kind == ptx::Statement::Kind::variable && s.variable.space == ptx::Space::shared)
                declared.push_back({&s.variable, is_dynamic(s.variable)});
        }
    }
    std::set<std::string> shared_names;
    for (const Declared& d : declared) shared_names.insert(d.variable->name);

    // What each function names: shared variables, and functions (called, or their address taken).
    const std::size_t n = program.functions.size();
    std::vector<std::set<std::string>> shared_used(n);
    std::vector<std::vector<std::uint32_t>> callees(n);
    bool functions_use_shared = false;
    for (const ptx::Function& f : module.functions) {
        if (!f.has_body) continue;
        const std::uint32_t index = program.function_index.at(f.name);
        for (const std::string& name : names_used(f)) {
            if (shared_names.count(name) != 0) shared_used[index].insert(name);
            // A kernel named in another (a device-side launch) runs in its own window.
            if (auto it = program.function_index.find(name);
                it != program.function_index.end() && !program.functions[it->second].is_entry)
                callees[index].push_back(it->second);
        }
        if (!f.is_entry && !shared_used[index].empty()) functions_use_shared = true;
    }

    // A function's variables and those of every function it reaches.
    auto reached = [&](std::uint32_t entry) {
        std::set<std::string> used;
        std::vector<bool> seen(n, false);
        std::vector<std::uint32_t> todo{entry};
        seen[entry] = true;
        while (!todo.empty()) {
            const std::uint32_t f = todo.back();
            todo.pop_back();
            used.insert(shared_used[f].begin(), shared_used[f].end());
            for (std::uint32_t c : callees[f]) {
                if (!seen[c]) {
                    seen[c] = true;
                    todo.push_back(c);
                }
            }
        }
        return used;
    };

    program.shared_layouts.assign(n, SharedLayout{});
    const SharedLayout whole = place(declared, shared_names);
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!program.functions[i].is_entry) {
            if (functions_use_shared) program.shared_layouts[i] = whole;
            continue;
        }
        const std::set<std::string> used = reached(i);
        if (functions_use_shared) {
            program.shared_layouts[i] = whole;
            program.shared_layouts[i].declared_bytes = place(declared, used).declared_bytes;
        } else {
            program.shared_layouts[i] = place(declared, used);
        }
    }
}

}  // namespace xcuda::cpu
