// What each thread of a launch did, for teaching: which instructions it executed and which global
// and shared memory it read and wrote, with the values. Recorded only while tracing is on (a
// grader's small launches): a traced launch takes the slow, checked path for every access, runs
// its blocks in order on one worker and stops recording past a limit.
#pragma once

#include <xcuda/cpu/finding.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xcuda::cpu {

struct AccessTrace {
    std::string kernel;  // mangled name
    Dim3 grid, block;

    // One executed instruction of a warp: the lanes that ran it (after their guard).
    struct Step {
        std::uint64_t block = 0;         // linear block index: x + grid.x * (y + grid.y * z)
        std::uint32_t first_thread = 0;  // linear thread index of the warp's lane 0
        std::uint32_t lanes = 0;         // mask of the lanes that executed it
        std::uint32_t site = 0;          // index into sites
    };
    // One lane's access to global or shared memory (local memory and parameters are not traced).
    struct Memory {
        std::uint64_t block = 0;
        std::uint32_t thread = 0;  // linear thread index within the block
        std::uint32_t site = 0;
        Access access = Access::read;             // read, write or atomic (which reads and writes)
        MemorySpace space = MemorySpace::global;  // global or shared
        std::uint8_t size = 0;                    // bytes
        int parameter = -1;                       // global: the kernel parameter whose array holds it (-1: none)
        std::int64_t offset = 0;   // global: bytes from that parameter's pointer; shared: from the variable
        int shared_variable = -1;  // shared: index into shared_variables (-1: none)
        std::uint64_t value = 0;   // the bytes read (read) or left there (write, atomic), little-endian
    };
    // Where an instruction came from: its source position, the PTX opcode ("ld.global.f32") and its
    // place in the program (a step to a lower pc than the one before is a loop's back edge).
    struct Site {
        SourceLocation where;
        std::string opcode;
        std::uint32_t pc = 0;
    };

    std::vector<Step> steps;       // in execution order
    std::vector<Memory> accesses;  // in execution order
    std::vector<Site> sites;
    std::vector<std::string> shared_variables;  // PTX names
    bool truncated = false;                     // the limits below stopped the recording
    static constexpr std::size_t max_steps = std::size_t{1} << 22;
    static constexpr std::size_t max_accesses = std::size_t{1} << 21;
};

// Records what each launch that starts while on did; take_traces() hands the traces out in launch order.
void set_tracing(bool on);
bool tracing();
std::vector<std::shared_ptr<const AccessTrace>> take_traces();

}  // namespace xcuda::cpu
