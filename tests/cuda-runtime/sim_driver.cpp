// A simulated libcuda.so.1 for CI, where no GPU exists: enough of the driver's observable
// behaviour (limits, errors, sticky faults, kernels that keep running) to test the driver side of
// the library. Kernels are recognised by name: "spin" keeps its stream busy until
// xcuda_sim_release(), "wild" faults with ILLEGAL_ADDRESS and "trap" with LAUNCH_FAILED (both
// sticky: every later call answers the same error), "bounded" allows only 256 threads per block,
// "staticsmem" declares 16 KiB of static shared memory, "clustered" was compiled with
// __cluster_dims__(2, 1, 1). A module image is text; its kernels are the names it contains, its
// variables the .global/.const lines of PTX; an image starting with "bad" fails to load with a
// JIT error log. Stream capture records launches as graph nodes; a graph launch runs them
// ("cuGraphLaunch <name> ... arg0=<first int parameter>"). The device is an sm_90 with 132 SMs, or the compute
// capability in $XCUDA_SIM_COMPUTE_CAPABILITY ("80"); its driver is for CUDA 13.0, or the version in
// $XCUDA_SIM_DRIVER_VERSION ("12040"), and refuses PTX newer than that CUDA (.version 9.x needs
// CUDA 13) with UNSUPPORTED_PTX_VERSION, as a real driver does. xcuda_sim_last_launch() describes the last launch.
// "add_bytes" (const unsigned char* x, unsigned char* y, unsigned long long n) is the one kernel that touches memory:
// y[i] += x[i], then it scribbles 0xEE over x (a const argument must not come back). An asynchronous copy from or to
// pinned memory (cuMemHostAlloc) happens only when something waits for its stream (a query, a synchronisation, a later
// launch or copy), as a DMA may: pinned memory reused before the wait shows in the data. The calls that synchronise
// implicitly on a real driver wait, uninterruptibly, while a "spin" runs: cuMemFree, cuMemFreeHost, cuModuleUnload,
// cuCtxSynchronize and cuDevicePrimaryCtxRelease for every stream, the synchronous copies and memsets for the legacy
// stream (and the blocking streams it waits for). On the H200 those calls never return while a kernel spins.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

struct CUctx_st {
    int device;
};
struct CUmod_st {
    std::string image;
    std::map<std::string, std::pair<void*, std::size_t>> globals;  // name -> host memory standing in
};
struct CUfunc_st {
    std::string name;
    std::map<int, int> attributes;  // CUfunction_attribute -> value, for the ones that vary
};
struct CUgraphNode_st {
    CUfunction function;
    unsigned grid[3], block[3], shared;
    std::int32_t arg0;  // the first parameter's first 4 bytes, for tests of argument updates
};
struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};
struct CUgraphExec_st {
    CUgraph graph;
    std::vector<CUgraphNode_st> nodes;
};
struct CUstream_st {
    unsigned flags;
    bool busy;
    CUgraph capture = nullptr;
};
struct CUevent_st {
    unsigned flags;
    CUstream stream;
};

