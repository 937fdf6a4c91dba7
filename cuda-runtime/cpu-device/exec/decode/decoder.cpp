// PTX functions to flat Inst arrays: frames, names and scopes, constants, labels, locations, and
// the module's variables and shared window. The instructions themselves are decoded by the
// families that registered their opcodes (ops_*.cpp).
#include "exec/decode/decode.hpp"
#include "exec/decode/address_sources.hpp"
#include "exec/decode/function_decoder.hpp"
#include "exec/decode/opcodes.hpp"
#include "exec/decode/shared_layout.hpp"
#include "exec/ops/special_registers.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace xcuda::cpu {
namespace {

constexpr std::uint32_t lane_array_alignment = 32;

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

constexpr std::size_t family_index(OpFamily f) { return static_cast<std::size_t>(f); }

// Each opcode's decoders, its families' (opcodes.cpp) in the table's order. Each family registers
// its own opcodes; one the table does not give to a family that registers it, or the reverse, is
// a mistake in the table, refused on the first decode, as is a table out of order.
const OpTable& op_table() {
    static const OpTable table = [] {
        std::array<OpTable, family_index(OpFamily::cluster) + 1> by_family;
        register_integer_ops(by_family[family_index(OpFamily::integer)]);
        register_bits_ops(by_family[family_index(OpFamily::bits)]);
        register_float_ops(by_family[family_index(OpFamily::floating)]);
        register_compare_ops(by_family[family_index(OpFamily::compare)]);
        register_convert_ops(by_family[family_index(OpFamily::convert)]);
        register_memory_ops(by_family[family_index(OpFamily::memory)]);
        register_control_ops(by_family[family_index(OpFamily::control)]);
        register_warp_ops(by_family[family_index(OpFamily::warp)]);
        register_atomic_ops(by_family[family_index(OpFamily::atomic)]);
        register_move_ops(by_family[family_index(OpFamily::move)]);
        register_mbarrier_ops(by_family[family_index(OpFamily::mbarrier)]);
        register_cluster_ops(by_family[family_index(OpFamily::cluster)]);
        const auto& rows = opcode_table();
        const auto out_of_order = [](const OpcodeRow& a, const OpcodeRow& b) { return !(a.opcode < b.opcode); };
        if (std::adjacent_find(rows.begin(), rows.end(), out_of_order) != rows.end()) {
            throw std::logic_error("the opcode table must be sorted by opcode, each once (find_opcode searches it)");
        }
        OpTable t;
        for (const OpcodeRow& row : rows) {
            for (OpFamily family : row.families) {
                OpTable& own = by_family[family_index(family)];
                const auto it = own.find(row.opcode);
                if (it == own.end()) {
                    throw std::logic_error("the opcode table gives `" + std::string(row.opcode) +
                                           "` to a family that does not register it");
                }
                auto& decoders = t[std::string(row.opcode)];
                decoders.insert(decoders.end(), it->second.begin(), it->second.end());
                own.erase(it);
            }
        }
        for (const OpTable& own : by_family) {
            if (!own.empty()) {
                throw std::logic_error("`" + own.begin()->first +
                                       "` is registered by a family the opcode table does not list for it");
            }
        }
        return t;
    }();
    return table;
}

}  // namespace

std::size_t variable_element_bytes(const ptx::Variable& v) {
    const Ty t = parse_type(v.type);
    const unsigned size = t == Ty::pred ? 1 : type_size(t);
    return std::size_t{size} * static_cast<std::size_t>(std::max(1, v.vector));
}

std::size_t variable_bytes(const ptx::Variable& v) {
    std::size_t n = variable_element_bytes(v);
    for (std::uint64_t d : v.dims) n *= static_cast<std::size_t>(d);
    return n;
}

std::size_t variable_align(const ptx::Variable& v) {
    if (v.align > 0) return static_cast<std::size_t>(v.align);
    return std::max<std::size_t>(1, variable_element_bytes(v));
}

