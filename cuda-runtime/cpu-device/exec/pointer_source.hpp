// Which pointer an access that failed went through, at the time it failed: of the kernel
// parameters and module variables its address may be based on (exec/decode/address_sources.hpp), the one
// whose value lies nearest below the address (an access is a pointer plus an index).
#pragma once

#include "exec/run/exec_context.hpp"

#include <xcuda/cpu/finding.hpp>

#include <cstdint>

namespace xcuda::cpu {

// Kind::unknown when the current instruction's code shows no source.
PointerSource pointer_source(const Exec& x, std::uint64_t address);

}  // namespace xcuda::cpu
