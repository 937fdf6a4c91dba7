// The names a debugger needs to read a thread's variables, kept only for PTX compiled with -G
// (`.target sm_90, debug`): the DWARF there locates each C++ variable by a PTX register name, a
// kernel parameter or a .local depot, and bounds its scope by code labels. The decoder resolves
// those names to frame offsets and pcs while it decodes, then forgets them; for a debug module it
// records them here first. A module without -G has none, and pays nothing.
#pragma once

#include "exec/decode/program.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace xcuda::cpu {

struct DebugSymbols {
    struct Register {
        std::uint32_t offset = 0;  // frame offset of lane 0's slot
        std::uint8_t size = 0;     // bytes per lane; 0 for a predicate (one lane mask)
    };
    struct FunctionNames {
        std::map<std::string, Register, std::less<>> registers;
        std::map<std::string, std::uint32_t, std::less<>> locals;  // .local: offset in the frame's local window
        std::map<std::string, ParamSlot, std::less<>> params;      // a .func's .param variables, per lane
    };
    std::vector<FunctionNames> functions;                      // by FunctionInfo index
    std::map<std::string, std::uint32_t, std::less<>> labels;  // code label -> pc (NVRTC's are module-unique)
    std::map<std::string, ParamSlot, std::less<>>
        kernel_params;  // `saxpy_param_1` -> its bytes in the parameter buffer
};

}  // namespace xcuda::cpu
