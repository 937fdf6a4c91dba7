#include "exec/run/device_runtime.hpp"

#include "exec/run/device_heap.hpp"
#include "exec/run/call_slots.hpp"
#include "exec/global_race_notes.hpp"
#include "exec/memory_access.hpp"
#include "exec/emulated_device.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

namespace xcuda::cpu {

namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

// cudaError_t values (driver_types.h) the entry points return.
constexpr int cuda_success = 0;
constexpr int cuda_error_invalid_value = 1;
constexpr int cuda_error_memory_allocation = 2;
constexpr int cuda_error_invalid_configuration = 9;
constexpr int cuda_error_launch_max_depth_exceeded = 65;
constexpr int cuda_error_launch_pending_count_exceeded = 69;
constexpr int cuda_error_invalid_device_function = 98;
constexpr int cuda_error_invalid_resource_handle = 400;

constexpr U64 stream_tail_launch = 0x3;      // cudaStreamTailLaunch
constexpr U64 stream_fire_and_forget = 0x4;  // cudaStreamFireAndForget
constexpr U32 stream_non_blocking = 0x1;     // cudaStreamNonBlocking, the only flag the device allows
constexpr unsigned max_nesting_depth = 24;   // the hardware's, the Programming Guide says
constexpr int runtime_version = 13000;       // cudaRuntimeGetVersion: the toolkit this emulates
// Parameter buffers handed out and not yet launched, at most: CUDA's default pending launch
// count (cudaLimitDevRuntimePendingLaunchCount), within 16 MiB for kernels with large parameters.
constexpr std::size_t parameter_buffer_slots = emulated::default_pending_launch_count;
constexpr std::size_t parameter_region_limit = std::size_t{16} << 20;

struct Dim3Param {
    U32 x = 1, y = 1, z = 1;
};

Dim3 dims(const Dim3Param& d) { return {d.x, d.y, d.z}; }

std::string hex(U64 v) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%" PRIx64, v);
    return text;
}

// The kernel a function handle (mov.u64 %rd, kernel) names, or nullptr.
const KernelInfo* kernel_of(const Program& program, const Module& module, U64 handle, U32& function) {
    if ((handle & ~U64{0xFFFFFFFFu}) != function_handle_tag) return nullptr;
    function = static_cast<U32>(handle & 0xFFFFFFFFu);
    if (function >= program.functions.size() || !program.functions[function].is_entry) return nullptr;
    return module.kernel(program.functions[function].name);
}

// cudaError_t of a launch configuration the device runtime refuses, or cuda_success.
int check_shape(const KernelInfo& k, const DeviceLaunch& d) {
    const unsigned g[3] = {d.grid.x, d.grid.y, d.grid.z}, b[3] = {d.block.x, d.block.y, d.block.z};
    for (int i = 0; i < 3; ++i) {
        if (g[i] == 0 || g[i] > emulated::max_grid_dims[i]) return cuda_error_invalid_configuration;
        if (b[i] == 0 || b[i] > emulated::max_block_dims[i]) return cuda_error_invalid_configuration;
    }
    if (d.block.count() > static_cast<U64>(k.max_threads_per_block)) return cuda_error_invalid_configuration;
    if (k.reqntid.x != 0 && (k.reqntid.x != d.block.x || k.reqntid.y != d.block.y || k.reqntid.z != d.block.z))
        return cuda_error_invalid_configuration;
    const Dim3& c = k.cluster_dims;
    if (c.x != 0 && (d.grid.x % c.x != 0 || d.grid.y % std::max(c.y, 1u) != 0 || d.grid.z % std::max(c.z, 1u) != 0))
        return cuda_error_invalid_configuration;
    if (k.static_shared_bytes + d.shared_bytes > static_cast<std::size_t>(emulated::shared_per_block_optin))
        return cuda_error_invalid_value;
    return cuda_success;
}

}  // namespace

