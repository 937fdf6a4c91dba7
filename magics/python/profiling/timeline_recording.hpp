#pragma once
// The recording under %%cuda_timeline and xcuda.timeline() (_cuda_timeline.py draws it): what the
// selected device ran between _timeline_start() and _timeline_stop(), as one dict per interval.
// On a GPU, CUPTI's Activity API in this process (rt::ActivityTrace): every library's kernels,
// copies, memsets, host-side waits, NVTX ranges and the calls that caused device work. On the
// CPU device, its stream workers' own record (kernels, copies, memsets, graphs) on the host's
// monotonic clock: there is no GPU clock, and no calls are traced.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

void define_timeline_recording(pybind11::module_& m);

}  // namespace xcuda::magics
