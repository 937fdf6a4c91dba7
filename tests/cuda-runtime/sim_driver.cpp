// A simulated libcuda.so.1 for CI, where no GPU exists: enough of the driver's observable
// behaviour (limits, errors, sticky faults, kernels that keep running) to test the driver side of
// the library. Kernels are recognised by name: "spin" keeps its stream busy until
// xcuda_sim_release(), "wild" faults with ILLEGAL_ADDRESS and "trap" with LAUNCH_FAILED (both
// sticky: every later call answers the same error), "bounded" allows only 256 threads per block.
// A module image is text; its kernels are the names it contains; an image starting with "bad"
// fails to load with a JIT error log.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

struct CUctx_st { int device; };
struct CUmod_st { std::string image; };
struct CUfunc_st { std::string name; int max_dynamic_shared; };
struct CUstream_st { unsigned flags; bool busy; };
struct CUevent_st { unsigned flags; CUstream stream; };

namespace {

std::atomic<long> g_calls{0};
std::atomic<long> g_device_allocations{0};  // cuMemAlloc calls, for the staging pool's tests
std::atomic<int> g_sticky{0};
std::atomic<bool> g_launched{false};
std::mutex g_mutex;
std::set<CUstream> g_streams;
CUstream_st g_legacy{0, false};
CUctx_st g_ctx{0};
thread_local CUcontext t_current = nullptr;
std::size_t g_fifo = 8650752;

// Every entry point counts itself and, after a sticky fault, answers that fault again.
#define SIM_ENTER()                                     \
    g_calls.fetch_add(1);                               \
    if (int sticky = g_sticky.load()) return static_cast<CUresult>(sticky)

CUstream_st* stream_of(CUstream s) { return s != nullptr ? s : &g_legacy; }

bool busy(CUstream s) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (s != nullptr) return s->busy;
    // The legacy stream waits for every blocking stream.
    for (CUstream other : g_streams) {
        if (other->flags == CU_STREAM_DEFAULT && other->busy) return true;
    }
    return g_legacy.busy;
}

}  // namespace

extern "C" long xcuda_sim_driver_calls() { return g_calls.load(); }
extern "C" long xcuda_sim_device_allocations() { return g_device_allocations.load(); }
extern "C" void xcuda_sim_release() {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (CUstream s : g_streams) s->busy = false;
    g_legacy.busy = false;
}

