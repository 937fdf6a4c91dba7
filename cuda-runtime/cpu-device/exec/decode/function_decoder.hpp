// The decoder of one function: its frame layout, the names in scope, constants, labels. Emitter
// (decode.hpp) is the part of it an instruction family sees.
#pragma once

#include "exec/decode/decode.hpp"
#include "exec/engine.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace xcuda::cpu {

class AddressTracer;  // address_sources.hpp

// Module-scope symbols every function can name.
struct ModuleSymbols {
    struct Address {
        std::uint64_t address = 0;
        MemorySpace space = MemorySpace::global;
    };
    std::map<std::string, Address, std::less<>> addresses;             // .global / .const variables
    std::map<std::string, std::uint32_t, std::less<>> shared_offsets;  // .shared variables in the CTA window
};

// A declaration's bytes: of one element (a vector's components together), of the whole
// variable, and its alignment (.align, else the element's).
std::size_t variable_element_bytes(const ptx::Variable& v);
std::size_t variable_bytes(const ptx::Variable& v);
std::size_t variable_align(const ptx::Variable& v);

// Where a kernel's parameters go in its parameter buffer (PTX's layout: each at its alignment).
std::vector<ParamInfo> kernel_param_layout(const ptx::Function& kernel, std::size_t* total_bytes);

std::string instruction_text(const ptx::Instruction& in);

class FunctionDecoder {
public:
    struct Decl {
        enum class Kind : std::uint8_t { reg, param, local } kind = Kind::reg;
        std::uint32_t offset = 0;  // reg: slot (component 0); local: offset in the frame's local window
        unsigned size = 0;         // reg: bytes per lane; 0 for a predicate
        int vector = 1;
        std::uint32_t components[4] = {0, 0, 0, 0};
        ParamSlot param;  // Kind::param
    };

    FunctionDecoder(const ptx::Module& module, const ptx::Function& function, Program& program, std::uint32_t index,
                    const ModuleSymbols& symbols);
    ~FunctionDecoder();
    void run();

    Program& program() { return program_; }
    std::uint32_t index() const { return index_; }
    bool is_entry() const { return function_.is_entry; }
    const ModuleSymbols& symbols() const { return symbols_; }
    std::optional<std::size_t> kernel_param_offset(const std::string& name) const;

    const Decl* find(const std::string& name) const;
    std::uint32_t constant(std::uint64_t bits, unsigned bytes);
    std::uint32_t temporary(unsigned bytes);  // 0 bytes: a predicate mask
    std::uint32_t scratch(unsigned bytes);    // shared by every `_` sink of that size
    std::uint32_t carry();                    // the carry flag's mask slot
    Inst& emit(Handler h, Flow flow);
    void add_fixup(std::size_t inst, const std::string& label);
    std::size_t branch_table(const std::string& name) const;
    std::string where() const;

private:
    std::uint32_t allocate(std::uint32_t bytes, std::uint32_t align);
    void declare(const std::string& name, Decl d);
    void declare_registers(const ptx::RegisterDecl& r);
    void declare_param(const ptx::Variable& v, std::vector<ParamSlot>* into);
    void declare_local(const ptx::Variable& v);
    std::uint32_t new_site(const ptx::Instruction& in);
    // A -G module: this function's names of registers, locals, params and labels, for the
    // debugger (debug_symbols.cpp).
    void record_debug_names() const;

    const ptx::Module& module_;
    const ptx::Function& function_;
    Program& program_;
    std::uint32_t index_;
    const ModuleSymbols& symbols_;
    std::vector<ParamInfo> kernel_params_;
    std::unordered_map<std::string, std::size_t> kernel_param_names_;

    std::uint32_t frame_bytes_ = 0;
    std::uint32_t local_bytes_ = 0;
    std::unordered_map<std::string, std::vector<Decl>> names_;
    std::vector<std::vector<std::string>> scopes_;
    std::map<std::pair<std::uint64_t, unsigned>, std::uint32_t> constants_;
    struct PendingConstant {
        std::uint32_t offset;
        std::uint64_t bits;
        unsigned bytes;
    };
    std::vector<PendingConstant> pending_constants_;
    std::map<unsigned, std::uint32_t> scratch_;
    std::uint32_t carry_ = no_guard;
    std::unordered_map<std::string, std::uint32_t> labels_;
    std::vector<std::pair<std::size_t, std::string>> fixups_;
    std::vector<std::tuple<std::size_t, std::size_t, std::string>> table_fixups_;
    std::unordered_map<std::string, std::size_t> branch_table_names_;

    std::unique_ptr<AddressTracer> tracer_;  // made at the first memory instruction
    const ptx::Instruction* current_ = nullptr;
    std::uint32_t site_ = 0;
    std::uint32_t guard_ = no_guard;
    std::uint32_t guard_xor_ = 0;
    ptx::Loc last_loc_;
};

}  // namespace xcuda::cpu
