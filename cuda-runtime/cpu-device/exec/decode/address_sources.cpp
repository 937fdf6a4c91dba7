#include "exec/decode/address_sources.hpp"

#include <algorithm>

namespace xcuda::cpu {
namespace {

constexpr std::size_t most_sources = 4;
constexpr int deepest = 24;

bool has_suffix(const ptx::Instruction& in, const char* word) {
    return std::find(in.suffixes.begin(), in.suffixes.end(), word) != in.suffixes.end();
}

void add(std::vector<AddressSource>& to, const AddressSource& s) {
    for (const AddressSource& t : to) {
        if (t.kind == s.kind && t.index == s.index && t.offset == s.offset && t.address == s.address) return;
    }
    if (to.size() < most_sources) to.push_back(s);
}

}  // namespace

AddressTracer::AddressTracer(const ptx::Function& function, const std::vector<ParamInfo>& kernel_params,
                             const ModuleSymbols& symbols)
    : function_(function), symbols_(symbols) {
    if (function.is_entry) {
        for (std::size_t i = 0; i < function.params.size() && i < kernel_params.size(); ++i) {
            kernel_params_[function.params[i].name] = {static_cast<std::uint32_t>(i),
                                                       static_cast<std::uint32_t>(kernel_params[i].offset)};
        }
    }
    for (const ptx::Statement& s : function.body) {
        if (s.kind != ptx::Statement::Kind::instruction) continue;
        const ptx::Instruction& in = s.instruction;
        // Every PTX instruction that writes a register names it first.
        if (!in.operands.empty() && in.operands[0].kind == ptx::Operand::Kind::reg)
            definitions_[in.operands[0].name].push_back(&in);
    }
}

std::vector<AddressSource> AddressTracer::sources(const ptx::Instruction& in) const {
    std::vector<AddressSource> out;
    for (const ptx::Operand& o : in.operands) {
        if (o.kind != ptx::Operand::Kind::address) continue;
        if (o.name.empty() || o.name[0] != '%') return out;  // [symbol]: the variable itself, found by its allocation
        std::set<std::string> seen;
        std::vector<Candidate> found;
        trace(o.name, seen, found, 0);
        for (const Candidate& c : found) {
            if (!c.address_of) add(out, c.source);
        }
        return out;
    }
    return out;
}

void AddressTracer::trace(const std::string& reg, std::set<std::string>& seen, std::vector<Candidate>& out,
                          int depth) const {
    if (depth > deepest || !seen.insert(reg).second) return;
    auto it = definitions_.find(reg);
    if (it == definitions_.end()) return;
    auto operand_reg = [&](const ptx::Instruction& in, std::size_t i) {
        if (i < in.operands.size() && in.operands[i].kind == ptx::Operand::Kind::reg)
            trace(in.operands[i].name, seen, out, depth + 1);
    };
    for (const ptx::Instruction* in : it->second) {
        const std::string& op = in->opcode;
        if (op == "ld" || op == "ldu") {
            from_load(*in, seen, out, depth);
        } else if (op == "mov" || op == "cvta" || op == "cvt") {
            if (in->operands.size() < 2) continue;
            const ptx::Operand& src = in->operands[1];
            if (src.kind == ptx::Operand::Kind::symbol) {
                if (auto v = symbols_.addresses.find(src.name); v != symbols_.addresses.end()) {
                    Candidate c;
                    c.source.kind = AddressSource::Kind::variable;
                    c.source.name = src.name;
                    c.source.address = v->second.address;
                    c.address_of = true;
                    out.push_back(c);
                }
            } else {
                operand_reg(*in, 1);
            }
        } else if (op == "add" || op == "sub" || op == "or" || op == "selp") {
            operand_reg(*in, 1);
            operand_reg(*in, 2);
        } else if (op == "mad") {  // mad.wide.s32 %rd, %r_index, size, %rd_base
            operand_reg(*in, 3);
        }
    }
}

void AddressTracer::from_load(const ptx::Instruction& in, std::set<std::string>& seen, std::vector<Candidate>& out,
                              int depth) const {
    if (in.operands.size() < 2 || in.operands[1].kind != ptx::Operand::Kind::address) return;
    // A pointer is 8 bytes: a narrower load is an index (a 32-bit `n` widened later), not a base.
    if (!has_suffix(in, "u64") && !has_suffix(in, "b64") && !has_suffix(in, "s64")) return;
    const ptx::Operand& a = in.operands[1];
    Candidate c;
    if (has_suffix(in, "param")) {
        auto p = kernel_params_.find(a.name);
        if (p == kernel_params_.end()) return;
        c.source.kind = AddressSource::Kind::parameter;
        c.source.index = p->second.first;
        c.source.offset = p->second.second + static_cast<std::uint32_t>(a.integer);
        out.push_back(c);
        return;
    }
    if (auto v = symbols_.addresses.find(a.name); v != symbols_.addresses.end()) {  // ld [table]
        c.source.kind = AddressSource::Kind::variable;
        c.source.name = a.name;
        c.source.address = v->second.address + static_cast<std::uint64_t>(a.integer);
        out.push_back(c);
        return;
    }
    if (a.name.empty() || a.name[0] != '%') return;
    // ld [%rd] where %rd is a variable's address: the pointer stored in that variable.
    std::vector<Candidate> bases;
    trace(a.name, seen, bases, depth + 1);
    for (Candidate b : bases) {
        if (!b.address_of) continue;
        b.address_of = false;
        b.source.address += static_cast<std::uint64_t>(a.integer);
        out.push_back(b);
    }
}

}  // namespace xcuda::cpu
