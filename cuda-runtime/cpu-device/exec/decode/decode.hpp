// What an instruction family (ops_*.cpp) sees while its instructions are decoded: the parsed
// suffixes, operand resolution to frame offsets, and emitting Insts. Each family registers one
// decode function per opcode; the decoder (decoder.cpp) owns frames, labels and locations.
#pragma once

#include "exec/decode/program.hpp"

#include <xcuda/cpu/finding.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::cpu {

// PTX fundamental types, as instructions name them.
enum class Ty : std::uint8_t {
    none,
    pred,
    b8,
    b16,
    b32,
    b64,
    b128,
    u8,
    u16,
    u32,
    u64,
    s8,
    s16,
    s32,
    s64,
    f16,
    f16x2,
    bf16,
    bf16x2,
    f32,
    f64,
    tf32,
    e4m3,
    e5m2,
    e4m3x2,
    e5m2x2,
};
Ty parse_type(std::string_view name) noexcept;  // Ty::none when not a type
unsigned type_size(Ty t) noexcept;              // bytes; pred: 4 (a lane mask); none: 0
bool is_signed(Ty t) noexcept;
bool is_float(Ty t) noexcept;  // f16 .. f64, tf32 and the 8-bit float types
const char* type_name(Ty t) noexcept;

enum class Rounding : std::uint8_t { none, rn, rz, rm, rp, rna, rni, rzi, rmi, rpi, rs };
enum class Cmp : std::uint8_t { none, eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };
enum class BoolOp : std::uint8_t { none, and_, or_, xor_ };
enum class Semantics : std::uint8_t { none, weak, volatile_, relaxed, acquire, release, acq_rel, sc, mmio };
enum class Scope : std::uint8_t { none, cta, cluster, gpu, sys };

// An instruction's dot-suffixes, sorted into what they mean. Words that fit none of the fields
// stay in `words` (has() finds them): "wide", "approx", "uni", "sync", "down", "add", ...
struct Suffixes {
    std::vector<Ty> types;  // in order: cvt.rn.f32.s32 -> {f32, s32}
    Rounding rounding = Rounding::none;
    Cmp cmp = Cmp::none;
    BoolOp bool_op = BoolOp::none;
    Semantics semantics = Semantics::none;
    Scope scope = Scope::none;
    MemorySpace space = MemorySpace::none;  // none: not said (generic for memory instructions)
    bool cluster_space = false;             // shared::cluster
    int vector = 1;                         // .v2 / .v4 / .v8
    bool ftz = false, sat = false;
    std::vector<std::string> words;
    bool has(std::string_view word) const noexcept;
    Ty type(std::size_t i = 0) const noexcept { return i < types.size() ? types[i] : Ty::none; }
};
// `comparison`: the instruction takes a comparison (setp, set): then .lt .lo .hi ... are one,
// elsewhere (mul.lo, mul.hi) they are words.
Suffixes parse_suffixes(const std::vector<std::string>& suffixes, bool comparison);

// A decode-time error: the module does not load (PTX the parser accepted but that makes no sense,
// e.g. an undeclared register). The message names the PTX line.
class DecodeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class FunctionDecoder;  // decoder.cpp

// The decode function's view of one instruction.
class Emitter {
public:
    Emitter(FunctionDecoder& f, const ptx::Instruction& in, Suffixes s) : f_(f), in_(in), s_(std::move(s)) {}

    const ptx::Instruction& instruction() const noexcept { return in_; }
    const Suffixes& suffixes() const noexcept { return s_; }
    std::string opcode_text() const;  // "ld.global.f32"
    std::size_t operand_count() const noexcept { return in_.operands.size(); }
    const ptx::Operand& operand(std::size_t i) const;  // DecodeError when absent

    // A source of type `t`: a register of that size (a wider one only where `wider_ok`, for
    // ld/st/cvt), an immediate (a broadcast constant slot), a special register or a symbol's
    // address (materialised into a temporary by a micro-op emitted first).
    std::uint32_t source(const ptx::Operand& o, Ty t);
    // The size of the register `o` names (0 when it is not a register).
    unsigned register_size(const ptx::Operand& o) const;
    // A destination register of type `t` (a sink `_` gets a scratch slot).
    std::uint32_t destination(const ptx::Operand& o, Ty t);
    // A predicate register's mask slot (source or destination); `negated` reports `!%p`.
    std::uint32_t predicate(const ptx::Operand& o, bool* negated = nullptr);
    std::uint32_t predicate_destination(const ptx::Operand& o);
    // A constant slot holding `bits` broadcast to 32 lanes of `bytes` each.
    std::uint32_t constant(std::uint64_t bits, unsigned bytes);
    // The function's carry flag (add.cc / addc ...): one bit per lane.
    std::uint32_t carry();
    // A fresh temporary slot of `bytes` per lane.
    std::uint32_t temporary(unsigned bytes);