namespace {

std::atomic<long> g_calls{0};
std::atomic<long> g_device_allocations{0};  // cuMemAlloc calls, for the staging pool's tests
std::atomic<long> g_device_frees{0};        // cuMemFree calls that returned
std::atomic<long> g_host_allocations{0};    // cuMemHostAlloc calls, for the pinned staging's tests
std::atomic<bool> g_fail_host_allocations{false};
std::atomic<long> g_modules{0};  // loaded and not unloaded
std::atomic<int> g_sticky{0};
std::atomic<bool> g_launched{false};
std::mutex g_mutex;
std::condition_variable g_released;  // notified by xcuda_sim_release()
std::set<CUstream> g_streams;
// Every stream ever made: a destroyed one stays readable, as an event recorded on it may still be
// queried (a real driver's event completes with the stream's work).
std::vector<CUstream> g_all_streams;
CUstream_st g_legacy{0, false};
CUctx_st g_ctx{0};
thread_local CUcontext t_current = nullptr;
std::size_t g_fifo = 8650752;
std::string g_last_launch;  // guarded by g_mutex

// Guarded by g_mutex: pinned allocations (start -> bytes), and asynchronous copies that involve
// them, not yet done. Never destroyed: the library's static destructors free pinned memory at
// exit, maybe after this library's would have run.
auto& g_pinned = *new std::map<const char*, std::size_t>();
struct PendingCopy {
    CUstream stream;
    void* dst;
    const void* src;
    std::size_t bytes;
};
auto& g_pending = *new std::vector<PendingCopy>();

constexpr int sim_sm_count = 132;
constexpr int sim_optin_shared = 232448;

int compute_capability() {
    const char* cc = std::getenv("XCUDA_SIM_COMPUTE_CAPABILITY");
    return cc != nullptr && *cc != '\0' ? std::atoi(cc) : 90;
}

int static_shared(const CUfunc_st* f) { return f->name == "staticsmem" ? 16384 : 0; }

// The size of variable `name` from the PTX line declaring it (".global .align 4 .b8 coeffs[64];",
// ".const .align 4 .u32 counter = 5;"), or 0 when there is none.
std::size_t ptx_variable_size(const std::string& image, const std::string& name) {
    std::istringstream lines(image);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.find(".global") != 0 && line.find(".const") != 0 && line.find(".visible") != 0) continue;
        const std::size_t at = line.find(" " + name);
        if (at == std::string::npos) continue;
        const char after = at + 1 + name.size() < line.size() ? line[at + 1 + name.size()] : ';';
        if (after != '[' && after != ';' && after != ' ') continue;
        const std::size_t type = line.rfind(" .", at);
        if (type == std::string::npos) continue;
        std::size_t bytes = static_cast<std::size_t>(std::atoi(line.c_str() + type + 3)) / 8;  // ".b8" -> 1
        for (std::size_t b = line.find('[', at); b != std::string::npos && b < line.find('=');
             b = line.find('[', b + 1))
            bytes *= static_cast<std::size_t>(std::atoll(line.c_str() + b + 1));
        return bytes;
    }
    return 0;
}

std::string dims(unsigned x, unsigned y, unsigned z) {
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

// Every entry point counts itself and, after a sticky fault, answers that fault again.
#define SIM_ENTER()       \
    g_calls.fetch_add(1); \
    if (int sticky = g_sticky.load()) return static_cast<CUresult>(sticky)

CUstream_st* stream_of(CUstream s) { return s != nullptr ? s : &g_legacy; }

bool busy_locked(CUstream s) {
    if (s != nullptr) return s->busy;
    // The legacy stream waits for every blocking stream.
    for (CUstream other : g_streams) {
        if (other->flags == CU_STREAM_DEFAULT && other->busy) return true;
    }
    return g_legacy.busy;
}

bool busy(CUstream s) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return busy_locked(s);
}

bool any_busy_locked() {
    for (CUstream s : g_streams) {
        if (s->busy) return true;
    }
    return g_legacy.busy;
}

// A real driver's implicit synchronisation: blocks until the spinning kernels that `s` waits
// for are released (every stream's when `s` is null and `device_wide`), forever if nobody does.
void wait_implicitly(bool device_wide) {
    std::unique_lock<std::mutex> lock(g_mutex);
    g_released.wait(lock, [&] { return device_wide ? !any_busy_locked() : !busy_locked(nullptr); });
}

bool pinned_locked(const void* p) {
    const char* c = static_cast<const char*>(p);
    auto it = g_pinned.upper_bound(c);
    return it != g_pinned.begin() && c < std::prev(it)->first + std::prev(it)->second;
}

// Does the pending copies whose stream is not held by a spinning kernel, in order.
void run_pending() {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::vector<PendingCopy> held;
    for (const PendingCopy& c : g_pending) {
        if (busy_locked(c.stream)) {
            held.push_back(c);
        } else {
            std::memcpy(c.dst, c.src, c.bytes);
        }
    }
    g_pending = std::move(held);
}

// An asynchronous copy: later when the host side is pinned (queuing more copies does not make
// the earlier ones happen), at once otherwise, after those queued (the driver stages pageable
// memory before it returns).
void copy_async(void* dst, const void* src, std::size_t n, const void* host, CUstream s) {
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (pinned_locked(host)) {
            g_pending.push_back({s, dst, src, n});
            return;
        }
    }
    run_pending();
    std::memcpy(dst, src, n);
}

}  // namespace

extern "C" long xcuda_sim_driver_calls() { return g_calls.load(); }
extern "C" long xcuda_sim_device_allocations() { return g_device_allocations.load(); }
extern "C" long xcuda_sim_device_frees() { return g_device_frees.load(); }
extern "C" long xcuda_sim_host_allocations() { return g_host_allocations.load(); }
extern "C" void xcuda_sim_fail_host_allocations(int fail) { g_fail_host_allocations = fail != 0; }
extern "C" long xcuda_sim_modules_loaded() { return g_modules.load(); }
extern "C" const char* xcuda_sim_last_launch() {
    static thread_local std::string copy;
    std::lock_guard<std::mutex> lock(g_mutex);
    copy = g_last_launch;
    return copy.c_str();
}
extern "C" void xcuda_sim_release() {
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        for (CUstream s : g_all_streams) s->busy = false;
        g_legacy.busy = false;
    }
    g_released.notify_all();
}

