#pragma once
// The CPU device's report of a launch that failed a check, in the cell's terms: the kernel's own
// name, its parameters' names and element types (out[1000] rather than "parameter 0 + 4000"),
// the cell's line and its text.
#include <xcuda/compile/kernel_signature.hpp>
#include <xcuda/cpu/finding.hpp>

#include <string>

namespace xcuda::magics {

// What the session knows of the kernel that failed (either may be missing: then the report says
// what the device knows).
struct KernelContext {
    const compile::KernelDecl* decl = nullptr;
    std::string cell_source;  // the %%cuda cell (its line 1 is the program's line 1)
};

// A C++ symbol as the source names it ("transpose(float*)::tile"); other names as they are.
std::string demangled(const std::string& name);

std::string kernel_check_message(const cpu::Failure& failure, const KernelContext& kernel);
// The cell line a location of the CPU device means: the location itself in the cell's file, else
// the innermost call site there (inside an inlined header function, where the cell called it);
// 0 when it has none.
int cell_line_of(const cpu::SourceLocation& at);
// The cell line of the finding (0 when it has none), and of the access it raced with.
int kernel_check_line(const cpu::Failure& failure);
int kernel_check_other_line(const cpu::Failure& failure);

}  // namespace xcuda::magics