    // [reg], [reg+imm], [symbol+imm], [imm]: base register slot (64- or 32-bit; `base_bytes`),
    // or none with the symbol's value folded into `offset`. `space` is the symbol's state space
    // where the base is a symbol (a shared variable gives its shared-window offset, a kernel
    // parameter its offset in the parameter buffer, a .param variable of a call its ParamSlot).
    struct Address {
        std::uint32_t base = no_guard;  // frame slot of the base register, or no_guard
        unsigned base_bytes = 8;
        std::int64_t offset = 0;
        MemorySpace symbol_space = MemorySpace::none;
        const ParamSlot* param = nullptr;  // a function/call .param variable (per-lane storage)
        bool kernel_param = false;         // a kernel parameter: uniform, in the parameter buffer
        bool local_symbol = false;         // a .local variable: offset is relative to the frame's local base
    };
    Address address(const ptx::Operand& o);
    // A branch target label's pc (resolved when the function is done).
    std::uint32_t label(const ptx::Operand& o);

    // Emits a move of symbol `name`'s address (+ addend) into slot `dst` of `size` bytes: a
    // variable's address in its state space, a .local variable's (relative to the frame), a
    // kernel parameter's offset, a function's handle (for indirect calls).
    void emit_symbol_address(const std::string& name, std::int64_t addend, std::uint32_t dst, unsigned size);
    void emit_constant_move(std::uint32_t dst, std::uint64_t value, unsigned size);
    // call: the per-lane storage of a .param variable named by `o` (a call sequence's param0),
    // and the function a symbol names (nullopt: not a function of this module).
    const ParamSlot& param_slot(const ptx::Operand& o);
    std::optional<std::uint32_t> function_named(const std::string& name);
    // brx.idx: the Program::branch_tables index of a `.branchtargets` label.
    std::size_t branch_table(const ptx::Operand& o);

    // Adds an Inst with this instruction's guard and site; fill its fields and return.
    Inst& emit(Handler h, Flow flow = Flow::plain);
    // emit(h) of an operation whose operands are its destination (op[0], of type d) and sources
    // (op[1]..., of the types listed, or `count` of type d), in the instruction's order. The
    // sources are resolved first: a special register's read is a micro-op before the Inst.
    Inst& emit_operation(Handler h, Ty d, std::initializer_list<Ty> sources);
    Inst& emit_operation(Handler h, Ty d, int count);
    // Adds an instruction that fails the launch when reached: the CPU device cannot run it.
    void unsupported(const std::string& why);

    Program& program();
    std::uint32_t function_index() const;
    [[noreturn]] void error(const std::string& message) const;

private:
    Inst& emit_operation(Handler h, Ty d, const Ty* sources, std::size_t count);
    // `o`, or a copy of it as a register operand when it names a register declared without '%'.
    const ptx::Operand& as_register(const ptx::Operand& o);

    FunctionDecoder& f_;
    const ptx::Instruction& in_;
    Suffixes s_;
    ptx::Operand renamed_;
};

// A family's decoder of an opcode: true when it took the instruction (emitted its Insts), false
// when the instruction is not its (add.f32 is the float family's, add.s32 the integer one's).
using DecodeFn = bool (*)(Emitter&);
using OpTable = std::map<std::string, std::vector<DecodeFn>, std::less<>>;
inline void add_op(OpTable& t, const char* opcode, DecodeFn fn) { t[opcode].push_back(fn); }

// Each family adds its opcodes (ops/ops_*.cpp); opcodes.hpp's table says which families decode
// each opcode, and in which order they are asked.
void register_integer_ops(OpTable& t);
void register_bits_ops(OpTable& t);
void register_float_ops(OpTable& t);
void register_convert_ops(OpTable& t);
void register_compare_ops(OpTable& t);  // setp set selp slct
void register_memory_ops(OpTable& t);
void register_control_ops(OpTable& t);
void register_warp_ops(OpTable& t);
void register_atomic_ops(OpTable& t);
void register_move_ops(OpTable& t);
void register_mbarrier_ops(OpTable& t);
void register_cluster_ops(OpTable& t);

// Decodes a parsed module. `variable_addresses`: where each .global/.const variable was placed
// (Program::variables order), so symbol operands become their addresses. Throws DecodeError.
void decode_functions(const ptx::Module& module, Program& program,
                      const std::vector<std::uint64_t>& variable_addresses);
// The first half of decoding: module variables (sizes, initial images, relocations) and the
// shared window, so they can be placed before the functions are decoded.
void decode_variables(const ptx::Module& module, Program& program);

}  // namespace xcuda::cpu
