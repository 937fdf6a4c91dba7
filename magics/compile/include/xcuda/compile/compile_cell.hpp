// The %%cuda compile pipeline: cell source + options + headers -> a cached, bound-ready module.
#pragma once

#include "xcuda/compile/cache_entry.hpp"
#include "xcuda/compile/cell_options.hpp"
#include "xcuda/compile/compile_cache.hpp"
#include "xcuda/compile/device_link.hpp"
#include "xcuda/compile/diagnostics.hpp"
#include "xcuda/compile/global_decls.hpp"
#include "xcuda/compile/header_registry.hpp"
#include "xcuda/compile/kernel_signature.hpp"
#include "xcuda/compile/param_layout.hpp"
#include "xcuda/compile/pch_dir.hpp"

#include "xcuda/rt/compiler.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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

// What does the compiling; tests inject a counting or failing one. Same contract as
// rt::compile (throws rt::CompileError when NVRTC rejects the source).
using CompilerFn = std::function<rt::CompileResult(std::string_view, const rt::CompileOptions&)>;

// One per interpreter; not thread-safe (the binding calls it with the GIL held). The cache it
// shares is thread-safe.
class CompileSession {
public:
    // `cache` null: no caching at all. `compiler` defaults to rt::compile.
    explicit CompileSession(std::shared_ptr<CompileCache> cache = std::make_shared<CompileCache>(),
                            CompilerFn compiler = {});

    // Runs each compiler call: the Python binding passes one that lets go of the interpreter's
    // lock there, so that compiles started from several threads (Kernel.autotune's) overlap. Only
    // the compiler runs outside it; every member of the session is touched with it held.
    using CompilerRunner = std::function<void(const std::function<void()>&)>;
    void set_compiler_runner(CompilerRunner runner) { compiler_runner_ = std::move(runner); }

    // Compiles (or fetches from cache) one cell. `cell_label` ("cell_7") is where diagnostics
    // say they are; it is not part of the cache key (re-running a cell gets a new label).
    // Throws CellCompileError when the cell does not compile (or NVRTC rejects an option given
    // after --), ParseError for an --arch this NVRTC cannot target, an option it does not have
    // (--fast-compile before NVRTC 12.9) or an --instantiate that names no template kernel or
    // template variable of the cell, std::invalid_argument for a bad template argument count.
    // A -dc/-rdc cell is device-linked (with libcudadevrt and the earlier -dc cells defining what
    // it declares) every time it runs, so it always sees the newest definitions; its
    // relocatable object is what the cache keeps. A failed link is a CellCompileError too.
    CompileOutcome compile_cell(std::string_view source, const CellOptions& options, const HeaderRegistry& headers,
                                const std::string& cell_label = "cell");

    // The module another process compiled from the same source, options and headers (an
    // unpickled xcuda.Module), bound from its `payload` for `arch` without running the compiler
    // or touching the cache: the kernels, signatures, resources and layouts are read as
    // compile_cell reads them. A -dc cell's payload must already be linked. Throws ParseError
    // like compile_cell for an --instantiate that names nothing.
    CompileOutcome adopt_cell(std::string_view source, const CellOptions& options, const HeaderRegistry& headers,
                              const std::string& arch, const CachePayload& payload,
                              const std::string& cell_label = "cell");

    // The arch used when CellOptions::arch is empty: the override, else the current device's,
    // else rt::fallback_arch (sm_90). Resolved once per session.
    std::string default_arch(ArchSource* source = nullptr);
    void set_default_arch(std::string arch);  // "" returns to the device/fallback rule

    CompileCache* cache() const { return cache_.get(); }
    // How many times the compiler function has run (a cache hit does not count).
    std::size_t compiler_calls() const { return calls_.load(); }
    // How many calls derived the cache key (parsed the cell, followed its #includes, hashed them):
    // re-running an unchanged cell with unchanged headers does not.
    std::size_t key_derivations() const { return derivations_; }

private:
    // `relocatable` linked into a loadable CUBIN (the rest of the payload kept).
    std::shared_ptr<const CachePayload> device_link(const CachePayload& relocatable, const std::string& arch,
                                                    const std::string& cell_label,
                                                    const std::vector<std::string>& opts);

    // The private directory for NVRTC's precompiled headers when the cell's `options` ask for
    // them (-pch) and name none; "" otherwise (rt::CompileOptions::pch_dir).
    std::string private_pch_dir(const std::vector<std::string>& options);

    // The memory cache's module for `key`, relabelled for `cell_label`; null when not there.
    std::shared_ptr<const CompiledModule> memoised(const std::string& key, const std::string& cell_label);
    void remember_rerun(std::string call, const std::string& key, std::uint64_t headers_generation);

    // A re-run's memo, looked up before anything is parsed or hashed: what a call was given (cell
    // text, NVRTC options, instantiations, arch) -> the cache key its compile derived, valid while
    // the header registry keeps the generation it had then.
    struct Rerun {
        std::string key;
        std::uint64_t headers_generation = 0;
    };
    std::unordered_map<std::string, Rerun> reruns_;
    std::size_t rerun_bytes_ = 0;
    std::size_t derivations_ = 0;

    std::shared_ptr<CompileCache> cache_;
    CompilerFn compiler_;
    CompilerRunner compiler_runner_;
    std::optional<PchDir> pch_dir_;  // made on the first -pch cell (private_pch_dir)
    bool pch_dir_tried_ = false;
    std::atomic<std::size_t> calls_{0};
    std::string arch_override_;
    std::optional<std::pair<std::string, ArchSource>> resolved_arch_;
    std::optional<std::vector<std::string>> toolkit_dirs_;
    std::optional<std::vector<std::string>> supported_archs_;
    std::string nvrtc_version_;
    std::pair<int, int> nvrtc_{0, 0};  // major, minor (set with nvrtc_version_)
    bool minimal_supported_ = false;   // NVRTC 12.4+ knows -minimal (set with nvrtc_version_)
    DeviceObjects device_objects_;     // -dc cells linked so far, for later cells to link against
};

}  // namespace xcuda::compile
