// Streams this library created and has not destroyed, so a context-wide wait can poll them.
#pragma once

#include <cuda.h>

#include <vector>

namespace xcuda::rt::detail {

void register_stream(CUstream stream);
void unregister_stream(CUstream stream);
std::vector<CUstream> live_streams();  // of the current backend

}  // namespace xcuda::rt::detail
