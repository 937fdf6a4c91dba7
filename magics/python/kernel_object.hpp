#pragma once
// xcuda.Module, xcuda.Kernel (and the template family object), and launching.
#include "launch_args.hpp"

#include <xcuda/compile/compile_cell.hpp>
#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/launch.hpp>
#include <xcuda/rt/module.hpp>

#include <pybind11/pybind11.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
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

private:
    std::shared_ptr<const compile::CompiledModule> compiled_;
    ModuleRecipe recipe_;
    std::string label_;
    compile::CacheLevel cache_;
    bool unpickled_;
    std::map<int, rt::Module> loaded_;
};

// What a Kernel takes from its compiled form alone: made once per compiled module and shared
// by every Module compiled from it, so re-running a cell builds no argument packer again.
struct KernelBinding {
    explicit KernelBinding(const compile::CompiledKernel& kernel);

    compile::CompiledKernel kernel;
    ArgumentPacker packer;
    std::string description;  // "kernel `saxpy`", for messages
    pybind11::str name;       // its key in Module.kernels (made once: Python caches a str's hash)
};

class Kernel : public std::enable_shared_from_this<Kernel> {
public:
    Kernel(std::shared_ptr<ModuleImpl> module, std::shared_ptr<const KernelBinding> binding);

    const std::string& name() const { return binding_->kernel.decl.name; }
    const compile::KernelDecl& decl() const { return binding_->kernel.decl; }
    const std::string& lowered_name() const { return binding_->kernel.lowered_name; }
    const std::string& instantiation() const { return binding_->kernel.instantiation; }
    const std::optional<rt::KernelResources>& resources() const { return binding_->kernel.resources; }
    const std::shared_ptr<ModuleImpl>& module() const { return module_; }
    const ArgumentPacker& packer() const { return binding_->packer; }

    // The function in the selected device's context (activates it; NoDeviceError without a GPU).
    const rt::Function& function();

    // Checks and packs `args`, then launches (copying numpy arguments in and back). With
    // `validated`, the launch limits are checked only when *validated is not the function
    // about to launch, which it then becomes (a Launcher's configuration never changes).
    void launch(pybind11::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem, CUstream stream,
                const rt::LaunchOptions& options, CUfunction* validated = nullptr);

private:
    std::shared_ptr<ModuleImpl> module_;
    std::shared_ptr<const KernelBinding> binding_;
    int function_device_ = -1;
    std::optional<rt::Function> function_;
};

// kernel[grid, block] / kernel[grid, block, shared_mem, stream]: a kernel with its launch
// configuration, called with the kernel's arguments. .with_options(cooperative=, cluster=)
// gives a copy with launch options.
struct Launcher {
    std::shared_ptr<Kernel> kernel;
    rt::Dim3 grid, block;
    std::size_t shared_mem = 0;
    CUstream stream = nullptr;
    rt::LaunchOptions options;
    pybind11::object stream_ref;  // keeps a stream object alive while the launcher is
    CUfunction validated = nullptr;  // the function last checked against grid/block/shared_mem
};

// kernel[config]. A loop launching one kernel with the same grid, block, shared memory and
// stream objects gets the launcher it got last time instead of a new one parsed again.
pybind11::object launcher_for(const std::shared_ptr<Kernel>& k, pybind11::handle config);

// "float, 4" -> "float,4": template arguments compared without spaces.
std::string normalise_template_args(const std::string& args);

// xcuda.Module: the module's kernels by source name (a KernelTemplate for a template).
struct ModuleHandle {
    std::shared_ptr<ModuleImpl> impl;
    pybind11::dict kernels;
    std::string name;
};

struct KernelTemplate {
    std::string name;
    std::map<std::string, std::shared_ptr<Kernel>> by_args;  // normalised args -> kernel
    std::vector<std::string> written;                        // as given to --instantiate
};

void define_kernel_objects(pybind11::module_& m);

// The xcuda.Module (a ModuleHandle named `name`) binding every kernel of `impl`.
pybind11::object module_object(const std::shared_ptr<ModuleImpl>& impl, const std::string& name);

// xcuda.compile(...) and %%cuda share this: compiles (or fetches from the cache) and returns
// the Python Module object. Raises CompileError (at the cell's line and column). `headers`:
// where the cell's #include "name" lines find registered headers.
struct CompiledPythonModule {
    pybind11::object module;            // the xcuda.Module
    std::shared_ptr<ModuleImpl> impl;   // what it holds
};
CompiledPythonModule compile_to_module(const std::string& source, const compile::CellOptions& options,
                                       const std::string& label);
CompiledPythonModule compile_to_module(const std::string& source, const compile::CellOptions& options,
                                       const std::string& label, const compile::HeaderRegistry& headers);

// Runs `compile` (a compile_cell or adopt_cell of session().compiler()) and turns the compile
// layer's errors into Python's: CompileError at the cell's line, ValueError for bad options.
compile::CompileOutcome translate_compile_errors(const std::function<compile::CompileOutcome()>& compile);

}  // namespace xcuda::magics
