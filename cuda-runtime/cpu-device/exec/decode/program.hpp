// A module decoded for execution: every function's instructions in one flat array of Inst, each
// with its handler chosen and its operands resolved to byte offsets into a register frame.
//
// The frame of a function holds, for each of its registers, a slot of 32 lanes of the register's
// size (a predicate is one 32-bit lane mask), then the broadcast constants its immediates became,
// then per-lane storage for its .param variables. A handler therefore reads every operand the same
// way (frame base + offset) and never branches on the operand's kind.
#pragma once

#include "ptx/ast.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace xcuda::cpu {

struct Exec;  // exec/run/exec_context.hpp: what a handler runs against
struct Inst;
struct DebugSymbols;  // exec/decode/debug_symbols.hpp

// A straight-line instruction: does its work for the lanes in `mask` (never 0).
using Handler = void (*)(Exec& x, const Inst& in, std::uint32_t mask);

inline constexpr std::uint32_t no_guard = 0xFFFFFFFFu;

// How an instruction changes the flow of its warp; `plain` ones run their handler and go on.
enum class Flow : std::uint8_t {
    plain,
    branch,           // bra: target, guard decides per lane
    branch_index,     // brx.idx: target table in Program::branch_tables[imm], index in op[0]
    call,             // call: Program::calls[imm]
    ret,              // ret (from a .func; from the kernel it is exit)
    exit,             // exit
    barrier,          // bar.sync / bar.red / barrier.sync / bar.arrive: Program::barriers[imm]
    warp_sync,        // bar.warp.sync membermask (op[0])
    collective,       // shfl/vote/match/redux .sync: the handler runs once the membermask's lanes are together
    cluster_barrier,  // barrier.cluster.arrive / wait
    trap,             // trap, __assertfail
    unsupported,      // an instruction the CPU device cannot run: fails the launch when reached
    yield,            // nanosleep: a hint to run other warps
    debug_stop,       // a debug launch's copy of the code only: a line the debugger may stop at (debug_session.hpp);
                      // the instruction that runs there is the program's own at the same pc
};

struct Inst {
    Handler exec = nullptr;
    Flow flow = Flow::plain;
    std::uint8_t size = 0;                     // access or element size in bytes, where a handler needs it at run time
    std::uint8_t space = 0;                    // a MemorySpace (finding.hpp) for memory instructions
    std::uint8_t sub = 0;                      // op-specific small field (a comparison, a vector width, a reduction)
    std::uint32_t op[6] = {0, 0, 0, 0, 0, 0};  // frame offsets of the operands, destination(s) first
    std::uint32_t guard = no_guard;            // frame offset of the guard predicate's mask
    std::uint32_t guard_xor = 0;               // 0xFFFFFFFF for @!%p
    std::int64_t imm = 0;                      // address displacement, or an index into one of Program's side tables
    std::uint32_t target = 0;                  // branch target pc
    std::uint32_t site = 0;                    // Program::sites index: function, source location, text
};

// A pointer a memory instruction's address is computed from (exec/decode/address_sources.cpp).
struct AddressSource {
    enum class Kind : std::uint8_t { parameter, variable } kind = Kind::parameter;
    std::uint32_t index = 0;    // parameter: the kernel parameter's index
    std::uint32_t offset = 0;   // parameter: where the pointer lies in the parameter buffer
    std::uint64_t address = 0;  // variable: where the pointer lies in device memory
    std::string name;           // variable: its PTX name
};

// Where an instruction came from, for reports and the line profile.
struct Site {
    std::uint32_t function = 0;  // Program::functions index
    ptx::Loc loc;
    std::string text;                            // the PTX instruction as written, e.g. "ld.global.f32 %f2, [%rd6]"
    std::string opcode;                          // with its suffixes, e.g. "ld.global.f32"
    std::vector<AddressSource> address_sources;  // memory instructions: the pointers their address may be based on
};

// A variable in the param space of a function or call sequence: per-lane storage in the frame.
struct ParamSlot {
    std::uint32_t offset = 0;  // frame offset of lane 0's bytes
    std::uint32_t size = 0;    // bytes per lane (lane l's bytes start at offset + l * size)
};

struct FunctionInfo {
    std::string name;
    bool is_entry = false;
    std::uint32_t entry_pc = 0;          // first instruction
    std::uint32_t end_pc = 0;            // one past the last
    std::uint32_t frame_bytes = 0;       // registers + constants + params
    std::vector<std::byte> frame_image;  // initial frame contents: the constants in place, the rest zero
    std::uint32_t local_bytes = 0;       // .local variables of this function (per thread)
    std::vector<ParamSlot> params;       // .func parameters, in order
    std::vector<ParamSlot> returns;      // .func return parameters
    bool is_extern = false;              // declared only (vprintf, malloc, __assertfail ...)
};

