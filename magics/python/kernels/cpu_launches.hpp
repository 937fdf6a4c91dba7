#pragma once
// What the session keeps of launches on the CPU device: the kernel behind each lowered name (a
// failed check is reported with its parameter names and the cell's lines), and the one notice,
// in the first cell that launches there, that the CPU device runs the kernels.
#include <memory>

namespace xcuda::magics {

struct KernelBinding;
class ModuleImpl;

void note_cpu_launch(const std::shared_ptr<const KernelBinding>& binding, const std::shared_ptr<ModuleImpl>& module);

}  // namespace xcuda::magics