bool device_runtime_entry(std::string_view called, RuntimeEntry& entry) {
    constexpr std::string_view cdp2 = "__cudaCDP2", ptsz = "_ptsz";
    std::string name(called);
    if (called.substr(0, cdp2.size()) == cdp2) name = "cuda" + std::string(called.substr(cdp2.size()));
    if (name.size() > ptsz.size() && name.compare(name.size() - ptsz.size(), ptsz.size(), ptsz) == 0)
        name.resize(name.size() - ptsz.size());
    static const std::pair<std::string_view, RuntimeEntry> entries[] = {
        {"cudaGetParameterBuffer", RuntimeEntry::get_parameter_buffer},
        {"cudaGetParameterBufferV2", RuntimeEntry::get_parameter_buffer_v2},
        {"cudaLaunchDevice", RuntimeEntry::launch_device},
        {"cudaLaunchDeviceV2", RuntimeEntry::launch_device_v2},
        {"cudaStreamCreateWithFlags", RuntimeEntry::stream_create_with_flags},
        {"cudaStreamDestroy", RuntimeEntry::stream_destroy},
        {"cudaGetLastError", RuntimeEntry::get_last_error},
        {"cudaPeekAtLastError", RuntimeEntry::peek_at_last_error},
        {"cudaGetDevice", RuntimeEntry::get_device},
        {"cudaGetDeviceCount", RuntimeEntry::get_device_count},
        {"cudaRuntimeGetVersion", RuntimeEntry::runtime_get_version},
        {"cudaMalloc", RuntimeEntry::malloc},
        {"cudaFree", RuntimeEntry::free},
    };
    for (const auto& [n, e] : entries) {
        if (name == n) {
            entry = e;
            return true;
        }
    }
    return false;
}

DeviceRuntime::DeviceRuntime(const Program& program, const Module& module, DeviceMemory& memory)
    : program_(program), module_(module), memory_(memory) {
    std::size_t largest = 16;
    for (const KernelInfo* k : module.kernels()) largest = std::max(largest, k->param_bytes);
    slot_bytes_ = static_cast<U32>((largest + 15) / 16 * 16);
    const std::size_t slots =
        std::max<std::size_t>(1, std::min(parameter_buffer_slots, parameter_region_limit / slot_bytes_));
    region_ = memory_.allocate(slots * slot_bytes_, Allocation::Kind::launch_parameters,
                               "parameter buffers of launches from the device");
    if (region_ == 0) return;
    slots_.resize(slots);
    free_slots_.reserve(slots);
    for (std::size_t i = slots; i-- > 0;) free_slots_.push_back(static_cast<U32>(i));
}

DeviceRuntime::~DeviceRuntime() {
    if (region_ != 0) memory_.free(region_);
}

U64 DeviceRuntime::thread_key(const Exec& x, unsigned lane) const {
    const Dim3& g = x.launch->spec->grid;
    const Dim3& b = x.cta->ctaid;
    const U64 block = b.x + U64{g.x} * (b.y + U64{g.y} * b.z);
    return block * x.launch->threads_per_cta + x.linear_thread(lane);
}

void DeviceRuntime::set_error(Exec& x, unsigned lane, int error) {
    std::lock_guard<std::mutex> lock(mutex_);
    last_error_[thread_key(x, lane)] = error;
}