// A call site: which function, and which of the caller's param slots carry arguments and results.
struct CallSite {
    std::uint32_t callee = 0;          // FunctionInfo index; for an indirect call: none (see pointer)
    bool indirect = false;             // callee taken at run time from op[0] (a function "address")
    std::vector<ParamSlot> arguments;  // in the caller's frame
    std::vector<ParamSlot> results;    // in the caller's frame
    enum class Builtin : std::uint8_t {
        none,
        vprintf,
        assertfail,
        malloc,
        free,
        device_runtime
    } builtin = Builtin::none;
    std::uint8_t runtime_entry = 0;  // device_runtime: which entry point (device_runtime.hpp's RuntimeEntry)
};

// bar.sync / bar.red / barrier.sync / bar.arrive.
struct BarrierSite {
    enum class Kind : std::uint8_t { sync, arrive, red_popc, red_and, red_or } kind = Kind::sync;
    bool aligned = true;              // bar.sync and barrier.sync.aligned: every lane of a warp must arrive together
    std::uint32_t id_reg = no_guard;  // frame offset of the barrier id when a register; else `id`
    std::uint32_t id = 0;
    std::uint32_t count_reg = no_guard;  // frame offset of the thread count when a register
    std::uint32_t count = 0;             // 0: every thread of the CTA
    std::uint32_t predicate = no_guard;  // bar.red's predicate (a mask register)
    bool predicate_negated = false;
    std::uint32_t result = no_guard;  // bar.red's destination register
};

struct ModuleVariable {
    std::string name;
    ptx::Space space = ptx::Space::global;
    std::size_t bytes = 0;
    std::size_t align = 1;
    std::vector<std::byte> image;  // initial contents (zeros where there is no initializer)
    // Initializer elements that are addresses, patched once the variables are placed.
    struct Relocation {
        std::size_t at = 0;  // byte offset in the image
        std::size_t size = 8;
        std::string symbol;
        std::int64_t addend = 0;
        bool generic = false;
    };
    std::vector<Relocation> relocations;
    bool is_extern = false;
};

// The start of each CTA's shared window is reserved for the system, as on sm_80 and later GPUs
// (%reserved_smem_offset_*): cooperative groups keep the scratch of tiles larger than a warp
// there. The program's variables follow it, so an access just past the last one is still caught.
inline constexpr std::uint32_t reserved_shared_bytes = 1024;
inline constexpr std::uint32_t reserved_shared_offset_1 = 512;  // cooperative groups' (needs 288 bytes)

// A shared variable of the CTA window, and the symbol's offset in it (for reports).
struct SharedVariable {
    std::string name;
    std::uint32_t offset = 0;
    std::uint32_t bytes = 0;  // 0 for the extern (dynamic) array
};

// A kernel's shared window (exec/decode/shared_layout.cpp): the reserved part, then the shared variables
// the kernel uses, each followed by a red zone that belongs to no variable, then dynamic shared
// memory. The red zones are the CPU device's own: sizes reported (attributes, occupancy, the
// profile) are the variables' alone, as ptxas counts them.
struct SharedLayout {
    std::vector<SharedVariable> variables;                 // at their offsets in the window; extern arrays last
    std::uint32_t dynamic_offset = reserved_shared_bytes;  // where dynamic shared memory starts
    std::uint32_t declared_bytes = 0;                      // the variables' bytes, aligned, without red zones
    std::vector<std::uint8_t> check_state;                 // [0, dynamic_offset) at a CTA's start (SharedByte)
};

// What a function's "address" is on this device (mov.u64 %rd, func; call through a pointer): a
// tag no host address has, and the function's index.
inline constexpr std::uint64_t function_handle_tag = 0xFC00000000000000ull;
inline std::uint64_t function_handle(std::uint32_t index) noexcept { return function_handle_tag | index; }

struct Program {
    std::vector<Inst> code;
    std::vector<Site> sites;
    std::vector<FunctionInfo> functions;
    std::map<std::string, std::uint32_t, std::less<>> function_index;
    std::vector<CallSite> calls;
    std::vector<BarrierSite> barriers;
    std::vector<std::vector<std::uint32_t>> branch_tables;  // brx.idx targets (pcs)
    std::vector<std::string> unsupported_reasons;           // Flow::unsupported's imm indexes this
    std::vector<ModuleVariable> variables;                  // .global and .const, placed in device memory at load
    // By function index: a kernel's window, and the offsets a function's code uses (one layout
    // for the module when a non-inlined function uses shared memory).
    std::vector<SharedLayout> shared_layouts;
    std::map<int, std::string> files;  // .file index -> name
    bool uses_device_heap = false;     // a kernel calls malloc or free
    bool uses_device_runtime = false;  // a kernel launches grids from the device (device_runtime.hpp)
    int ptx_version = 0;               // 90 for .version 9.0
    std::string target;
    std::shared_ptr<DebugSymbols> debug;  // PTX compiled with -G only: what the debugger reads variables by
};

}  // namespace xcuda::cpu
