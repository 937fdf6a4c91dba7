// PTX as the parser reads it: a module of variables and functions whose bodies are statements.
// Nothing here is decoded: opcodes and their dot-suffixes stay text, register and symbol names
// stay names. The decoder (exec/) gives them meaning; the parser only knows PTX's syntax.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace xcuda::cpu::ptx {

// State spaces of declarations (.reg, .global, ...). `param` covers kernel and function
// parameters and the .param variables of a call sequence.
enum class Space : std::uint8_t { reg, sreg, const_, global, local, param, shared, tex };

// A declaration's type as written (".u32", ".f16x2", ".pred", ...), without the dot; "" when
// the declaration has none (labels, functions).
using TypeName = std::string;

// One position in the source: a `.loc file line column` directive. `inlined_at` holds the
// chain of call sites outward (innermost first) when the .loc says `inlined_at ...`, as NVRTC
// writes for inlined functions. A .loc names only the nearest call site; the parser extends it
// with the chain of the last .loc that stood at that site (NVRTC writes a chain's outer .locs
// before its inner ones), so the last element is the kernel's own line.
struct Loc {
    int file = 0;  // 0: no .loc seen yet in this function
    int line = 0;
    int column = 0;
    struct Site {
        int file = 0, line = 0, column = 0;
    };
    std::vector<Site> inlined_at;
};

// An initializer element: a number or the address of a symbol (`foo`, `generic(foo)`, `foo+8`).
// A float literal in an .f32 or .f64 declaration is converted to that type's bits (`1.5`,
// `0f3FC00000` and `0d3FF8000000000000` all give 0x3FC00000 in an .f32); elsewhere it keeps the
// bits as written.
struct InitValue {
    enum class Kind : std::uint8_t { integer, floating, symbol } kind = Kind::integer;
    std::uint64_t bits = 0;   // integer value, or the IEEE bits of a float literal in the declaration's type
    std::string symbol;       // Kind::symbol
    std::int64_t offset = 0;  // symbol + offset
    bool generic = false;     // generic(symbol)
};

// `.global .align 4 .b8 name[16] = {...};`, `.shared .f32 tile[32][33];`, `.param .u64 p`,
// `.local .align 8 .b8 __local_depot0[40];`, `.const .u32 c = 5;`
struct Variable {
    Space space = Space::global;
    TypeName type;   // "b8", "u32", "f32", ...
    int vector = 1;  // .v2 / .v4 -> 2 / 4
    int align = 0;   // .align N (0: the type's natural alignment)
    std::string name;
    std::vector<std::uint64_t> dims;  // [16] -> {16}; [32][33] -> {32, 33}; [] -> {0} (unsized extern)
    bool is_extern = false, is_visible = false, is_weak = false;
    bool ptr = false;             // .param .u64 .ptr .global .align 16 p (the .ptr attribute)
    std::string ptr_space;        // the space .ptr names ("global", "shared", "const", "local"); "": generic
    bool managed = false;         // .attribute(.managed): a __managed__ variable
    std::vector<InitValue> init;  // flattened, in element order; empty: no initializer
    int source_line = 0;          // the PTX text's line, for messages
};

// `.reg .b32 %r<10>;` declares %r0..%r9 (count 10); `.reg .pred %p;` one register (count 0).
struct RegisterDecl {
    TypeName type;
    int vector = 1;
    std::string name;  // "%r" (with count) or the full name
    int count = 0;     // 0: a single register named `name`
    int source_line = 0;
};

