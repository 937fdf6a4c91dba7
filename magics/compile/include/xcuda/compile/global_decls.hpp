// Finds the __constant__, __device__ and __managed__ variables a cell defines at namespace
// scope, so Module.get_global can name them by their C++ name (NVRTC lowers namespaced and
// template variables through name expressions) and shape them from their declaration. A
// lexical scanner like parse_kernels: what it cannot read is left out or typed as bytes, never
// guessed.
#pragma once

#include "xcuda/compile/kernel_signature.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

enum class MemorySpace { constant, device, managed, shared };

struct GlobalDecl {
    std::string name;            // "table"
    std::string qualified_name;  // "ns::table" (== name at global scope)
    MemorySpace space = MemorySpace::device;
    std::string type;                  // element type, cv dropped: "float", "float2", "Params", "int*"
    std::vector<std::string> extents;  // array bounds as written, outermost first ("16", "N"; "" for [])
    bool is_template = false;
    std::vector<TemplateParam> template_params;
    std::vector<std::string> template_args;  // set by instantiate_global(): {"float"}
    std::string declaration;                 // "__constant__ float coeffs[16]", for listings
    int line = 0;                            // 1-based line of the declaration in the cell

    // What Python calls it: "ns::table", or "lut<float>" for an instantiation.
    std::string key() const;
};

// How the elements of a type lie in memory, where the scanner can tell: a scalar ("float" ->
// float32 x 1), a CUDA vector type ("float2" -> float32 x 2, "__half2" -> float16 x 2) or a
// pointer (uint64 x 1: the address). components == 0 for anything else (structs, templates).
struct ElementLayout {
    ScalarType scalar = ScalarType::none;
    int components = 0;
};
ElementLayout element_layout(std::string_view type);

// An array bound written as an integer literal ("16", "0x10", "4u"); nullopt for anything else
// (a macro, a constexpr name, an expression, an empty bound).
std::optional<std::int64_t> literal_extent(std::string_view extent);

// Every variable defined at namespace scope with __constant__, __device__ or __managed__
// (declarations with `extern`, __shared__ variables and functions are left out), in source
// order, one per declarator (`__device__ int a, b[4];` is two). Namespaces (named, nested,
// `a::b`, anonymous), extern "C" blocks, template <...> variables, attributes and initializers
// (`= ...`, `{...}`) are understood. Never throws on any input.
std::vector<GlobalDecl> parse_globals(std::string_view source);

// Every static __shared__ variable of the cell, at any scope (a kernel's own included), one per
// declarator, in source order; `extern __shared__` arrays (dynamic shared memory) are left out.
// What the CPU device's reports need to name a shared array's element type and count.
std::vector<GlobalDecl> parse_shared_variables(std::string_view source);

// A template variable with its parameters replaced by `args` (missing trailing ones take their
// defaults) in its type and extents. Throws std::invalid_argument naming the expression when
// the argument count does not fit.
GlobalDecl instantiate_global(const GlobalDecl& decl, const std::vector<std::string>& args);

}  // namespace xcuda::compile
