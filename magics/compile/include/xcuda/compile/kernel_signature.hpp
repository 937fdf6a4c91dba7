// Finds the __global__ functions of a cell and what their parameters are, so arguments can be
// checked and converted before any device work. A lexical parser, not a C++ front end: it
// understands what kernel signatures are written with (see parse_kernels) and reports anything
// else as ParamKind::other rather than guessing.
#pragma once

#include "xcuda/compile/kernel_decl.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

// Every __global__ function declared or defined in `source`, in source order (#if 0 blocks
// skipped; both branches of any other conditional count); a function
// declared and then defined appears once (the definition wins). Skips comments, string and
// character literals and preprocessor lines; handles extern "C" (single and block),
// namespaces (incl. `namespace a::b` and anonymous), template<...>, __launch_bounds__(...),
// [[attributes]], __attribute__((...)), static/inline/__forceinline__, multi-line parameter
// lists, default arguments, unnamed parameters, __restrict__, T* const and references.
// Never throws on any input.
std::vector<KernelDecl> parse_kernels(std::string_view source);

// Splits an instantiation expression "ns::axpy<float, 4>" into {"ns::axpy", {"float", "4"}}
// (nested <> and () respected). Returns false when `expr` has no template argument list.
bool split_template_expr(std::string_view expr, std::string& name, std::vector<std::string>& args);

// Template arguments that fit `decl`'s template parameters, for advice that must be valid C++
// ("float, 256, true" for <typename T, int N, bool B>): float for a type, true for a bool, 256
// for an integer (1 for a char), 0 cast to any other type; parameters with a default are left
// out. Pure.
std::string example_template_args(const KernelDecl& decl);

// The declaration with its template parameters replaced by `args` (missing trailing ones
// take their defaults): a whole-word textual substitution in each parameter type, which is
// then classified again ("T* x" with T=float becomes a float pointer). Dependent types such
// as `typename Traits<T>::type` stay ParamKind::other. Throws std::invalid_argument naming the
// expression when the argument count does not fit.
KernelDecl instantiate(const KernelDecl& decl, const std::vector<std::string>& args);

// Type aliases of `source`: `typedef T name;` and `using name = T;` at any scope, keyed by the
// bare name (a later one wins). Function-pointer, array and struct-body typedefs are left out:
// they name no scalar.
std::map<std::string, std::string> parse_type_aliases(std::string_view source);

// Classifies each parameter again with `aliases` applied (whole words, through chains of
// aliases), so `typedef unsigned int uint; ... (uint n, uint* out)` binds a uint32 scalar and a
// uint32 pointer. The types as written stay in Param::type and the signature.
void resolve_type_aliases(KernelDecl& decl, const std::map<std::string, std::string>& aliases);

}  // namespace xcuda::compile