namespace {

std::string operand_text(const ptx::Operand& o) {
    using K = ptx::Operand::Kind;
    std::string s = o.negated ? "!" : "";
    switch (o.kind) {
        case K::none: return "_";
        case K::reg:
            s += o.name + (o.vector_select.empty() ? "" : "." + o.vector_select);
            return o.pair.empty() ? s : s + "|" + o.pair;
        case K::integer: return s + std::to_string(o.integer);
        case K::floating: {
            char buf[32];
            std::snprintf(buf, sizeof buf, o.is_double ? "0d%016llX" : "0f%08llX",
                          static_cast<unsigned long long>(o.bits));
            return s + buf;
        }
        case K::symbol: return s + o.name;
        case K::address:
            s += "[" + o.name;
            if (o.integer != 0 || o.name.empty()) s += (o.name.empty() ? "" : "+") + std::to_string(o.integer);
            return s + "]";
        case K::vector:
        case K::list: {
            s += o.kind == K::vector ? "{" : "(";
            for (std::size_t i = 0; i < o.elements.size(); ++i) s += (i ? ", " : "") + operand_text(o.elements[i]);
            return s + (o.kind == K::vector ? "}" : ")");
        }
    }
    return s;
}

}  // namespace

std::string instruction_text(const ptx::Instruction& in) {
    std::string s;
    if (!in.guard.empty()) s += "@" + std::string(in.guard_negated ? "!" : "") + in.guard + " ";
    s += in.opcode;
    for (const auto& x : in.suffixes) s += "." + x;
    for (std::size_t i = 0; i < in.operands.size(); ++i) s += (i ? ", " : " ") + operand_text(in.operands[i]);
    return s;
}

// ---------------------------------------------------------------------------------------------
// Module variables and the shared window.

void decode_variables(const ptx::Module& module, Program& p) {
    p.files = module.files;
    p.ptx_version = module.version_major * 10 + module.version_minor;
    p.target = module.target;
    for (const ptx::Variable& v : module.variables) {
        if (v.space != ptx::Space::global && v.space != ptx::Space::const_) continue;  // .shared: shared_layout.cpp
        ModuleVariable mv;
        mv.name = v.name;
        mv.space = v.space;
        mv.bytes = variable_bytes(v);
        mv.align = std::max<std::size_t>(variable_align(v), 1);
        mv.is_extern = v.is_extern;
        mv.image.assign(mv.bytes, std::byte{0});
        const std::size_t element = variable_element_bytes(v) / static_cast<std::size_t>(std::max(1, v.vector));
        for (std::size_t i = 0; i < v.init.size(); ++i) {
            const std::size_t at = i * element;
            if (at + element > mv.bytes) break;
            const ptx::InitValue& iv = v.init[i];
            if (iv.kind == ptx::InitValue::Kind::symbol) {
                mv.relocations.push_back({at, element, iv.symbol, iv.offset, iv.generic});
            } else {
                std::memcpy(mv.image.data() + at, &iv.bits, element);  // little-endian: the low bytes
            }
        }
        p.variables.push_back(std::move(mv));
    }
}

// ---------------------------------------------------------------------------------------------
// FunctionDecoder

std::vector<ParamInfo> kernel_param_layout(const ptx::Function& kernel, std::size_t* total_bytes) {
    std::vector<ParamInfo> out;
    std::size_t at = 0;
    for (const ptx::Variable& v : kernel.params) {
        ParamInfo p;
        p.size = variable_bytes(v);
        p.align = variable_align(v);
        at = (at + p.align - 1) / p.align * p.align;
        p.offset = at;
        at += p.size;
        out.push_back(p);
    }
    if (total_bytes != nullptr) *total_bytes = at;
    return out;
}

FunctionDecoder::FunctionDecoder(const ptx::Module& module, const ptx::Function& function, Program& program,
                                 std::uint32_t index, const ModuleSymbols& symbols)
    : module_(module), function_(function), program_(program), index_(index), symbols_(symbols) {
    if (function.is_entry) {
        kernel_params_ = kernel_param_layout(function, nullptr);
        for (std::size_t i = 0; i < function.params.size(); ++i) kernel_param_names_[function.params[i].name] = i;
    }
}

