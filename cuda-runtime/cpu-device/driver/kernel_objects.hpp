// CUmodule and CUfunction: a loaded module, and a kernel of it with the attributes
// cuFuncSetAttribute changes. A function keeps its module's code and variables alive (a graph may
// launch it after cuModuleUnload), but its handle dies with the module's.
#pragma once

#include "exec/engine.hpp"
#include "driver/handles.hpp"

#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace xcuda::cpu::driver::detail {

struct FunctionAttributes {
    int max_dynamic_shared = 0;
    int carveout = -1;  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: no preference
    int required_cluster[3] = {0, 0, 0};
    int non_portable_cluster = 0;
    int cluster_scheduling = 0;  // CU_CLUSTER_SCHEDULING_POLICY_DEFAULT
};

class Function {
public:
    Function(std::shared_ptr<const Module> module, const KernelInfo& info);

    const KernelInfo& info() const { return info_; }
    const std::shared_ptr<const Module>& module() const { return module_; }
    FunctionAttributes attributes() const;
    // The largest block the kernel can run: its .maxntid/.reqntid, and the registers a block of
    // that size needs (a 255-register kernel runs at most 256 threads per block).
    int max_threads_per_block() const;

    CUresult get_attribute(CUfunction_attribute attribute, int& value) const;
    CUresult set_attribute(CUfunction_attribute attribute, int value);

private:
    std::shared_ptr<const Module> module_;
    const KernelInfo& info_;  // owned by module_
    mutable std::mutex mutex_;
    FunctionAttributes attributes_;
};

struct LoadedModule {
    std::shared_ptr<Module> module;
    std::mutex mutex;
    std::map<std::string, CUfunction, std::less<>> functions;  // cuModuleGetFunction's answers, by name
};

HandleTable<LoadedModule>& module_table();
HandleTable<Function>& function_table();

}  // namespace xcuda::cpu::driver::detail
