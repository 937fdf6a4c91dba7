// Each kernel's shared window: which .shared variables it uses (its own code's and that of the
// functions it calls), where they lie, with red zones between them, and the bytes ptxas would
// count for it. A GPU gives each kernel only its own variables; so does this device.
#pragma once

#include "exec/decode/program.hpp"

#include "ptx/ast.hpp"

#include <cstdint>

namespace xcuda::cpu {

// The bytes of no variable after a shared variable of `bytes`: an overrun by up to its own size
// (1 KiB at most, 64 bytes at least) lands in it, not in the next variable.
std::uint32_t shared_red_zone_bytes(std::uint32_t bytes) noexcept;

// Fills Program::shared_layouts (one per function, by the index Program::function_index gives). Kernels get windows of
// their own variables; when a function other than a kernel names a shared variable (a call not inlined), every function
// shares one layout of all the module's variables, so that function's code has one offset for
// each, and each kernel's reported size is still its own.
void plan_shared_layouts(const ptx::Module& module, Program& program);

}  // namespace xcuda::cpu
