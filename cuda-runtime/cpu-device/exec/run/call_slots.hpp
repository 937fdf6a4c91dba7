// A call's argument and result slots in the caller's frame, and where the call is in the cell:
// what device-side calls (printf, malloc, free, assert, the device runtime) read and write.
#pragma once

#include "exec/run/exec_context.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace xcuda::cpu {

// The call's argument `i` for `lane` (a dim3 is 12 bytes; a slot narrower than T is zero-extended).
template <class T>
T call_argument(const Exec& x, const CallSite& call, std::size_t i, unsigned lane) {
    T v{};
    if (i >= call.arguments.size()) return v;
    const ParamSlot& s = call.arguments[i];
    std::memcpy(&v, x.regs + s.offset + std::size_t{lane} * s.size, std::min<std::size_t>(sizeof(T), s.size));
    return v;
}

template <class T>
void call_result(const Exec& x, const CallSite& call, unsigned lane, T v) {
    if (call.results.empty()) return;
    const ParamSlot& s = call.results[0];
    std::memcpy(x.regs + s.offset + std::size_t{lane} * s.size, &v, std::min<std::size_t>(sizeof(T), s.size));
}

// The running call's place in the cell (a heap block's report says where it was allocated and freed).
inline SourceLocation call_location(const Exec& x) { return x.location_of(x.program->sites[x.code[x.pc].site].loc); }

}  // namespace xcuda::cpu
