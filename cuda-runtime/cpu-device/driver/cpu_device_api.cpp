// The CPU device's own API (cpu_device.hpp): what a real driver has no call for.
#include "driver/context_state.hpp"
#include "driver/stream_queues.hpp"
#include "driver/settings.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include "exec/run/worker_pool.hpp"

namespace xcuda::cpu {

std::shared_ptr<const Failure> take_failure() { return driver::detail::Scheduler::instance().take_failure(); }

void cancel_launches() { driver::detail::Scheduler::instance().cancel_launches(); }

bool is_device_memory(std::uint64_t address) {
    if (driver::detail::require_initialized() != CUDA_SUCCESS) return false;
    return driver::detail::device_memory().table()->containing(address) != nullptr;
}

void set_checks(bool on) { driver::detail::settings().checks = on; }
bool checks() { return driver::detail::settings().checks; }

void set_deterministic(bool on) { driver::detail::settings().deterministic = on; }
bool deterministic() { return driver::detail::settings().deterministic; }

void set_profiling(bool on) { driver::detail::settings().profiling = on; }

std::vector<std::shared_ptr<const LineProfile>> take_profiles() {
    driver::detail::Settings& s = driver::detail::settings();
    std::lock_guard<std::mutex> lock(s.profiles_mutex);
    std::vector<std::shared_ptr<const LineProfile>> taken;
    taken.swap(s.profiles);
    return taken;
}

void set_stream_work_recording(bool on) { driver::detail::Scheduler::instance().set_recording(on); }
std::vector<StreamWork> take_stream_work() { return driver::detail::Scheduler::instance().take_recorded(); }

unsigned worker_threads() { return deterministic() ? 1u : WorkerPool::cores(); }

}  // namespace xcuda::cpu