CUresult cuGetErrorName(CUresult error, const char** str) {
    switch (error) {
        case CUDA_SUCCESS: *str = "CUDA_SUCCESS"; break;
        case CUDA_ERROR_INVALID_VALUE: *str = "CUDA_ERROR_INVALID_VALUE"; break;
        case CUDA_ERROR_OUT_OF_MEMORY: *str = "CUDA_ERROR_OUT_OF_MEMORY"; break;
        case CUDA_ERROR_INVALID_DEVICE: *str = "CUDA_ERROR_INVALID_DEVICE"; break;
        case CUDA_ERROR_INVALID_PTX: *str = "CUDA_ERROR_INVALID_PTX"; break;
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: *str = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"; break;
        case CUDA_ERROR_INVALID_HANDLE: *str = "CUDA_ERROR_INVALID_HANDLE"; break;
        case CUDA_ERROR_NOT_FOUND: *str = "CUDA_ERROR_NOT_FOUND"; break;
        case CUDA_ERROR_NOT_READY: *str = "CUDA_ERROR_NOT_READY"; break;
        case CUDA_ERROR_ILLEGAL_ADDRESS: *str = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
        case CUDA_ERROR_LAUNCH_FAILED: *str = "CUDA_ERROR_LAUNCH_FAILED"; break;
        case CUDA_ERROR_NOT_PERMITTED: *str = "CUDA_ERROR_NOT_PERMITTED"; break;
        case CUDA_ERROR_INVALID_CLUSTER_SIZE: *str = "CUDA_ERROR_INVALID_CLUSTER_SIZE"; break;
        case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: *str = "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"; break;
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

int simulated_driver_version() {
    const char* v = std::getenv("XCUDA_SIM_DRIVER_VERSION");
    return v != nullptr && *v != '\0' ? std::atoi(v) : CUDA_VERSION;
}

CUresult cuDriverGetVersion(int* v) {
    *v = simulated_driver_version();
    return CUDA_SUCCESS;
}
CUresult cuInit(unsigned) {
    SIM_ENTER();
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* n) {
    SIM_ENTER();
    *n = 1;
    return CUDA_SUCCESS;
}
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
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = compute_capability() / 10; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = compute_capability() % 10; break;
        case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: *v = compute_capability() >= 90; break;
        case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = sim_sm_count; break;
        case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = sim_optin_shared; break;
        default: *v = 1; break;
    }
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t* bytes, CUdevice) {
    SIM_ENTER();
    *bytes = std::size_t{80} << 30;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
    SIM_ENTER();
    *c = &g_ctx;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) {
    SIM_ENTER();
    wait_implicitly(true);
    return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c) {
    SIM_ENTER();
    t_current = c;
    return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext* c) {
    SIM_ENTER();
    *c = t_current;
    return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* d) {
    SIM_ENTER();
    if (t_current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    *d = 0;
    return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() {
    SIM_ENTER();
    wait_implicitly(true);
    run_pending();
    return CUDA_SUCCESS;
}
CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
    SIM_ENTER();
    if (limit != CU_LIMIT_PRINTF_FIFO_SIZE || g_launched.load()) return CUDA_ERROR_INVALID_VALUE;
    g_fifo = value;
    return CUDA_SUCCESS;
}
CUresult cuCtxGetLimit(size_t* value, CUlimit) {
    SIM_ENTER();
    *value = g_fifo;
    return CUDA_SUCCESS;
}
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
            if (keys[i] == CU_JIT_ERROR_LOG_BUFFER)
                std::strcpy(static_cast<char*>(values[i]), "ptxas fatal: bad image");
        }
        return CUDA_ERROR_INVALID_PTX;
    }
    // PTX ISA 8.x comes with CUDA 12, 9.x with CUDA 13: a driver JIT-compiles none newer than its own.
    if (const char* version = std::strstr(text, "\n.version "); version != nullptr) {
        if (std::atoi(version + 10) > simulated_driver_version() / 1000 - 4) return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    }
    *m = new CUmod_st{text, {}};
    ++g_modules;
    return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) {
    SIM_ENTER();
    wait_implicitly(true);
    for (auto& [name, memory] : m->globals) std::free(memory.first);
    delete m;
    --g_modules;
    return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
    SIM_ENTER();
    if (m->image.find(name) == std::string::npos) return CUDA_ERROR_NOT_FOUND;
    *f = new CUfunc_st{name, {}};  // leaked like the driver's: valid as long as the process
    (*f)->attributes[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES] = 49152 - static_shared(*f);
    if ((*f)->name == "clustered") {
        (*f)->attributes[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = 2;
        (*f)->attributes[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT] = 1;
        (*f)->attributes[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH] = 1;
    }
    return CUDA_SUCCESS;
}
CUresult cuModuleGetGlobal(CUdeviceptr* ptr, size_t* bytes, CUmodule m, const char* name) {
    SIM_ENTER();
    auto it = m->globals.find(name);
    if (it == m->globals.end()) {
        const std::size_t size = ptx_variable_size(m->image, name);
        if (size == 0) return CUDA_ERROR_NOT_FOUND;
        it = m->globals.emplace(name, std::make_pair(std::calloc(1, size), size)).first;
    }
    if (ptr != nullptr) *ptr = reinterpret_cast<CUdeviceptr>(it->second.first);
    if (bytes != nullptr) *bytes = it->second.second;
    return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction f) {
    SIM_ENTER();
    switch (a) {
        case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = f->name == "bounded" ? 256 : 1024; break;
        case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = static_shared(f); break;
        case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 10; break;
        case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = compute_capability(); break;
        default: {
            auto it = f->attributes.find(a);
            *v = it == f->attributes.end() ? 0 : it->second;
            break;
        }
    }
    return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
    SIM_ENTER();
    switch (a) {
        case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
            if (v < 0 || v > sim_optin_shared - static_shared(f)) return CUDA_ERROR_INVALID_VALUE;
            break;
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
            if (f->name == "clustered") return CUDA_ERROR_NOT_PERMITTED;  // set at compile time
            break;
        case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
            if (v > 100) return CUDA_ERROR_INVALID_VALUE;
            break;
        case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: break;
        default: return CUDA_ERROR_INVALID_VALUE;  // read-only
    }
    f->attributes[a] = v;
    return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveClusters(int* clusters, CUfunction f, const CUlaunchConfig* config) {
    SIM_ENTER();
    if (compute_capability() < 90) return CUDA_ERROR_INVALID_VALUE;
    unsigned long long size = 0;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        if (config->attrs[i].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) continue;
        const auto& c = config->attrs[i].value.clusterDim;
        size = 1ULL * c.x * c.y * c.z;
    }
    if (size == 0 || size > 16) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    const bool non_portable = f->attributes[CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED] != 0;
    *clusters = size > 8 && !non_portable ? 0 : static_cast<int>(sim_sm_count * 2 / size);
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
CUresult cuMemFree(CUdeviceptr p) {
    SIM_ENTER();
    wait_implicitly(true);
    run_pending();
    std::free(reinterpret_cast<void*>(p));
    ++g_device_frees;
    return CUDA_SUCCESS;
}
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned) {
    SIM_ENTER();
    if (g_fail_host_allocations.load()) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = std::calloc(1, bytes);
    ++g_host_allocations;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_pinned[static_cast<const char*>(*p)] = bytes;
    return CUDA_SUCCESS;
}
CUresult cuMemFreeHost(void* p) {
    SIM_ENTER();
    wait_implicitly(true);
    run_pending();
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_pinned.erase(static_cast<const char*>(p));
    }
    std::free(p);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr d, const void* s, size_t n) {
    SIM_ENTER();
    wait_implicitly(false);
    run_pending();
    std::memcpy(reinterpret_cast<void*>(d), s, n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void* d, CUdeviceptr s, size_t n) {
    SIM_ENTER();
    wait_implicitly(false);
    run_pending();
    std::memcpy(d, reinterpret_cast<void*>(s), n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
    SIM_ENTER();
    wait_implicitly(false);
    run_pending();
    std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
    SIM_ENTER();
    wait_implicitly(false);
    run_pending();
    std::memset(reinterpret_cast<void*>(d), v, n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, CUstream stream) {
    SIM_ENTER();
    copy_async(reinterpret_cast<void*>(d), s, n, s, stream);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, CUstream stream) {
    SIM_ENTER();
    copy_async(d, reinterpret_cast<const void*>(s), n, d, stream);
    return CUDA_SUCCESS;
}
// Done at once (the simulator does not queue them behind a spin), but never waiting as the
// synchronous forms do.
CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) {
    SIM_ENTER();
    run_pending();
    std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) {
    SIM_ENTER();
    run_pending();
    std::memset(reinterpret_cast<void*>(d), v, n);
    return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream* s, unsigned flags) {
    SIM_ENTER();
    *s = new CUstream_st{flags, false};
    std::lock_guard<std::mutex> lock(g_mutex);
    g_streams.insert(*s);
    g_all_streams.push_back(*s);
    return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream s) {
    SIM_ENTER();
    std::lock_guard<std::mutex> lock(g_mutex);
    g_streams.erase(s);  // kept in memory (g_all_streams): events recorded on it stay valid
    return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream s) {
    SIM_ENTER();
    run_pending();
    return busy(s) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent* e, unsigned flags) {
    SIM_ENTER();
    *e = new CUevent_st{flags, nullptr};
    return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent e) {
    SIM_ENTER();
    delete e;
    return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream s) {
    SIM_ENTER();
    e->stream = s;
    return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent e) {
    SIM_ENTER();
    run_pending();
    return busy(e->stream) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
    SIM_ENTER();
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
    *ms = 1.5f;
    return CUDA_SUCCESS;
}
namespace {

// The kernel's effect on memory: only add_bytes has one.
void execute(CUfunction f, void** params) {
    if (f->name != "add_bytes" || params == nullptr) return;
    auto* x = reinterpret_cast<unsigned char*>(*static_cast<CUdeviceptr*>(params[0]));
    auto* y = reinterpret_cast<unsigned char*>(*static_cast<CUdeviceptr*>(params[1]));
    const auto n = *static_cast<unsigned long long*>(params[2]);
    for (unsigned long long i = 0; i < n; ++i) y[i] = static_cast<unsigned char>(y[i] + x[i]);
    std::memset(x, 0xEE, n);
}

CUresult run(CUfunction f, unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream s, std::string what,
             void** params = nullptr) {
    if (1ULL * bx * by * bz > 1024) return CUDA_ERROR_INVALID_VALUE;
    run_pending();
    auto dyn = f->attributes.find(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    if (dyn != f->attributes.end() && shared > static_cast<unsigned>(dyn->second)) return CUDA_ERROR_INVALID_VALUE;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_last_launch = std::move(what);
    }
    g_launched = true;
    execute(f, params);
    if (f->name == "wild") g_sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    if (f->name == "trap") g_sticky = CUDA_ERROR_LAUNCH_FAILED;
    if (f->name == "spin") {
        std::lock_guard<std::mutex> lock(g_mutex);
        stream_of(s)->busy = true;
    }
    return CUDA_SUCCESS;
}

}  // namespace

namespace {

// A launch into a capturing stream becomes a node of its graph instead of running.
bool captured(CUstream s, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
              unsigned shared, void** params) {
    std::lock_guard<std::mutex> lock(g_mutex);
    CUgraph g = stream_of(s)->capture;
    if (g == nullptr) return false;
    auto node = std::make_unique<CUgraphNode_st>(CUgraphNode_st{f, {gx, gy, gz}, {bx, by, bz}, shared, 0});
    if (params != nullptr && params[0] != nullptr) std::memcpy(&node->arg0, params[0], sizeof(node->arg0));
    g->nodes.push_back(std::move(node));
    return true;
}

}  // namespace

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void** params, void**) {
    SIM_ENTER();
    if (captured(s, f, gx, gy, gz, bx, by, bz, shared, params)) return CUDA_SUCCESS;
    return run(f, bx, by, bz, shared, s,
               "cuLaunchKernel " + f->name + " grid=" + dims(gx, gy, gz) + " block=" + dims(bx, by, bz) +
                   " shared=" + std::to_string(shared),
               params);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void**) {
    SIM_ENTER();
    if (captured(c->hStream, f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                 c->sharedMemBytes, params))
        return CUDA_SUCCESS;
    std::string what = "cuLaunchKernelEx " + f->name + " grid=" + dims(c->gridDimX, c->gridDimY, c->gridDimZ) +
                       " block=" + dims(c->blockDimX, c->blockDimY, c->blockDimZ) +
                       " shared=" + std::to_string(c->sharedMemBytes);
    for (unsigned i = 0; i < c->numAttrs; ++i) {
        const CUlaunchAttribute& a = c->attrs[i];
        if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            what += " cooperative=" + std::to_string(a.value.cooperative);
        } else if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            if (compute_capability() < 90) return CUDA_ERROR_INVALID_VALUE;
            what += " cluster=" + dims(a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z);
        } else {
            what += " attribute" + std::to_string(a.id);
        }
    }
    return run(f, c->blockDimX, c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream, std::move(what), params);
}

