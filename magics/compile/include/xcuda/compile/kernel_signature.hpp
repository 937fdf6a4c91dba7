// Finds the __global__ functions of a cell and what their parameters are, so arguments can be
// checked and converted before any device work. A lexical parser, not a C++ front end: it
// understands what kernel signatures are written with (see parse_kernels) and reports anything
// else as ParamKind::other rather than guessing.
#pragma once

#include "xcuda/compile/scalar_type.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

enum class ParamKind {
    scalar,   // passed by value, `scalar` says which
    pointer,  // T* (any cv, __restrict__, T* const); `scalar` is the pointee's (none if unknown)
    other,    // by value struct/class/template type/reference: size unknown to the parser
};

struct Param {
    std::string type;  // as written, normalised whitespace: "const float* __restrict__"
    std::string name;  // "" for an unnamed parameter
    ParamKind kind = ParamKind::other;
    ScalarType scalar = ScalarType::none;
    std::string pointee;         // pointer: the pointee type without cv ("float", "float*", "MyT")
    bool pointee_const = false;  // pointer: `const T*` / `T const*` (copy-back can be skipped)
    int pointer_depth = 0;       // 1 for T*, 2 for T**
    bool is_reference = false;   // T& / const T& (kind is other)
    std::string default_value;   // text after `=`, "" when none
};

struct TemplateParam {
    std::string kind;           // "typename", "class", or the non-type's type ("int", "unsigned")
    std::string name;           // "T"
    std::string default_value;  // "" when none
    bool is_type() const { return kind == "typename" || kind == "class"; }
};

struct KernelDecl {
    std::string name;            // "saxpy", "axpy"
    std::string qualified_name;  // "ns::inner::axpy" (== name at global scope)
    bool is_extern_c = false;
    bool is_template = false;
    bool is_definition = false;  // has a body (a declaration alone is still listed)
    std::vector<TemplateParam> template_params;
    std::vector<std::string> template_args;  // set by instantiate(): {"float"}
    std::vector<Param> params;
    std::string signature;  // "void saxpy(float a, const float* x, float* y, int n)"
    int line = 0;           // 1-based line of the `__global__` keyword in the cell
};

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
