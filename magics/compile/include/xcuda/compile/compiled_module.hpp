// What the compile pipeline gives back for a cell: the compiled module (CUBIN, PTX, log, the
// kernels and variables bound from it) and the outcome of one call (cache level, time). Plain
// values, apart from the session that makes them (compile_cell.hpp).
#pragma once

#include "xcuda/compile/compile_cache.hpp"
#include "xcuda/compile/diagnostics.hpp"
#include "xcuda/compile/global_decls.hpp"
#include "xcuda/compile/kernel_decl.hpp"
#include "xcuda/compile/param_layout.hpp"

#include "xcuda/rt/ptxas_info.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

// NVRTC's name for every cell: PTX line info (.file) names it; diagnostics are relabelled to the
// caller's cell label. Fixed, so a re-run under a new execution count still hits the cache.
inline constexpr const char* cell_program_name = "cell.cu";

struct CompiledKernel {
    KernelDecl decl;              // for a template: instantiated (template_args set, params resolved)
    std::string lowered_name;     // the symbol to look up in the module (cuModuleGetFunction)
    std::string name_expression;  // what NVRTC was asked to resolve ("&ns::k"); "" for extern "C"
    std::string instantiation;    // "float" for --instantiate 'axpy<float>' (Python: axpy["float"]); "" otherwise
    std::optional<rt::KernelResources> resources;  // from ptxas -v; absent when ptxas gave none
    std::vector<ValueLayout> layouts;              // per parameter, from the PTX entry (param_layout.hpp)
};

// A __constant__/__device__/__managed__ variable of the cell (Module.get_global).
struct CompiledGlobal {
    GlobalDecl decl;              // for a template: instantiated (template_args set, type substituted)
    std::string name_expression;  // what NVRTC was asked to resolve ("&ns::table", "&lut<float>")
    std::string lowered_name;     // the symbol to look up in the module (cuModuleGetGlobal)
};

// Where the arch came from, so the caller can say it ("sm_90 (no GPU: default)").
enum class ArchSource { option, device, fallback };

struct CompiledModule {
    std::string cubin;                    // ELF, what cuModuleLoadData takes
    std::string ptx;                      // always produced by NVRTC alongside the CUBIN
    std::string log;                      // NVRTC's raw log (ptxas -v lines included)
    std::vector<Diagnostic> warnings;     // parsed from log; the cell's are at file == cell_label
    std::string cell_label;               // "cell_7"
    std::vector<CompiledKernel> kernels;  // source order; one per instantiation for templates
    std::vector<CompiledGlobal> globals;  // source order; one per instantiation for templates
    std::vector<std::string> notes;       // things the user should know (template without
                                          // --instantiate, no __global__ in the cell, ...)
    std::string arch;                     // "sm_90"
    ArchSource arch_source = ArchSource::fallback;
    std::vector<std::string> nvrtc_options;  // the cell's NVRTC options (nvrtc_options()); the rest of
                                             // NVRTC's arguments: rt::nvrtc_arguments
    std::vector<std::string> headers_used;   // registered headers the cell includes
    std::string cache_key;                   // SHA-256 hex

    // The kernel bound as `name` (source name) and, for templates, `instantiation` ("float").
    const CompiledKernel* find(std::string_view name, std::string_view instantiation = {}) const;
};

struct CompileOutcome {
    std::shared_ptr<const CompiledModule> module;  // shared with the memory cache: immutable
    CacheLevel cache = CacheLevel::none;           // none = compiled now (or --no-cache)
    double milliseconds = 0;                       // wall time of this call
    std::string cache_warning;                     // the cache's news for this cell ("" mostly)
};

}  // namespace xcuda::compile