CUresult cuStreamBeginCapture(CUstream s, CUstreamCaptureMode) {
    SIM_ENTER();
    if (s == nullptr) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    std::lock_guard<std::mutex> lock(g_mutex);
    if (s->capture != nullptr) return CUDA_ERROR_ILLEGAL_STATE;
    s->capture = new CUgraph_st();
    return CUDA_SUCCESS;
}
CUresult cuStreamEndCapture(CUstream s, CUgraph* graph) {
    SIM_ENTER();
    std::lock_guard<std::mutex> lock(g_mutex);
    if (s == nullptr || s->capture == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
    *graph = std::exchange(s->capture, nullptr);
    return CUDA_SUCCESS;
}
CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus* status) {
    SIM_ENTER();
    std::lock_guard<std::mutex> lock(g_mutex);
    *status = stream_of(s)->capture != nullptr ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}
CUresult cuStreamGetCaptureInfo(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
                                const CUgraphNode** dependencies, const CUgraphEdgeData** edges, size_t* count) {
    SIM_ENTER();
    std::lock_guard<std::mutex> lock(g_mutex);
    static thread_local CUgraphNode last;
    CUgraph g = stream_of(s)->capture;
    *status = g != nullptr ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    if (id) *id = 1;
    if (graph) *graph = g;
    if (edges) *edges = nullptr;
    last = g != nullptr && !g->nodes.empty() ? g->nodes.back().get() : nullptr;
    if (dependencies) *dependencies = &last;
    if (count) *count = last != nullptr ? 1 : 0;
    return CUDA_SUCCESS;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph g, unsigned long long) {
    SIM_ENTER();
    auto* e = new CUgraphExec_st{g, {}};
    for (const auto& n : g->nodes) e->nodes.push_back(*n);
    *exec = e;
    return CUDA_SUCCESS;
}
CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
    SIM_ENTER();
    for (const CUgraphNode_st& n : e->nodes) {
        CUresult rc = run(n.function, n.block[0], n.block[1], n.block[2], n.shared, s,
                          "cuGraphLaunch " + n.function->name + " grid=" + dims(n.grid[0], n.grid[1], n.grid[2]) +
                              " block=" + dims(n.block[0], n.block[1], n.block[2]) +
                              " shared=" + std::to_string(n.shared) + " arg0=" + std::to_string(n.arg0));
        if (rc != CUDA_SUCCESS) return rc;
    }
    return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph g) {
    SIM_ENTER();
    delete g;
    return CUDA_SUCCESS;
}
CUresult cuGraphExecDestroy(CUgraphExec e) {
    SIM_ENTER();
    delete e;
    return CUDA_SUCCESS;
}
CUresult cuGraphGetNodes(CUgraph g, CUgraphNode* nodes, size_t* count) {
    SIM_ENTER();
    if (nodes != nullptr) {
        for (std::size_t i = 0; i < *count && i < g->nodes.size(); ++i) nodes[i] = g->nodes[i].get();
    }
    *count = g->nodes.size();
    return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetType(CUgraphNode, CUgraphNodeType* type) {
    SIM_ENTER();
    *type = CU_GRAPH_NODE_TYPE_KERNEL;
    return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeGetParams(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS* p) {
    SIM_ENTER();
    *p = CUDA_KERNEL_NODE_PARAMS{};
    p->func = n->function;
    p->gridDimX = n->grid[0];
    p->gridDimY = n->grid[1];
    p->gridDimZ = n->grid[2];
    p->blockDimX = n->block[0];
    p->blockDimY = n->block[1];
    p->blockDimZ = n->block[2];
    p->sharedMemBytes = n->shared;
    return CUDA_SUCCESS;
}
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS* p) {
    SIM_ENTER();
    const std::size_t index = static_cast<std::size_t>(
        std::find_if(e->graph->nodes.begin(), e->graph->nodes.end(), [n](const auto& x) { return x.get() == n; }) -
        e->graph->nodes.begin());
    if (index >= e->nodes.size()) return CUDA_ERROR_INVALID_VALUE;
    if (p->kernelParams != nullptr && p->kernelParams[0] != nullptr)
        std::memcpy(&e->nodes[index].arg0, p->kernelParams[0], sizeof(std::int32_t));
    return CUDA_SUCCESS;
}
