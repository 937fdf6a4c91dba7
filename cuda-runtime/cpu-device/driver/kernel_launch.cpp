#include "driver/kernel_launch.hpp"

#include "driver/access_tracing.hpp"
#include "driver/context_state.hpp"
#include "exec/emulated_device.hpp"
#include "driver/occupancy.hpp"
#include "driver/settings.hpp"

#include <cstring>
#include <exception>
#include <optional>
#include <string>

namespace xcuda::cpu::driver::detail {
using namespace emulated;  // the device this driver describes (exec/emulated_device.hpp)
namespace {

bool operator!=(const Dim3& a, const Dim3& b) { return a.x != b.x || a.y != b.y || a.z != b.z; }

CUresult check_dimensions(const LaunchRequest& r) {
    for (int i = 0; i < 3; ++i) {
        if (r.grid[i] == 0 || r.grid[i] > max_grid_dims[i]) return CUDA_ERROR_INVALID_VALUE;
        if (r.block[i] == 0 || r.block[i] > max_block_dims[i]) return CUDA_ERROR_INVALID_VALUE;
    }
    const unsigned long long threads = 1ULL * r.block[0] * r.block[1] * r.block[2];
    return threads > static_cast<unsigned long long>(max_threads_per_block) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

struct LaunchAttributes {
    bool cooperative = false;
    std::optional<Dim3> cluster;
};

CUresult read_attributes(const LaunchRequest& r, LaunchAttributes& out) {
    for (unsigned i = 0; i < r.attribute_count; ++i) {
        const CUlaunchAttribute& a = r.attributes[i];
        switch (a.id) {
            case CU_LAUNCH_ATTRIBUTE_COOPERATIVE: out.cooperative = a.value.cooperative != 0; break;
            case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: {
                const auto& c = a.value.clusterDim;
                if (c.x == 0 || c.y == 0 || c.z == 0) return CUDA_ERROR_INVALID_VALUE;
                out.cluster = Dim3{c.x, c.y, c.z};
                break;
            }
            // Scheduling and caching hints: a CPU runs the same without them.
            case CU_LAUNCH_ATTRIBUTE_IGNORE:
            case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
            case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
            case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
            case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
            case CU_LAUNCH_ATTRIBUTE_PRIORITY:
            case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
            case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: break;
            default: return CUDA_ERROR_NOT_SUPPORTED;  // attributes that trigger events or change semantics
        }
    }
    return CUDA_SUCCESS;
}

// The cluster shape the launch runs with: the one asked for, or the kernel's compile-time one.
CUresult resolve_cluster(const Function& f, const FunctionAttributes& settable, const LaunchRequest& r,
                         const std::optional<Dim3>& asked, Dim3& cluster) {
    const Dim3 required{static_cast<unsigned>(settable.required_cluster[0]),
                        static_cast<unsigned>(settable.required_cluster[1]),
                        static_cast<unsigned>(settable.required_cluster[2])};
    const bool has_required = required.x != 0 && required.y != 0 && required.z != 0;
    if (has_required && asked && *asked != required) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (!asked && !has_required) {
        if (f.info().explicit_cluster) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        cluster = Dim3{1, 1, 1};
        return CUDA_SUCCESS;
    }
    cluster = asked ? *asked : required;
    const std::uint64_t blocks = cluster.count();
    const unsigned most = settable.non_portable_cluster != 0 ? max_cluster_blocks : max_portable_cluster_blocks;
    if (blocks > most) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (f.info().max_cluster_rank != 0 && blocks > f.info().max_cluster_rank) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    if (r.grid[0] % cluster.x != 0 || r.grid[1] % cluster.y != 0 || r.grid[2] % cluster.z != 0)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    return CUDA_SUCCESS;
}

CUresult pack_parameters(const LaunchRequest& r, const KernelInfo& info, std::vector<std::byte>& params) {
    params.assign(info.param_bytes, std::byte{0});
    if (r.kernel_params != nullptr && r.extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (r.kernel_params != nullptr) {
        for (std::size_t i = 0; i < info.params.size(); ++i) {
            if (r.kernel_params[i] == nullptr) return CUDA_ERROR_INVALID_VALUE;
            std::memcpy(params.data() + info.params[i].offset, r.kernel_params[i], info.params[i].size);
        }
        return CUDA_SUCCESS;
    }
    if (r.extra == nullptr) return info.params.empty() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    const void* buffer = nullptr;
    const std::size_t* size = nullptr;
    for (std::size_t i = 0; r.extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (r.extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
            buffer = r.extra[i + 1];
        } else if (r.extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
            size = static_cast<const std::size_t*>(r.extra[i + 1]);
        } else {
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    if (buffer == nullptr || size == nullptr || *size < info.param_bytes) return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(params.data(), buffer, info.param_bytes);
    return CUDA_SUCCESS;
}

std::shared_ptr<const Failure> failure_without_finding(const KernelLaunch& launch, CUresult code, std::string detail) {
    auto failure = std::make_shared<Failure>();
    failure->code = code;
    failure->kernel = launch.function->info().name;
    failure->grid = launch.grid;
    failure->block = launch.block;
    failure->finding.kind = FindingKind::invalid_operation;
    failure->finding.function = launch.function->info().name;
    failure->finding.detail = std::move(detail);
    return failure;
}

}  // namespace

CUresult prepare_launch(const LaunchRequest& r, KernelLaunch& launch) {
    std::shared_ptr<Function> f = function_table().find(r.function);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (CUresult rc = check_dimensions(r); rc != CUDA_SUCCESS) return rc;
    const KernelInfo& info = f->info();
    const Dim3 block{r.block[0], r.block[1], r.block[2]};
    const int threads = static_cast<int>(block.count());
    if (threads > f->max_threads_per_block()) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    if (info.reqntid.x != 0 && block != info.reqntid) return CUDA_ERROR_INVALID_VALUE;
    const FunctionAttributes settable = f->attributes();
    if (r.shared_bytes > static_cast<unsigned>(settable.max_dynamic_shared)) return CUDA_ERROR_INVALID_VALUE;

    LaunchAttributes attrs;
    if (CUresult rc = read_attributes(r, attrs); rc != CUDA_SUCCESS) return rc;
    Dim3 cluster;
    if (CUresult rc = resolve_cluster(*f, settable, r, attrs.cluster, cluster); rc != CUDA_SUCCESS) return rc;

    int per_sm = 0;
    if (CUresult rc = max_active_blocks(*f, threads, r.shared_bytes, per_sm); rc != CUDA_SUCCESS) return rc;
    if (per_sm == 0) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
    if (cluster.count() > 1 && max_active_clusters(per_sm, static_cast<unsigned>(cluster.count())) == 0)
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    const Dim3 grid{r.grid[0], r.grid[1], r.grid[2]};
    // A kernel that synchronises its grid runs cooperatively however it is launched: a GPU's
    // driver gives it the grid workspace on a plain launch too, and grid.sync() returns only when
    // every block can be resident at once.
    const bool cooperative = attrs.cooperative || info.syncs_grid;
    if (cooperative && grid.count() > 1ULL * static_cast<unsigned>(per_sm) * sm_count)
        return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;

    if (CUresult rc = pack_parameters(r, info, launch.params); rc != CUDA_SUCCESS) return rc;
    launch.argument_extents = LaunchArgumentExtents::current();
    launch.function = std::move(f);
    static_cast<LaunchShape&>(launch) = LaunchShape{grid, block, cluster, r.shared_bytes, cooperative};
    return CUDA_SUCCESS;
}

Outcome run_kernel(const KernelLaunch& launch, const std::atomic<bool>& cancel) {
    Settings& s = settings();
    LaunchSpec spec;
    static_cast<LaunchShape&>(spec) = launch;
    spec.module = launch.function->module();
    spec.kernel = &launch.function->info();
    spec.params = launch.params;
    spec.memory = &device_memory();
    spec.argument_extents = launch.argument_extents;
    RunOptions options;
    options.checks = s.checks.load();
    options.deterministic = s.deterministic.load();
    options.profile = s.profiling.load();
    options.trace = tracing();
    options.printf_fifo_bytes = printf_fifo_bytes();

    LaunchOutcome ran;
    try {
        ran = run_launch(spec, options, cancel);
    } catch (const std::exception& e) {
        return {CUDA_ERROR_LAUNCH_FAILED,
                failure_without_finding(launch, CUDA_ERROR_LAUNCH_FAILED,
                                        std::string("the CPU device could not run this launch: ") + e.what())};
    }
    if (ran.profile) {
        std::lock_guard<std::mutex> lock(s.profiles_mutex);
        s.profiles.push_back(ran.profile);
        s.profiles.insert(s.profiles.end(), ran.child_profiles.begin(), ran.child_profiles.end());
    }
    if (ran.trace) keep_trace(ran.trace);
    if (ran.cancelled || ran.status == CUDA_SUCCESS) return {};
    Outcome outcome{ran.status, ran.failure};
    if (!outcome.failure)
        outcome.failure =
            failure_without_finding(launch, ran.status, "the engine reported no finding for this failure");
    return outcome;
}

}  // namespace xcuda::cpu::driver::detail
