// PTX's special registers (%tid.x, %laneid, %clock64, ...) and the two micro-ops symbols and
// immediates become: a read of one is an Inst that writes it into a register slot.
#pragma once

#include "exec/decode/program.hpp"

#include <cstdint>
#include <string_view>

namespace xcuda::cpu {

struct SpecialRegister {
    const char* name;
    unsigned bytes;         // 4 or 8
    Handler read;           // writes op[0] for every lane of the mask
    std::int64_t argument;  // which component (x/y/z), envreg number, ...
};

// nullptr when `name` (e.g. "%tid.x") is not a special register.
const SpecialRegister* find_special_register(std::string_view name);

// op[0] = op[1] for `bytes` (1, 2, 4, 8, 16) per lane: a move, or a constant into a register.
Handler copy_lanes_handler(unsigned bytes);
// op[0] = the running frame's local base + imm (a .local variable's address), `size` 4 or 8 bytes.
Handler special_local_address();
// The handler that reads %envregN (N in imm). %envreg1 and %envreg2 hold the cooperative grid
// workspace's address: what cooperative_groups' this_grid() reads to synchronise the grid.
Handler envreg_reader();

}  // namespace xcuda::cpu