std::optional<std::size_t> FunctionDecoder::kernel_param_offset(const std::string& name) const {
    auto it = kernel_param_names_.find(name);
    if (it == kernel_param_names_.end()) return std::nullopt;
    return kernel_params_[it->second].offset;
}

std::size_t FunctionDecoder::branch_table(const std::string& name) const {
    auto it = branch_table_names_.find(name);
    if (it == branch_table_names_.end()) throw DecodeError(where() + "no .branchtargets named " + name);
    return it->second;
}

std::uint32_t FunctionDecoder::allocate(std::uint32_t bytes, std::uint32_t align) {
    frame_bytes_ = align_up(frame_bytes_, align);
    const std::uint32_t at = frame_bytes_;
    frame_bytes_ += bytes;
    return at;
}

void FunctionDecoder::declare(const std::string& name, Decl d) {
    auto& stack = names_[name];
    stack.push_back(d);
    if (!scopes_.empty()) scopes_.back().push_back(name);
}

const FunctionDecoder::Decl* FunctionDecoder::find(const std::string& name) const {
    auto it = names_.find(name);
    if (it == names_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
}

void FunctionDecoder::declare_registers(const ptx::RegisterDecl& r) {
    const Ty t = parse_type(r.type);
    if (t == Ty::none)
        throw DecodeError("PTX line " + std::to_string(r.source_line) + ": unknown register type ." + r.type);
    const unsigned size = type_size(t);
    auto one = [&](const std::string& name) {
        Decl d;
        d.kind = Decl::Kind::reg;
        d.size = t == Ty::pred ? 0 : size;
        d.vector = std::max(1, r.vector);
        for (int c = 0; c < d.vector; ++c) {
            const std::uint32_t slot = t == Ty::pred ? allocate(4, 4) : allocate(32 * size, lane_array_alignment);
            if (c == 0) d.offset = slot;
            d.components[c] = slot;
        }
        declare(name, d);
    };
    if (r.count == 0) {
        one(r.name);
    } else {
        for (int i = 0; i < r.count; ++i) one(r.name + std::to_string(i));
    }
}

void FunctionDecoder::declare_param(const ptx::Variable& v, std::vector<ParamSlot>* into) {
    Decl d;
    d.kind = Decl::Kind::param;
    d.param.size = static_cast<std::uint32_t>(std::max<std::size_t>(variable_bytes(v), 1));
    d.param.offset = allocate(32 * d.param.size, lane_array_alignment);
    declare(v.name, d);
    if (into != nullptr) into->push_back(d.param);
}

void FunctionDecoder::declare_local(const ptx::Variable& v) {
    Decl d;
    d.kind = Decl::Kind::local;
    const auto align = static_cast<std::uint32_t>(std::max<std::size_t>(variable_align(v), 1));
    local_bytes_ = align_up(local_bytes_, align);
    d.offset = local_bytes_;
    local_bytes_ += static_cast<std::uint32_t>(variable_bytes(v));
    declare(v.name, d);
}

std::uint32_t FunctionDecoder::constant(std::uint64_t bits, unsigned bytes) {
    if (bytes == 0 || bytes > 8) throw DecodeError(where() + "a constant of " + std::to_string(bytes) + " bytes");
    const auto key = std::make_pair(bits & (bytes == 8 ? ~0ull : ((1ull << (8 * bytes)) - 1)), bytes);
    auto it = constants_.find(key);
    if (it != constants_.end()) return it->second;
    const std::uint32_t at = allocate(32 * bytes, lane_array_alignment);
    constants_.emplace(key, at);
    pending_constants_.push_back({at, key.first, bytes});
    return at;
}

std::uint32_t FunctionDecoder::temporary(unsigned bytes) {
    return bytes == 0 ? allocate(4, 4) : allocate(32 * bytes, lane_array_alignment);
}

std::uint32_t FunctionDecoder::scratch(unsigned bytes) {
    auto it = scratch_.find(bytes);
    if (it != scratch_.end()) return it->second;
    const std::uint32_t at = temporary(bytes);
    scratch_.emplace(bytes, at);
    return at;
}

std::uint32_t FunctionDecoder::carry() {
    if (carry_ == no_guard) carry_ = temporary(0);
    return carry_;
}

std::string FunctionDecoder::where() const {
    return "PTX line " + std::to_string(current_ != nullptr ? current_->source_line : function_.source_line) + ": ";
}

FunctionDecoder::~FunctionDecoder() = default;

std::uint32_t FunctionDecoder::new_site(const ptx::Instruction& in) {
    Site s;
    s.function = index_;
    s.loc = in.loc;
    s.text = instruction_text(in);
    s.opcode = in.opcode;
    for (const auto& x : in.suffixes) s.opcode += "." + x;
    if (in.opcode == "ld" || in.opcode == "ldu" || in.opcode == "st" || in.opcode == "atom" || in.opcode == "red") {
        if (!tracer_) tracer_ = std::make_unique<AddressTracer>(function_, kernel_params_, symbols_);
        s.address_sources = tracer_->sources(in);
    }
    program_.sites.push_back(std::move(s));
    return static_cast<std::uint32_t>(program_.sites.size() - 1);
}

Inst& FunctionDecoder::emit(Handler h, Flow flow) {
    Inst in;
    in.exec = h;
    in.flow = flow;
    in.guard = guard_;
    in.guard_xor = guard_xor_;
    in.site = site_;
    program_.code.push_back(in);
    return program_.code.back();
}

void FunctionDecoder::add_fixup(std::size_t inst, const std::string& label) { fixups_.push_back({inst, label}); }

void FunctionDecoder::run() {
    FunctionInfo& info = program_.functions[index_];
    info.entry_pc = static_cast<std::uint32_t>(program_.code.size());
    scopes_.emplace_back();
    if (!function_.is_entry) {
        // A .func's parameters and results: per-lane param storage of its frame.
        for (const auto& v : function_.params) {
            if (v.space == ptx::Space::reg) {
                ptx::RegisterDecl r;
                r.type = v.type;
                r.name = v.name;
                r.source_line = v.source_line;
                declare_registers(r);
            } else {
                declare_param(v, &info.params);
            }
        }
        for (const auto& v : function_.returns) declare_param(v, &info.returns);
    }
    const OpTable& ops = op_table();
    for (const ptx::Statement& st : function_.body) {
        using K = ptx::Statement::Kind;
        switch (st.kind) {
            case K::scope_begin: scopes_.emplace_back(); break;
            case K::scope_end:
                if (scopes_.size() > 1) {
                    for (const auto& name : scopes_.back()) names_[name].pop_back();
                    scopes_.pop_back();
                }
                break;
            case K::registers: declare_registers(st.registers); break;
            case K::variable:
                if (st.variable.space == ptx::Space::param) {
                    declare_param(st.variable, nullptr);
                } else if (st.variable.space == ptx::Space::local) {
                    declare_local(st.variable);
                }  // .shared: laid out by shared_layout.cpp; .global/.const in a body are module-scope
                break;
            case K::label: labels_[st.label] = static_cast<std::uint32_t>(program_.code.size()); break;
            case K::branch_targets: {
                std::vector<std::uint32_t> table(st.targets.size());
                const std::size_t at = program_.branch_tables.size();
                program_.branch_tables.push_back(std::move(table));
                for (std::size_t i = 0; i < st.targets.size(); ++i) table_fixups_.push_back({at, i, st.targets[i]});
                branch_table_names_[st.label] = at;
                break;
            }
            case K::call_prototype:
            case K::call_targets:
            case K::pragma: break;
            case K::instruction: {
                const ptx::Instruction& in = st.instruction;
                current_ = &in;
                last_loc_ = in.loc;
                site_ = new_site(in);
                guard_ = no_guard;
                guard_xor_ = 0;
                if (!in.guard.empty()) {
                    const Decl* g = find(in.guard);
                    if (g == nullptr || g->kind != Decl::Kind::reg || g->size != 0) {
                        throw DecodeError(where() + "the guard " + in.guard + " is not a declared predicate");
                    }
                    guard_ = g->offset;
                    guard_xor_ = in.guard_negated ? 0xFFFFFFFFu : 0u;
                }
                auto it = ops.find(in.opcode);
                const bool comparison = in.opcode == "setp" || in.opcode == "set";
                Emitter e(*this, in, parse_suffixes(in.suffixes, comparison));
                if (it == ops.end() && find_opcode(in.opcode) == nullptr) {
                    throw DecodeError(where() + "`" + in.opcode + "` is not a PTX instruction");
                }
                bool taken = false;
                if (it != ops.end()) {
                    for (DecodeFn fn : it->second) {
                        if ((taken = fn(e))) break;
                    }
                }
                if (!taken) e.unsupported("the CPU device does not implement `" + e.opcode_text() + "`");
                current_ = nullptr;
                break;
            }
        }
    }
    // Falling off the end of a function returns (a kernel: exits).
    guard_ = no_guard;
    guard_xor_ = 0;
    ptx::Instruction implicit;
    implicit.opcode = "ret";
    implicit.loc = last_loc_;
    site_ = new_site(implicit);
    emit(nullptr, function_.is_entry ? Flow::exit : Flow::ret);

    for (const auto& [inst, label] : fixups_) {
        auto it = labels_.find(label);
        if (it == labels_.end()) throw DecodeError("in " + function_.name + ": branch to undefined label " + label);
        program_.code[inst].target = it->second;
    }
    for (const auto& [table, i, label] : table_fixups_) {
        auto it = labels_.find(label);
        if (it == labels_.end())
            throw DecodeError("in " + function_.name + ": .branchtargets names undefined label " + label);
        program_.branch_tables[table][i] = it->second;
    }
    if (program_.debug) record_debug_names();
    frame_bytes_ = align_up(frame_bytes_, 64);
    info.end_pc = static_cast<std::uint32_t>(program_.code.size());
    info.frame_bytes = frame_bytes_;
    info.local_bytes = local_bytes_;
    info.frame_image.assign(frame_bytes_, std::byte{0});
    for (const auto& c : pending_constants_) {
        for (unsigned lane = 0; lane < 32; ++lane) {
            std::memcpy(info.frame_image.data() + c.offset + lane * c.bytes, &c.bits, c.bytes);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Emitter

Program& Emitter::program() { return f_.program(); }
std::uint32_t Emitter::function_index() const { return f_.index(); }

void Emitter::error(const std::string& message) const {
    throw DecodeError(f_.where() + "`" + instruction_text(in_) + "`: " + message);
}

std::string Emitter::opcode_text() const {
    std::string s = in_.opcode;
    for (const auto& x : in_.suffixes) s += "." + x;
    return s;
}

const ptx::Operand& Emitter::operand(std::size_t i) const {
    if (i >= in_.operands.size()) {
        error("expected at least " + std::to_string(i + 1) + " operands, got " + std::to_string(in_.operands.size()));
    }
    return in_.operands[i];
}

const ptx::Operand& Emitter::as_register(const ptx::Operand& o) {
    // Registers may be declared without a '%' (NVRTC's `temp_param_reg`): the parser reads such a
    // name as a symbol; a declared register of that name is what it means.
    if (o.kind != ptx::Operand::Kind::symbol) return o;
    const FunctionDecoder::Decl* d = f_.find(o.name);
    if (d == nullptr || d->kind != FunctionDecoder::Decl::Kind::reg) return o;
    renamed_ = o;
    renamed_.kind = ptx::Operand::Kind::reg;
    return renamed_;
}

unsigned Emitter::register_size(const ptx::Operand& o_in) const {
    const ptx::Operand& o = const_cast<Emitter*>(this)->as_register(o_in);
    if (o.kind != ptx::Operand::Kind::reg) return 0;
    const FunctionDecoder::Decl* d = f_.find(o.name);
    return d != nullptr && d->kind == FunctionDecoder::Decl::Kind::reg ? d->size : 0;
}

namespace {

std::uint64_t float_bits_as(const ptx::Operand& o, Ty t) {
    if (t == Ty::f32 || t == Ty::tf32) {
        if (!o.is_double) return o.bits;
        double d;
        std::memcpy(&d, &o.bits, 8);
        const float f = static_cast<float>(d);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
    }
    if (t == Ty::f64) {
        if (o.is_double) return o.bits;
        float f;
        const auto b32 = static_cast<std::uint32_t>(o.bits);
        std::memcpy(&f, &b32, 4);
        const double d = f;
        std::uint64_t b;
        std::memcpy(&b, &d, 8);
        return b;
    }
    return o.bits;  // a float literal given to an integer-typed operand keeps its bits
}

}  // namespace

std::uint32_t Emitter::constant(std::uint64_t bits, unsigned bytes) { return f_.constant(bits, bytes); }
std::uint32_t Emitter::temporary(unsigned bytes) { return f_.temporary(bytes); }
std::uint32_t Emitter::carry() { return f_.carry(); }

std::uint32_t Emitter::source(const ptx::Operand& o_in, Ty t) {
    using K = ptx::Operand::Kind;
    const ptx::Operand& o = as_register(o_in);
    const unsigned size = type_size(t);
    switch (o.kind) {
        case K::integer: return f_.constant(static_cast<std::uint64_t>(o.integer), size);
        case K::floating: return f_.constant(float_bits_as(o, t), size);
        case K::reg: {
            const FunctionDecoder::Decl* d = f_.find(o.name);
            if (d != nullptr && d->kind == FunctionDecoder::Decl::Kind::reg) {
                std::uint32_t slot = d->offset;
                if (!o.vector_select.empty()) {
                    const int c = std::string("xyzw").find(o.vector_select[0]);
                    if (c < 0 || c >= d->vector) error("no component ." + o.vector_select + " in " + o.name);
                    slot = d->components[c];
                }
                if (d->size != size && !(t == Ty::pred && d->size == 0)) {
                    error("register " + o.name + " holds " + std::to_string(d->size) + " bytes, the instruction's ." +
                          type_name(t) + " operand " + std::to_string(size));
                }
                return slot;
            }
            const std::string full = o.name + (o.vector_select.empty() ? "" : "." + o.vector_select);
            if (const SpecialRegister* sr = find_special_register(full)) {
                const std::uint32_t tmp = f_.temporary(sr->bytes);
                Inst& in = emit(sr->read, Flow::plain);
                in.op[0] = tmp;
                in.imm = sr->argument;
                in.guard = no_guard;  // materialising is harmless for every lane
                in.guard_xor = 0;
                if (sr->bytes != size)
                    error("special register " + full + " is " + std::to_string(sr->bytes * 8) + " bits");
                return tmp;
            }
            error("undeclared register " + o.name);
        }
        case K::symbol: {
            // The symbol's address (or a function's handle) as a value.
            const std::uint32_t tmp = f_.temporary(size);
            emit_symbol_address(o.name, 0, tmp, size);
            return tmp;
        }
        case K::none: return f_.scratch(size);
        default: error("operand " + std::to_string(static_cast<int>(o.kind)) + " is not a value");
    }
}

std::uint32_t Emitter::destination(const ptx::Operand& o_in, Ty t) {
    const ptx::Operand& o = as_register(o_in);
    const unsigned size = type_size(t);
    if (o.kind == ptx::Operand::Kind::none) return f_.scratch(size);
    if (o.kind != ptx::Operand::Kind::reg) error("the destination must be a register");
    const FunctionDecoder::Decl* d = f_.find(o.name);
    if (d == nullptr || d->kind != FunctionDecoder::Decl::Kind::reg) error("undeclared register " + o.name);
    std::uint32_t slot = d->offset;
    if (!o.vector_select.empty()) {
        const int c = std::string("xyzw").find(o.vector_select[0]);
        if (c < 0 || c >= d->vector) error("no component ." + o.vector_select + " in " + o.name);
        slot = d->components[c];
    }
    if (d->size != size) {
        error("register " + o.name + " holds " + std::to_string(d->size) + " bytes, the instruction's ." +
              type_name(t) + " result " + std::to_string(size));
    }
    return slot;
}

std::uint32_t Emitter::predicate(const ptx::Operand& o_in, bool* negated) {
    const ptx::Operand& o = as_register(o_in);
    if (negated != nullptr) *negated = o.negated;
    if (o.kind == ptx::Operand::Kind::integer) return f_.constant(o.integer != 0 ? 0xFFFFFFFFu : 0u, 4);
    if (o.kind != ptx::Operand::Kind::reg) error("expected a predicate register");
    const FunctionDecoder::Decl* d = f_.find(o.name);
    if (d == nullptr || d->kind != FunctionDecoder::Decl::Kind::reg || d->size != 0) {
        error(o.name + " is not a declared predicate");
    }
    return d->offset;
}

std::uint32_t Emitter::predicate_destination(const ptx::Operand& o) {
    if (o.kind == ptx::Operand::Kind::none) return f_.scratch(0);
    return predicate(o, nullptr);
}

void Emitter::emit_symbol_address(const std::string& name, std::int64_t addend, std::uint32_t dst, unsigned size) {
    // Function-scope symbols first (they shadow module ones).
    if (const FunctionDecoder::Decl* d = f_.find(name)) {
        if (d->kind == FunctionDecoder::Decl::Kind::local) {
            Inst& in = emit(special_local_address(), Flow::plain);
            in.op[0] = dst;
            in.imm = static_cast<std::int64_t>(d->offset) + addend;
            in.size = static_cast<std::uint8_t>(size);
            return;
        }
        error("the address of " + name + " cannot be taken here");
    }
    if (f_.is_entry()) {
        if (auto off = f_.kernel_param_offset(name)) {
            emit_constant_move(dst, static_cast<std::uint64_t>(*off + addend), size);
            return;
        }
    }
    const ModuleSymbols& m = f_.symbols();
    if (auto it = m.addresses.find(name); it != m.addresses.end()) {
        emit_constant_move(dst, it->second.address + static_cast<std::uint64_t>(addend), size);
        return;
    }
    if (auto it = m.shared_offsets.find(name); it != m.shared_offsets.end()) {
        emit_constant_move(dst, it->second + static_cast<std::uint64_t>(addend), size);
        return;
    }
    if (auto it = program().function_index.find(name); it != program().function_index.end()) {
        emit_constant_move(dst, function_handle(it->second), size);
        return;
    }
    if (name == "WARP_SZ") {  // PTX's one predefined constant
        emit_constant_move(dst, 32 + static_cast<std::uint64_t>(addend), size);
        return;
    }
    error("undeclared symbol " + name);
}

void Emitter::emit_constant_move(std::uint32_t dst, std::uint64_t value, unsigned size) {
    Inst& in = emit(copy_lanes_handler(size), Flow::plain);
    in.op[0] = dst;
    in.op[1] = f_.constant(value, size);
    in.size = static_cast<std::uint8_t>(size);
}

Emitter::Address Emitter::address(const ptx::Operand& o) {
    if (o.kind != ptx::Operand::Kind::address) error("expected an address [..]");
    Address a;
    a.offset = o.integer;
    if (o.name.empty()) return a;
    if (const FunctionDecoder::Decl* d = f_.find(o.name)) {
        switch (d->kind) {
            case FunctionDecoder::Decl::Kind::reg:
                a.base = d->offset;
                a.base_bytes = d->size;
                if (d->size != 4 && d->size != 8) error("address register " + o.name + " must be 32 or 64 bits");
                return a;
            case FunctionDecoder::Decl::Kind::param:
                a.param = &d->param;
                a.symbol_space = MemorySpace::param;
                return a;
            case FunctionDecoder::Decl::Kind::local:
                a.local_symbol = true;
                a.offset += d->offset;
                a.symbol_space = MemorySpace::local;
                return a;
        }
    }
    if (f_.is_entry()) {
        if (auto off = f_.kernel_param_offset(o.name)) {
            a.kernel_param = true;
            a.offset += static_cast<std::int64_t>(*off);
            a.symbol_space = MemorySpace::param;
            return a;
        }
    }
    const ModuleSymbols& m = f_.symbols();
    if (auto it = m.addresses.find(o.name); it != m.addresses.end()) {
        a.offset += static_cast<std::int64_t>(it->second.address);
        a.symbol_space = it->second.space;
        return a;
    }
    if (auto it = m.shared_offsets.find(o.name); it != m.shared_offsets.end()) {
        a.offset += static_cast<std::int64_t>(it->second);
        a.symbol_space = MemorySpace::shared;
        return a;
    }
    if (find_special_register(o.name) != nullptr) error("a special register cannot be an address base");
    error("undeclared symbol or register " + o.name + " in an address");
}

std::uint32_t Emitter::label(const ptx::Operand& o) {
    if (o.kind != ptx::Operand::Kind::symbol) error("expected a label");
    f_.add_fixup(program().code.size(), o.name);
    return 0;
}

Inst& Emitter::emit(Handler h, Flow flow) { return f_.emit(h, flow); }

Inst& Emitter::emit_operation(Handler h, Ty d, std::initializer_list<Ty> sources) {
    return emit_operation(h, d, sources.begin(), sources.size());
}

Inst& Emitter::emit_operation(Handler h, Ty d, int count) {
    const Ty same[] = {d, d, d, d, d};
    return emit_operation(h, d, same, static_cast<std::size_t>(count));
}

Inst& Emitter::emit_operation(Handler h, Ty d, const Ty* sources, std::size_t count) {
    std::uint32_t slots[std::extent_v<decltype(Inst::op)>] = {};
    for (std::size_t i = 1; i <= count; ++i) slots[i] = source(operand(i), sources[i - 1]);
    slots[0] = destination(operand(0), d);
    Inst& in = emit(h);
    for (std::size_t i = 0; i <= count; ++i) in.op[i] = slots[i];
    return in;
}

const ParamSlot& Emitter::param_slot(const ptx::Operand& o) {
    const std::string& name = o.name;  // a plain name or an address's base: the same field
    const FunctionDecoder::Decl* d = f_.find(name);
    if (d == nullptr || d->kind != FunctionDecoder::Decl::Kind::param) error(name + " is not a .param variable");
    return d->param;
}

std::optional<std::uint32_t> Emitter::function_named(const std::string& name) {
    auto it = program().function_index.find(name);
    if (it == program().function_index.end()) return std::nullopt;
    return it->second;
}

std::size_t Emitter::branch_table(const ptx::Operand& o) { return f_.branch_table(o.name); }

void Emitter::unsupported(const std::string& why) {
    Inst& in = emit(nullptr, Flow::unsupported);
    program().unsupported_reasons.push_back(why);
    in.imm = static_cast<std::int64_t>(program().unsupported_reasons.size() - 1);
}

}  // namespace xcuda::cpu

namespace xcuda::cpu {

void decode_functions(const ptx::Module& module, Program& program,
                      const std::vector<std::uint64_t>& variable_addresses) {
    ModuleSymbols symbols;
    for (std::size_t i = 0; i < program.variables.size(); ++i) {
        const ModuleVariable& v = program.variables[i];
        symbols.addresses[v.name] = {variable_addresses[i],
                                     v.space == ptx::Space::const_ ? MemorySpace::constant : MemorySpace::global};
    }
    // Every function is known before any body is decoded: calls may name later functions.
    std::vector<const ptx::Function*> bodies;
    for (const ptx::Function& f : module.functions) {
        auto it = program.function_index.find(f.name);
        if (it == program.function_index.end()) {
            FunctionInfo info;
            info.name = f.name;
            info.is_entry = f.is_entry;
            info.is_extern = !f.has_body;
            program.function_index.emplace(f.name, static_cast<std::uint32_t>(program.functions.size()));
            program.functions.push_back(std::move(info));
            bodies.push_back(f.has_body ? &f : nullptr);
        } else if (f.has_body) {  // a declaration earlier, the definition now
            program.functions[it->second].is_extern = false;
            bodies[it->second] = &f;
        }
    }
    plan_shared_layouts(module, program);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (bodies[i] == nullptr) continue;
        // Each function's code addresses shared variables where its layout puts them.
        symbols.shared_offsets.clear();
        for (const SharedVariable& s : program.shared_layouts[i].variables) symbols.shared_offsets[s.name] = s.offset;
        FunctionDecoder d(module, *bodies[i], program, static_cast<std::uint32_t>(i), symbols);
        d.run();
    }
}

}  // namespace xcuda::cpu