// cudaLaunchDevice(V2): checks the launch as the device runtime does (its error is returned
// and becomes the thread's last error), then queues the grid to run after this one.
int DeviceRuntime::launch(Exec& x, unsigned lane, U64 buffer, U64 stream, const DeviceLaunch* shape) {
    DeviceLaunch d;
    const KernelInfo* k = nullptr;
    {
        // The parameters are copied and the copy noted before the slot is free again: another
        // block may be handed it (and clear it) the moment it is back on the free list.
        std::lock_guard<std::mutex> lock(mutex_);
        if (buffer < region_ || (buffer - region_) % slot_bytes_ != 0 ||
            (buffer - region_) / slot_bytes_ >= slots_.size())
            return cuda_error_invalid_value;
        const auto index = static_cast<U32>((buffer - region_) / slot_bytes_);
        Slot& slot = slots_[index];
        if (!slot.in_use || (shape == nullptr && !slot.has_kernel)) return cuda_error_invalid_value;
        d = shape != nullptr ? *shape : slot.launch;
        k = module_.kernel(program_.functions[d.function].name);
        if (k != nullptr) {
            d.parameters.assign(k->param_bytes, std::byte{0});
            std::memcpy(d.parameters.data(), reinterpret_cast<const void*>(buffer),
                        std::min<std::size_t>(k->param_bytes, slot_bytes_));
        }
        note_parameter_buffer_launched(x, index);
        slot.in_use = false;
        free_slots_.push_back(index);
    }
    if (k == nullptr) return cuda_error_invalid_device_function;
    if (const int error = check_shape(*k, d); error != cuda_success) return error;
    if (x.launch->spec->depth + 1 > max_nesting_depth) return cuda_error_launch_max_depth_exceeded;
    // A child cannot reach its parent's shared or local memory (the Programming Guide calls passing
    // a pointer to either illegal): a GPU faults, or reads another block's data, only later.
    for (std::size_t i = 0; i < k->params.size(); ++i) {
        if (k->params[i].size != 8) continue;
        U64 value = 0;
        std::memcpy(&value, d.parameters.data() + k->params[i].offset, 8);
        const MemorySpace space = generic_space(x, value, lane);
        if (space != MemorySpace::shared && space != MemorySpace::local) continue;
        Finding f;
        f.kind = FindingKind::invalid_operation;
        f.detail = "the launch of `" + k->name + "` from the device passes " + hex(value) + " as its parameter " +
                   std::to_string(i) + ", an address in this thread's " +
                   (space == MemorySpace::shared ? "shared" : "local") +
                   " memory: a grid launched from the device cannot use its parent's shared or local memory; "
                   "pass global memory (a kernel argument, cudaMalloc or a __device__ array)";
        x.fail(std::move(f), lane, 1, CUDA_ERROR_LAUNCH_FAILED);
        return cuda_error_invalid_value;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (stream == stream_tail_launch) {
        tail_.push_back(std::move(d));
    } else if (stream == 0 || stream == stream_fire_and_forget || streams_.count(stream) != 0) {
        launched_.push_back(std::move(d));
    } else {
        return cuda_error_invalid_resource_handle;
    }
    return cuda_success;
}

void DeviceRuntime::call(Exec& x, const CallSite& call, U32 mask) {
    const auto entry = static_cast<RuntimeEntry>(call.runtime_entry);
    for_lanes(mask, [&](unsigned lane) {
        if (x.faulted) return;
        int error = cuda_success;
        switch (entry) {
            case RuntimeEntry::get_parameter_buffer:
            case RuntimeEntry::get_parameter_buffer_v2: {
                Slot wanted;
                if (entry == RuntimeEntry::get_parameter_buffer_v2) {
                    U32 function = 0;
                    if (kernel_of(program_, module_, call_argument<U64>(x, call, 0, lane), function) == nullptr) {
                        error = cuda_error_invalid_device_function;
                    }
                    wanted.has_kernel = true;
                    wanted.launch.function = function;
                    wanted.launch.grid = dims(call_argument<Dim3Param>(x, call, 1, lane));
                    wanted.launch.block = dims(call_argument<Dim3Param>(x, call, 2, lane));
                    wanted.launch.shared_bytes = call_argument<U32>(x, call, 3, lane);
                } else {
                    const U64 alignment = call_argument<U64>(x, call, 0, lane),
                              size = call_argument<U64>(x, call, 1, lane);
                    if (size > slot_bytes_ || alignment > 16 || (alignment & (alignment - 1)) != 0)
                        error = cuda_error_invalid_value;
                }
                U64 buffer = 0;
                U32 taken = 0;
                if (error == cuda_success) {
                    std::lock_guard<std::mutex> lock(mutex_);
                    if (free_slots_.empty()) {
                        error = cuda_error_launch_pending_count_exceeded;
                    } else {
                        const U32 index = free_slots_.back();
                        free_slots_.pop_back();
                        wanted.in_use = true;
                        slots_[index] = wanted;
                        buffer = region_ + U64{index} * slot_bytes_;
                        std::memset(reinterpret_cast<void*>(buffer), 0, slot_bytes_);
                        taken = index;
                    }
                }
                if (buffer != 0) note_parameter_buffer_taken(x, taken);
                call_result<U64>(x, call, lane, buffer);
                if (error != cuda_success) set_error(x, lane, error);
                return;
            }
            case RuntimeEntry::launch_device_v2:
                error = launch(x, lane, call_argument<U64>(x, call, 0, lane), call_argument<U64>(x, call, 1, lane),
                               nullptr);
                break;
            case RuntimeEntry::launch_device: {
                DeviceLaunch shape;
                if (kernel_of(program_, module_, call_argument<U64>(x, call, 0, lane), shape.function) == nullptr) {
                    error = cuda_error_invalid_device_function;
                    break;
                }
                shape.grid = dims(call_argument<Dim3Param>(x, call, 2, lane));
                shape.block = dims(call_argument<Dim3Param>(x, call, 3, lane));
                shape.shared_bytes = call_argument<U32>(x, call, 4, lane);
                error =
                    launch(x, lane, call_argument<U64>(x, call, 1, lane), call_argument<U64>(x, call, 5, lane), &shape);
                break;
            }
            case RuntimeEntry::stream_create_with_flags: {
                if (call_argument<U32>(x, call, 1, lane) != stream_non_blocking) {
                    error = cuda_error_invalid_value;  // device streams must be cudaStreamNonBlocking
                    break;
                }
                U64 stream = 0;
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    stream = next_stream_++;
                    streams_.insert(stream);
                }
                if (!generic_store(x, call_argument<U64>(x, call, 0, lane), 8, lane,
                                   reinterpret_cast<const std::byte*>(&stream)))
                    return;
                break;
            }
            case RuntimeEntry::stream_destroy: {
                std::lock_guard<std::mutex> lock(mutex_);
                if (streams_.erase(call_argument<U64>(x, call, 0, lane)) == 0)
                    error = cuda_error_invalid_resource_handle;
                break;
            }
            case RuntimeEntry::get_last_error:
            case RuntimeEntry::peek_at_last_error: {
                std::lock_guard<std::mutex> lock(mutex_);
                auto it = last_error_.find(thread_key(x, lane));
                const int last = it == last_error_.end() ? cuda_success : it->second;
                if (it != last_error_.end() && entry == RuntimeEntry::get_last_error) last_error_.erase(it);
                call_result<std::int32_t>(x, call, lane, last);
                return;  // neither sets the last error
            }
            case RuntimeEntry::get_device:
            case RuntimeEntry::get_device_count:
            case RuntimeEntry::runtime_get_version: {
                const std::int32_t value = entry == RuntimeEntry::get_device         ? 0
                                           : entry == RuntimeEntry::get_device_count ? 1
                                                                                     : runtime_version;
                if (!generic_store(x, call_argument<U64>(x, call, 0, lane), 4, lane,
                                   reinterpret_cast<const std::byte*>(&value)))
                    return;
                break;
            }
            case RuntimeEntry::malloc: {
                const U64 p =
                    DeviceHeap::instance().blocks().allocate(call_argument<U64>(x, call, 1, lane), call_location(x));
                if (!generic_store(x, call_argument<U64>(x, call, 0, lane), 8, lane,
                                   reinterpret_cast<const std::byte*>(&p)))
                    return;
                if (p == 0) error = cuda_error_memory_allocation;
                break;
            }
            case RuntimeEntry::free: {
                const U64 p = call_argument<U64>(x, call, 0, lane);
                HeapBlock block;
                if (p != 0 &&
                    DeviceHeap::instance().blocks().release(p, call_location(x), block) != HeapBlocks::Freed::freed)
                    error = cuda_error_invalid_value;
                break;
            }
        }
        if (x.faulted) return;
        call_result<std::int32_t>(x, call, lane, error);
        if (error != cuda_success) set_error(x, lane, error);
    });
}

