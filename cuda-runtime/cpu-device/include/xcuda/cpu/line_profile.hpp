// The CPU device's teaching profile of a launch: exact counts per PTX instruction, which the
// magics layer adds up per cell line.
#pragma once

#include <xcuda/cpu/finding.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace xcuda::cpu {

// Per-instruction counts of one launch (the teaching profile): one row per decoded instruction.
struct InstructionCounts {
    std::uint64_t executed = 0;        // warp-level executions (any lane active)
    std::uint64_t lanes = 0;           // thread-level executions
    std::uint64_t divergent = 0;       // branches where the warp's lanes went both ways
    std::uint64_t requests = 0;        // global memory: warp-level requests
    std::uint64_t sectors = 0;         // global memory: distinct 32-byte sectors those requests touched
    std::uint64_t bank_conflicts = 0;  // shared memory: extra wavefronts beyond the first

    // Each worker counts on its own; their counts are added up when the grid ends.
    InstructionCounts& operator+=(const InstructionCounts& c) {
        executed += c.executed, lanes += c.lanes, divergent += c.divergent;
        requests += c.requests, sectors += c.sectors, bank_conflicts += c.bank_conflicts;
        return *this;
    }
};
struct LineProfile {
    std::string kernel;
    struct Row {
        std::string function;
        SourceLocation where;
        std::string instruction;  // opcode with suffixes ("ld.global.f32")
        InstructionCounts counts;
    };
    std::vector<Row> rows;  // rows that executed at least once, in program order
};

}  // namespace xcuda::cpu
