#pragma once
// PC sampling of the launches some Python code makes (CUPTI, in this process), shown on the
// lines of the %%cuda cells that compiled the kernels, with the top stall reasons.
#include <xcuda/report/rich.hpp>

#include <functional>

namespace xcuda::magics {

class LaunchRecorder;

// The sampled lines of the kernels `work` launches through `recorder` (made with details);
// `ran` turns true once `work` has started.
report::Rich line_samples_report(LaunchRecorder& recorder, const std::function<void()>& work, bool& ran);

}  // namespace xcuda::magics
