// The %%cuda compile pipeline: cell source + options + headers -> a cached, bound-ready module.
#pragma once

#include "xcuda/compile/cache_entry.hpp"
#include "xcuda/compile/cell_options.hpp"
#include "xcuda/compile/compile_cache.hpp"
#include "xcuda/compile/compiled_module.hpp"
#include "xcuda/compile/device_link.hpp"
#include "xcuda/compile/diagnostics.hpp"
#include "xcuda/compile/global_decls.hpp"
#include "xcuda/compile/header_registry.hpp"
#include "xcuda/compile/kernel_signature.hpp"
#include "xcuda/compile/param_layout.hpp"
#include "xcuda/compile/pch_dir.hpp"
#include "xcuda/compile/rerun_memo.hpp"
#include "xcuda/compile/toolchain_facts.hpp"

#include "xcuda/rt/compiler.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcuda::compile {

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

    // The arch used when CellOptions::arch is empty (ToolchainFacts::default_arch).
    std::string default_arch(ArchSource* source = nullptr) { return toolchain_.default_arch(source); }
    void set_default_arch(std::string arch) { toolchain_.set_default_arch(std::move(arch)); }

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

    // The private directory for NVRTC's precompiled headers when `pch` asks for one
    // (PchMode::private_dir); "" otherwise (rt::CompileOptions::pch_dir).
    std::string private_pch_dir(PchMode pch);

    std::shared_ptr<CompileCache> cache_;
    CompilerFn compiler_;
    CompilerRunner compiler_runner_;
    std::atomic<std::size_t> calls_{0};
    std::size_t derivations_ = 0;
    ToolchainFacts toolchain_;       // the default arch and the loaded NVRTC
    RerunMemo reruns_;               // a re-run's call -> the cache key it derived
    std::optional<PchDir> pch_dir_;  // made on the first -pch cell (private_pch_dir)
    bool pch_dir_tried_ = false;
    DeviceObjects device_objects_;  // -dc cells linked so far, for later cells to link against
};

}  // namespace xcuda::compile
