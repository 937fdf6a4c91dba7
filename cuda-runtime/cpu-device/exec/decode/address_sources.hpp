// Where a memory instruction's address comes from, read off its function's PTX: the kernel
// parameters and module variables holding the pointer it was computed from. When an access
// falls outside every allocation, the report can then name the pointer ("`x` is a null
// pointer", "`table` holds an address no allocation covers") instead of the distance to the
// nearest allocation, which belongs to some other array. Found once, when the module loads.
#pragma once

#include "exec/decode/function_decoder.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace xcuda::cpu {

class AddressTracer {
public:
    AddressTracer(const ptx::Function& function, const std::vector<ParamInfo>& kernel_params,
                  const ModuleSymbols& symbols);

    // The pointers the address operand of `in` (its [register + offset] operand) may be based on:
    // empty when it has none, or the code does not show (a pointer from memory, a call's result).
    std::vector<AddressSource> sources(const ptx::Instruction& in) const;

private:
    struct Candidate {
        AddressSource source;
        bool address_of = false;  // the variable's own address (its elements are accessed), not a pointer in it
    };
    void trace(const std::string& reg, std::set<std::string>& seen, std::vector<Candidate>& out, int depth) const;
    void from_load(const ptx::Instruction& in, std::set<std::string>& seen, std::vector<Candidate>& out,
                   int depth) const;

    const ptx::Function& function_;
    const ModuleSymbols& symbols_;
    std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> kernel_params_;  // name -> (index, offset)
    std::map<std::string, std::vector<const ptx::Instruction*>> definitions_;       // register -> its writers
};

}  // namespace xcuda::cpu