LaunchOutcome DeviceRuntime::run_children(const LaunchSpec& parent, const RunOptions& options,
                                          const std::atomic<bool>& cancel) {
    LaunchOutcome out;
    auto run = [&](DeviceLaunch& d) {
        const KernelInfo* k = module_.kernel(program_.functions[d.function].name);
        LaunchSpec s;
        s.grid = d.grid;
        s.block = d.block;
        s.dynamic_shared_bytes = d.shared_bytes;
        if (k->cluster_dims.x != 0)
            s.cluster = {k->cluster_dims.x, std::max(k->cluster_dims.y, 1u), std::max(k->cluster_dims.z, 1u)};
        s.cooperative = k->syncs_grid;
        s.module = parent.module;
        s.kernel = k;
        s.params = std::move(d.parameters);
        s.memory = parent.memory;
        s.depth = parent.depth + 1;
        LaunchOutcome r = run_launch(s, options, cancel);
        if (r.profile) out.child_profiles.push_back(r.profile);
        out.child_profiles.insert(out.child_profiles.end(), r.child_profiles.begin(), r.child_profiles.end());
        if (r.cancelled) {
            out.cancelled = true;
            return false;
        }
        if (r.status == CUDA_SUCCESS) return true;
        out.status = r.status;
        out.failure = r.failure;
        if (r.failure && r.failure->launched_from.empty() && parent.depth == 0) {
            auto named = std::make_shared<Failure>(*r.failure);
            named->launched_from = parent.kernel->name;
            out.failure = std::move(named);
        }
        return false;
    };
    for (DeviceLaunch& d : launched_) {
        if (!run(d)) return out;
    }
    for (DeviceLaunch& d : tail_) {
        if (!run(d)) return out;
    }
    return out;
}

}  // namespace xcuda::cpu
