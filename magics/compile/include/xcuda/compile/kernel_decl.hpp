// What the signature scanner (kernel_signature.hpp) finds of a __global__ function: its
// parameters, template parameters and names. Types only, apart from the scanner, so that the
// parameter classification (src/param_types.hpp) and the scanner that uses it both depend on
// this header instead of on each other.
#pragma once

#include "xcuda/compile/scalar_type.hpp"

#include <string>
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

}  // namespace xcuda::compile
