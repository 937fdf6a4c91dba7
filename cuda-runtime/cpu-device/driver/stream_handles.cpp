#include "driver/stream_handles.hpp"

namespace xcuda::cpu::driver::detail {

HandleTable<Stream>& stream_table() {
    static auto* table = new HandleTable<Stream>();  // never destroyed: used during exit
    return *table;
}

CUresult resolve_stream(CUstream handle, std::shared_ptr<Stream>& stream) {
    if (handle == nullptr || handle == CU_STREAM_LEGACY) {
        stream = Scheduler::instance().legacy();
        return CUDA_SUCCESS;
    }
    if (handle == CU_STREAM_PER_THREAD) return CUDA_ERROR_NOT_SUPPORTED;
    stream = stream_table().find(handle);
    return stream ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

}  // namespace xcuda::cpu::driver::detail
