#pragma once
// xcuda.Kernel (and the template family object), xcuda.Launcher, and launching.
#include "kernels/module_object.hpp"
#include "launch/launch_args.hpp"

#include <xcuda/compile/compiled_module.hpp>
#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/launch.hpp>
#include <xcuda/rt/module.hpp>

#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xcuda::magics {

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

    // This kernel in the same cell compiled with -lineinfo (itself when it was): what a child
    // under compute-sanitizer runs, so that its findings name the cell's lines.
    std::shared_ptr<Kernel> with_line_info();
    // This kernel in the same cell compiled with -G: what the debugger runs on the CPU device.
    std::shared_ptr<Kernel> with_debug_info();
    const std::string& source() const;

private:
    // A launch while one of the reasons in session/launch_detours.hpp holds: each is asked.
    void launch_detoured(pybind11::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem, CUstream stream,
                         const rt::LaunchOptions& options, CUfunction* validated);
    // The launch once `packed` holds the arguments. Detoured: the selected device may be the CPU
    // device and a recorder may take the launch; the plain instance asks neither.
    template <bool Detoured>
    void launch_packed(PackedArgs& packed, pybind11::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem,
                       CUstream stream, const rt::LaunchOptions& options, CUfunction* validated);
    // The function in `device`'s context, which the caller made current.
    const rt::Function& loaded_function(int device);
    // Hands the launch to %%cuda_check's diverter (launch_diverter.hpp) instead of making it.
    void divert_launch(PyObject* diverter, pybind11::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem,
                       CUstream stream, const rt::LaunchOptions& options);

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
    pybind11::object stream_ref;     // keeps a stream object alive while the launcher is
    CUfunction validated = nullptr;  // the function last checked against grid/block/shared_mem
};

// kernel[config]. A loop launching one kernel with the same grid, block, shared memory and
// stream objects gets the launcher it got last time instead of a new one parsed again.
pybind11::object launcher_for(const std::shared_ptr<Kernel>& k, pybind11::handle config);

// "float, 4" -> "float,4": template arguments compared without spaces.
std::string normalise_template_args(const std::string& args);

// xcuda.KernelTemplate: a __global__ template's instantiations, indexed by template arguments.
struct KernelTemplate {
    std::string name;
    std::map<std::string, std::shared_ptr<Kernel>> by_args;  // normalised args -> kernel
    std::vector<std::string> written;                        // as given to --instantiate
};

// xcuda.Launcher, Kernel, KernelTemplate, then Module and compile() (module_object.hpp).
void define_kernel_objects(pybind11::module_& m);

}  // namespace xcuda::magics