// An instruction operand. A name that starts with '%' is a register (`reg`); any other name is
// a `symbol`, which the decoder resolves in scope (registers may be declared without a '%', as
// call sequences' `temp_param_reg` is). A component is split off every register name alike:
// `%tid.x` is `%tid` with vector_select "x", as `%v1.x` is `%v1` with "x".
struct Operand {
    enum class Kind : std::uint8_t {
        none,      // `_` (a sink) or an absent operand
        reg,       // %r1, %fd3, %SP (register or special register: the decoder tells them apart)
        integer,   // 42, -1, 0x1F, 017 (value in `integer`)
        floating,  // 0f3F800000 (bits in `bits`, is_double false), 0d3FF0000000000000, or 1.5 (is_double true)
        symbol,    // a variable, function or label name used as a value or branch target; `integer`: +offset
        address,   // [base], [base+off], [base+-4], [off]: base in `name` (a register or symbol; empty: absolute);
                   // a texture/surface operand [tex, smp, {%f1, %f2}] has its items after the first in `elements`
        vector,    // {%f1, %f2, _, %f4}: elements in `elements`
        list,      // (param0, param1) in call: elements in `elements`
    };
    Kind kind = Kind::none;
    std::string name;               // reg / symbol / address base
    std::int64_t integer = 0;       // Kind::integer; Kind::address and Kind::symbol: the offset
    std::uint64_t bits = 0;         // Kind::floating
    bool is_double = false;         // Kind::floating: `bits` are an f64 (0d or decimal), else f32 (0f)
    bool negated = false;           // !%p (setp/selp/vote/... predicate operands)
    std::vector<Operand> elements;  // Kind::vector / Kind::list / Kind::address (texture form)
    std::string pair;               // `%r26|%p1`: the second destination ("%p1")
    std::string vector_select;      // %r1.x / %v.y (a vector register's component), "" when none
};

// One instruction: `@!%p1 ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd2+16];`
struct Instruction {
    std::string guard;  // "%p1" when predicated, "" otherwise
    bool guard_negated = false;
    std::string opcode;                 // "ld"
    std::vector<std::string> suffixes;  // {"global", "nc", "v4", "f32"}; "shared::cta" stays one suffix
    std::vector<Operand> operands;
    Loc loc;              // the .loc in effect
    int source_line = 0;  // the PTX text's line
};

// A function body is a flat list of statements; `{` and `}` open and close a scope whose
// .reg/.param/.local/.shared declarations shadow the enclosing ones (call sequences use this).
struct Statement {
    enum class Kind : std::uint8_t {
        instruction,
        label,
        registers,
        variable,
        scope_begin,
        scope_end,
        pragma,
        branch_targets,
        call_targets,
        call_prototype
    };
    Kind kind = Kind::instruction;
    Instruction instruction;           // Kind::instruction
    std::string label;                 // Kind::label, branch_targets, call_targets, call_prototype: the label's name
    RegisterDecl registers;            // Kind::registers
    Variable variable;                 // Kind::variable
    std::vector<std::string> targets;  // `ts: .branchtargets L1, L2;`, `ct: .calltargets f1, f2;`
    std::string text;  // Kind::pragma: the string; Kind::call_prototype: the text between .callprototype and ';'
    int source_line = 0;
};

// `.visible .entry name(params) .maxntid 256, 1, 1 { body }` or `.func (.param .b32 r) name(...)`.
struct Function {
    bool is_entry = false;
    bool is_visible = false, is_extern = false, is_weak = false;
    bool has_body = false;  // false for a declaration (`.extern .func vprintf(...);`)
    std::string name;
    std::vector<Variable> params;   // .param (or .reg for old-style function parameters)
    std::vector<Variable> returns;  // .func's return parameters
    // Performance-tuning and cluster directives; 0 where absent.
    unsigned maxntid[3] = {0, 0, 0}, reqntid[3] = {0, 0, 0};
    unsigned minnctapersm = 0, maxnreg = 0, maxclusterrank = 0;
    unsigned reqnctapercluster[3] = {0, 0, 0};
    bool explicitcluster = false, noreturn = false;
    std::vector<Statement> body;
    int source_line = 0;
};

struct Module {
    int version_major = 0, version_minor = 0;  // .version 9.0
    std::string target;                        // "sm_90" (first of .target's list)
    std::vector<std::string> target_options;   // the rest of .target: "texmode_independent", "debug"
    int address_size = 64;
    std::vector<Variable> variables;   // module-scope .global/.const/.shared/.local
    std::vector<Function> functions;   // in source order, declarations included
    std::map<int, std::string> files;  // .file index -> file name
};

}  // namespace xcuda::cpu::ptx
