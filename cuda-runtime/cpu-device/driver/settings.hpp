// What cpu_device.hpp's switches set (checks, deterministic mode, profiling) and the profiles
// collected while profiling is on: read when a launch starts, so a switch applies to launches that
// start after it.
#pragma once

#include <xcuda/cpu/line_profile.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace xcuda::cpu::driver::detail {

struct Settings {
    std::atomic<bool> checks;         // $XCUDA_CPU_CHECKS=0 turns them off at start
    std::atomic<bool> deterministic;  // $XCUDA_CPU_DETERMINISTIC=1 turns it on at start
    std::atomic<bool> profiling{false};
    std::mutex profiles_mutex;
    std::vector<std::shared_ptr<const LineProfile>> profiles;  // in completion order
};

Settings& settings();

}  // namespace xcuda::cpu::driver::detail