CUresult cuGetErrorName(CUresult error, const char** str) {
    switch (error) {
        case CUDA_SUCCESS: *str = "CUDA_SUCCESS"; break;
        case CUDA_ERROR_INVALID_VALUE: *str = "CUDA_ERROR_INVALID_VALUE"; break;
        case CUDA_ERROR_OUT_OF_MEMORY: *str = "CUDA_ERROR_OUT_OF_MEMORY"; break;
        case CUDA_ERROR_INVALID_DEVICE: *str = "CUDA_ERROR_INVALID_DEVICE"; break;
        case CUDA_ERROR_INVALID_PTX: *str = "CUDA_ERROR_INVALID_PTX"; break;
        case CUDA_ERROR_INVALID_HANDLE: *str = "CUDA_ERROR_INVALID_HANDLE"; break;
        case CUDA_ERROR_NOT_FOUND: *str = "CUDA_ERROR_NOT_FOUND"; break;
        case CUDA_ERROR_NOT_READY: *str = "CUDA_ERROR_NOT_READY"; break;
        case CUDA_ERROR_ILLEGAL_ADDRESS: *str = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
        case CUDA_ERROR_LAUNCH_FAILED: *str = "CUDA_ERROR_LAUNCH_FAILED"; break;
        default: *str = nullptr; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** str) {
    switch (error) {
        case CUDA_ERROR_ILLEGAL_ADDRESS: *str = "an illegal memory access was encountered"; break;
        case CUDA_ERROR_LAUNCH_FAILED: *str = "unspecified launch failure"; break;
        case CUDA_ERROR_OUT_OF_MEMORY: *str = "out of memory"; break;
        default: return cuGetErrorName(error, str);
    }
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* v) { *v = CUDA_VERSION; return CUDA_SUCCESS; }
CUresult cuInit(unsigned) { SIM_ENTER(); return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int* n) { SIM_ENTER(); *n = 1; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
    SIM_ENTER();
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *d = 0;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
    SIM_ENTER();
    std::strncpy(name, "xcuda simulated device", static_cast<std::size_t>(len));
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
    SIM_ENTER();
    switch (a) {
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
        case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
        case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
        default: *v = 1; break;
    }
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t* bytes, CUdevice) { SIM_ENTER(); *bytes = std::size_t{80} << 30; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) { SIM_ENTER(); *c = &g_ctx; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRelease(CUdevice) { SIM_ENTER(); return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { SIM_ENTER(); t_current = c; return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(CUcontext* c) { SIM_ENTER(); *c = t_current; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice* d) {
    SIM_ENTER();
    if (t_current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    *d = 0;
    return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() {
    SIM_ENTER();
    // A real blocking wait cannot be interrupted; the simulation refuses to pretend otherwise.
    return busy(nullptr) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
    SIM_ENTER();
    if (limit != CU_LIMIT_PRINTF_FIFO_SIZE || g_launched.load()) return CUDA_ERROR_INVALID_VALUE;
    g_fifo = value;
    return CUDA_SUCCESS;
}
CUresult cuCtxGetLimit(size_t* value, CUlimit) { SIM_ENTER(); *value = g_fifo; return CUDA_SUCCESS; }
CUresult cuMemGetInfo(size_t* free, size_t* total) {
    SIM_ENTER();
    *total = std::size_t{80} << 30;
    *free = *total / 2;
    return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned n, CUjit_option* keys, void** values) {
    SIM_ENTER();
    const char* text = static_cast<const char*>(image);
    if (std::strncmp(text, "bad", 3) == 0) {
        for (unsigned i = 0; i < n; ++i) {
            if (keys[i] == CU_JIT_ERROR_LOG_BUFFER) std::strcpy(static_cast<char*>(values[i]), "ptxas fatal: bad image");
        }
        return CUDA_ERROR_INVALID_PTX;
    }
    *m = new CUmod_st{text};
    return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) { SIM_ENTER(); delete m; return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
    SIM_ENTER();
    if (m->image.find(name) == std::string::npos) return CUDA_ERROR_NOT_FOUND;
    *f = new CUfunc_st{name, 49152};   // leaked like the driver's: valid as long as the process
    return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
    SIM_ENTER();
    switch (a) {
        case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = f->name == "bounded" ? 256 : 1024; break;
        case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *v = f->max_dynamic_shared; break;
        case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 10; break;
        case CU_FUNC_ATTRIBUTE_PTX_VERSION: case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = 90; break;
        default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
    SIM_ENTER();
    if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || v > 232448) return CUDA_ERROR_INVALID_VALUE;
    f->max_dynamic_shared = v;
    return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction, int block, size_t) {
    SIM_ENTER();
    *blocks = block > 0 ? std::min(2048 / block, 32) : 0;
    return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxPotentialBlockSize(int* grid, int* block, CUfunction, CUoccupancyB2DSize, size_t, int limit) {
    SIM_ENTER();
    *block = limit > 0 && limit < 1024 ? limit : 1024;
    *grid = 132 * (2048 / *block);
    return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr* p, size_t bytes) {
    SIM_ENTER();
    if (bytes > (std::size_t{1} << 40)) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = reinterpret_cast<CUdeviceptr>(std::calloc(1, bytes));
    ++g_device_allocations;
    return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) { SIM_ENTER(); std::free(reinterpret_cast<void*>(p)); return CUDA_SUCCESS; }
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned) { SIM_ENTER(); *p = std::calloc(1, bytes); return CUDA_SUCCESS; }
CUresult cuMemFreeHost(void* p) { SIM_ENTER(); std::free(p); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoD(CUdeviceptr d, const void* s, size_t n) { SIM_ENTER(); std::memcpy(reinterpret_cast<void*>(d), s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void* d, CUdeviceptr s, size_t n) { SIM_ENTER(); std::memcpy(d, reinterpret_cast<void*>(s), n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
    SIM_ENTER();
    std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) { SIM_ENTER(); std::memset(reinterpret_cast<void*>(d), v, n); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, CUstream) { return cuMemcpyHtoD(d, s, n); }
CUresult cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, CUstream) { return cuMemcpyDtoH(d, s, n); }
CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) { return cuMemcpyDtoD(d, s, n); }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) { return cuMemsetD8(d, v, n); }
CUresult cuStreamCreate(CUstream* s, unsigned flags) {
    SIM_ENTER();
    *s = new CUstream_st{flags, false};
    std::lock_guard<std::mutex> lock(g_mutex);
    g_streams.insert(*s);
    return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream s) {
    SIM_ENTER();
    std::lock_guard<std::mutex> lock(g_mutex);
    g_streams.erase(s);
    delete s;
    return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream s) { SIM_ENTER(); return busy(s) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent* e, unsigned flags) { SIM_ENTER(); *e = new CUevent_st{flags, nullptr}; return CUDA_SUCCESS; }
CUresult cuEventDestroy(CUevent e) { SIM_ENTER(); delete e; return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { SIM_ENTER(); e->stream = s; return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent e) { SIM_ENTER(); return busy(e->stream) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
    SIM_ENTER();
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
    *ms = 1.5f;
    return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned, unsigned, unsigned, unsigned bx, unsigned by, unsigned bz, unsigned,
                        CUstream s, void**, void**) {
    SIM_ENTER();
    if (1ULL * bx * by * bz > 1024) return CUDA_ERROR_INVALID_VALUE;
    g_launched = true;
    if (f->name == "wild") g_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    if (f->name == "trap") g_sticky = CUDA_ERROR_LAUNCH_FAILED;
    if (f->name == "spin") {
        std::lock_guard<std::mutex> lock(g_mutex);
        stream_of(s)->busy = true;
    }
    return CUDA_SUCCESS;
}
