// Every instruction mnemonic of the PTX ISA (9.0) and the instruction families (ops/ops_*.cpp)
// that decode it, in one table: the decoder asks an opcode's families in the order listed, and
// the first that takes the instruction emits it (add.s32 is the integer family's, add.f32 the
// float one's). An opcode with no family is PTX the CPU device does not run: refused when a
// launch reaches it. A word not in the table is not PTX: refused at load, as ptxas would.
#pragma once

#include <string_view>
#include <vector>

namespace xcuda::cpu {

enum class OpFamily {
    integer,
    bits,
    floating,
    compare,
    convert,
    memory,
    control,
    warp,
    atomic,
    move,
    mbarrier,
    cluster
};

struct OpcodeRow {
    std::string_view opcode;
    std::vector<OpFamily> families;  // asked in this order
};

// Sorted by opcode.
const std::vector<OpcodeRow>& opcode_table();

// The row of `opcode`, or nullptr when it is no PTX instruction.
const OpcodeRow* find_opcode(std::string_view opcode);

}  // namespace xcuda::cpu
