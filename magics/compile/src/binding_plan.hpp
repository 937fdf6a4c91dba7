// What a cell's module binds before it is compiled: each defined __global__ function and each
// --instantiate'd template with the NVRTC name expression that finds its mangled name, each
// variable with the one that lowers it, and a note for what is left unbound.
#pragma once

#include "xcuda/compile/cell_options.hpp"
#include "xcuda/compile/global_decls.hpp"
#include "xcuda/compile/kernel_signature.hpp"

#include <string>
#include <vector>

namespace xcuda::compile::detail {

// A kernel to bind, and the NVRTC name expression that finds a C++ kernel's mangled name ("" for
// extern "C").
struct Binding {
    KernelDecl decl;
    std::string name_expression;
    std::string instantiation;  // "float" for --instantiate 'axpy<float>'
};

// A variable to find in the module, and the name expression that lowers it ("" for a
// __managed__ one: found by its mangled name).
struct GlobalBinding {
    GlobalDecl decl;
    std::string name_expression;
};

// The kernels to bind among `decls` (and options.instantiate's templates); the variables go to
// `globals`, what is not bound to `notes`. Throws ParseError for an --instantiate that is no
// instantiation or names no template kernel or variable of the cell.
std::vector<Binding> plan_bindings(const std::vector<KernelDecl>& decls, const std::vector<GlobalDecl>& variables,
                                   const CellOptions& options, std::vector<GlobalBinding>& globals,
                                   std::vector<std::string>& notes);

}  // namespace xcuda::compile::detail
