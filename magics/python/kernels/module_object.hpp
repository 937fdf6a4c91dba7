#pragma once
// xcuda.Module (a compiled cell and the Kernels it binds) and xcuda.compile(), which %%cuda shares.
#include <xcuda/compile/compile_cell.hpp>
#include <xcuda/compile/header_registry.hpp>
#include <xcuda/rt/module.hpp>

#include <pybind11/pybind11.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace xcuda::magics {

// What compiles a cell again in another process (an unpickled module): its source, its
// options and the registered headers it includes, as they were when it was compiled.
struct ModuleRecipe {
    std::string source;
    compile::CellOptions options;
    std::vector<std::pair<std::string, std::string>> headers;  // name, text
};

// A compiled cell; loaded into each device's context on first use there.
class ModuleImpl {
public:
    // `unpickled`: bound from another process's CUBIN/PTX, not compiled (or fetched) here.
    ModuleImpl(std::shared_ptr<const compile::CompiledModule> compiled, ModuleRecipe recipe, std::string label,
               compile::CacheLevel cache, bool unpickled = false);
    const compile::CompiledModule& compiled() const { return *compiled_; }
    const std::shared_ptr<const compile::CompiledModule>& compiled_shared() const { return compiled_; }
    const ModuleRecipe& recipe() const { return recipe_; }
    const std::string& source() const { return recipe_.source; }
    const std::string& label() const { return label_; }
    compile::CacheLevel cache() const { return cache_; }
    bool unpickled() const { return unpickled_; }
    // The module in `device`'s context (made current by the caller).
    const rt::Module& loaded(int device);
    // The compile the CPU device runs: this one when its PTX has line information, else the same
    // cell compiled again with -lineinfo (once; the compile cache keeps it).
    const compile::CompiledModule& with_line_info();
    // `self` (this module) when its PTX has line information, else a module of the same cell
    // compiled with -lineinfo: what a child process under compute-sanitizer loads.
    static std::shared_ptr<ModuleImpl> lined(const std::shared_ptr<ModuleImpl>& self);
    // A module of the same cell compiled with -G (itself when it was; once, then remembered):
    // what the debugger runs on the CPU device, whose DWARF names each variable's register.
    static std::shared_ptr<ModuleImpl> debugged(const std::shared_ptr<ModuleImpl>& self);

private:
    std::shared_ptr<const compile::CompiledModule> compiled_;
    ModuleRecipe recipe_;
    std::string label_;
    compile::CacheLevel cache_;
    bool unpickled_;
    std::map<int, rt::Module> loaded_;
    std::shared_ptr<const compile::CompiledModule> lined_;  // with_line_info()'s recompile
    std::shared_ptr<ModuleImpl> debugged_;                  // debugged()'s recompile
};

// xcuda.Module: the module's kernels by source name (a KernelTemplate for a template).
struct ModuleHandle {
    std::shared_ptr<ModuleImpl> impl;
    pybind11::dict kernels;
    std::string name;
};

// The xcuda.Module (a ModuleHandle named `name`) binding every kernel of `impl`.
pybind11::object module_object(const std::shared_ptr<ModuleImpl>& impl, const std::string& name);

// xcuda.compile(...) and %%cuda share this: compiles (or fetches from the cache) and returns
// the Python Module object. Raises CompileError (at the cell's line and column). `headers`:
// where the cell's #include "name" lines find registered headers.
struct CompiledPythonModule {
    pybind11::object module;           // the xcuda.Module
    std::shared_ptr<ModuleImpl> impl;  // what it holds
    double milliseconds = 0;           // the compile (or the cache lookup) took
};
CompiledPythonModule compile_to_module(const std::string& source, const compile::CellOptions& options,
                                       const std::string& label);
CompiledPythonModule compile_to_module(const std::string& source, const compile::CellOptions& options,
                                       const std::string& label, const compile::HeaderRegistry& headers);

// Runs `compile` (a compile_cell or adopt_cell of session().compiler()) and turns the compile
// layer's errors into Python's: CompileError at the cell's line, ValueError for bad options.
compile::CompileOutcome translate_compile_errors(const std::function<compile::CompileOutcome()>& compile);

// xcuda.Module and xcuda.compile.
void define_module_objects(pybind11::module_& m);

}  // namespace xcuda::magics
