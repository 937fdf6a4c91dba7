// What the CPU device's checks found in a launch, in the terms the device knows: PTX locations,
// addresses, allocations, kernel parameter indices, shared variables by their PTX names. The
// magics layer renders it in the cell's terms (source names, cell lines).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xcuda::cpu {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
    std::uint64_t count() const noexcept { return std::uint64_t{x} * y * z; }
    std::string str() const;  // "(x,y,z)"
};

// A source position from the PTX's .loc (file names resolved through its .file table).
struct SourceLocation {
    std::string file;  // "" when the PTX has no line information for this instruction
    int line = 0, column = 0;
    // Call sites of inlined functions, innermost first: the first one in the cell's file is the
    // line a user wrote when the finding happened inside an inlined helper or header function.
    struct Site {
        std::string file;
        int line = 0, column = 0;
    };
    std::vector<Site> inlined_at;
    std::string str() const;  // "cell.cu:4:12" (or "<no line information>")
};

enum class FindingKind : std::uint8_t {
    out_of_bounds,      // an address outside every allocation (global), the CTA's shared memory or the thread's local
                        // memory
    misaligned,         // an address not a multiple of the access size
    use_after_free,     // inside an allocation that was freed
    shared_race,        // two threads of a CTA, one writing, with no barrier between
    global_race,        // two threads, one writing, neither atomic, that nothing orders (check/global_race.hpp)
    divergent_barrier,  // threads of a CTA (or a warp, for an aligned barrier) at different barriers, or some never
                        // arrive
    collective_absent_lanes,  // a warp collective (shfl/vote/match/redux/__syncwarp) whose mask names lanes that never
                              // arrive
    assertion,                // device assert() (__assertfail)
    trap,                     // trap / __trap()
    unsupported,              // an instruction the CPU device does not run (needs a GPU)
    invalid_operation,        // e.g. an invalid shfl/barrier operand, a call through a bad function pointer
    uninitialised_read,  // a read of bytes nothing wrote: global memory from cuMemAlloc that no copy, memset or kernel
                         // wrote; shared memory no thread of the block wrote in this launch
    invalid_free,        // device free() of a pointer malloc did not return, or of a block already freed
};

enum class Access : std::uint8_t { none, read, write, atomic };
enum class MemorySpace : std::uint8_t { none, global, shared, local, param, constant, generic };

// The memory an address belongs to or lies nearest to.
struct Region {
    // allocation: device memory (an array argument: the array's own extent, not a larger pooled
    // buffer's); variable: a module or shared variable; heap_block: memory device malloc returned.
    enum class Kind : std::uint8_t { none, allocation, variable, heap_block } kind = Kind::none;
    std::uint64_t base = 0;
    std::uint64_t size = 0;   // bytes
    int parameter = -1;       // kernel parameter (0-based) whose pointer value lies in [base, base + size]
    std::string variable;     // a module variable or shared variable (PTX name, mangled)
    std::int64_t offset = 0;  // address - base (negative: before the start)
    // heap_block: where malloc made it, and where free freed it (file empty while it is live).
    SourceLocation allocated_at, freed_at;
};

// Where the address of a failed global access came from, as the kernel's code shows it: a kernel
// parameter, or a pointer read from a module variable (`__device__ float* table`), with the value
// it held. Lets a report say "`x` is a null pointer" rather than how far the address lies from
// some unrelated allocation.
struct PointerSource {
    enum class Kind : std::uint8_t { unknown, parameter, variable } kind = Kind::unknown;
    int parameter = -1;       // Kind::parameter: its index
    std::string variable;     // Kind::variable: its PTX name
    std::uint64_t value = 0;  // the pointer it held
    bool allocated = false;   // the value lies in an allocation (live or freed, device heap included)
};

// How a divergent barrier diverged, in compute-sanitizer synccheck's terms: lanes of one warp
// that did not arrive together ("Divergent thread(s) in warp"), or threads of a block waiting at
// different barrier instructions ("Divergent thread(s) in block").
enum class Divergence : std::uint8_t { none, warp, block };

struct Finding {
    FindingKind kind = FindingKind::trap;
    Access access = Access::none;
    MemorySpace space = MemorySpace::none;
    unsigned size = 0;  // bytes accessed
    std::uint64_t address = 0;
    std::string function;  // mangled name of the function executing (kernel or device function)
    SourceLocation where;
    std::string instruction;  // the PTX instruction as written ("st.global.f32 [%rd7], %f4")
    Dim3 thread, block;       // the first thread (of the warp instruction) that did it
    unsigned lanes = 1;       // lanes of that warp instruction that did the same
    Region region;
    PointerSource pointer;  // global accesses outside every allocation, when the code shows where the address came from
    // shared_race, global_race: the access it conflicts with
    Access other_access = Access::none;
    Dim3 other_thread;
    Dim3 other_block;  // global_race
    SourceLocation other_where;
    // shared_race, global_race: a barrier the other thread waited at (or waits at) that this one
    // never reached (empty file: none), so that "no __syncthreads() between" is not what a reader
    // sees when the code has one under a condition.
    SourceLocation skipped_barrier;
    // divergent_barrier: which kind, the threads waiting at the barrier of `where` ("threads
    // 0-15"), and those that did not wait with them ("threads 16-31"): at another barrier
    // (`absent_at_barrier`; `other_where` is it) or gone past it (`other_where`: where they went,
    // file empty when unknown).
    Divergence divergence = Divergence::none;
    std::string waiting, absent;
    bool absent_at_barrier = false;
    std::string detail;  // kind-specific text: the assertion's message, which barrier each group waits at, ...
};

// The words of a divergent-barrier finding, after synccheck's ("Divergent thread(s) in warp: threads
// 0-15 of block (0,0,0) wait at this barrier; ..."), with each location written by `where` (the
// PTX's file:line in Failure::report, the cell's lines and code in the magics layer).
using WhereText = std::function<std::string(const SourceLocation&)>;
std::string divergence_text(const Finding& f, const WhereText& where);
// A race's last clause: why nothing orders the two accesses (the same warp, block or not), and
// the barrier the other thread waits at that this one skipped, when there is one.
std::string unordered_text(const Finding& f, const WhereText& where);

// A launch that failed: the driver-level code its synchronisation returns and what was found.
struct Failure {
    CUresult code = CUDA_ERROR_LAUNCH_FAILED;
    std::string kernel;  // mangled name of the kernel launched
    Dim3 grid, block;
    // A grid launched from the device: the kernel the host launched, whose grid (or one of its
    // descendants') launched this one. Empty for a host launch.
    std::string launched_from;
    Finding finding;
    // One paragraph in the PTX's terms, like compute-sanitizer's reports.
    std::string report() const;
};

}  // namespace xcuda::cpu
