// A launch's allocation table narrowed to its arguments' extents (xcuda/cpu/argument_extents.hpp):
// an allocation an argument points into is replaced, for that launch, by the extents the
// arguments name in it (overlapping or touching ones merged), so its bytes outside every array
// passed are out of bounds, and reports quote each array's own size.
#pragma once

#include "check/device_memory.hpp"

#include <xcuda/cpu/argument_extents.hpp>

#include <memory>
#include <vector>

namespace xcuda::cpu {

// nullptr when the extents change nothing (each is a whole allocation, or in none).
std::shared_ptr<const AllocationTable> narrowed_to_arguments(const AllocationTable& table,
                                                             const std::vector<ArgumentExtent>& extents);

}  // namespace xcuda::cpu
