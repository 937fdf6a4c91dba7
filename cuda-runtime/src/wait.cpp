#include "driver_api.hpp"
#include "interrupted_work_marks.hpp"
#include "stream_wait.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/errors.hpp>
#include <xcuda/rt/wait.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

namespace xcuda::rt {
namespace {

std::mutex g_mutex;
std::shared_ptr<const std::function<bool()>> g_check;

std::shared_ptr<const std::function<bool()>> current_check() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_check;
}

}  // namespace

void set_interrupt_check(std::function<bool()> check) {
    auto ptr = check ? std::make_shared<const std::function<bool()>>(std::move(check)) : nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_check = std::move(ptr);
}

void poll_until(const std::function<bool()>& ready, const char* what) { detail::poll_until(ready, what, nullptr); }

void detail::poll_until(const std::function<bool()>& ready, const char* what, CUstream waited) {
    // Spin first: most waits (a copy behind a short kernel) end within tens of microseconds,
    // and a sleep costs at least Linux's 50 us timer slack, which made a numpy round trip of a
    // small launch slower than CuPy's on the H200. Then sleep, growing to a cap that bounds CPU
    // use and keeps the reaction to an interrupt within a millisecond or two.
    using clock = std::chrono::steady_clock;
    const auto spin_until = clock::now() + std::chrono::microseconds(200);
    auto sleep = std::chrono::microseconds(20);
    const auto max_sleep = std::chrono::microseconds(500);
    const auto check = current_check();
    while (!ready()) {
        if (clock::now() < spin_until) {
            std::this_thread::yield();
            continue;
        }
        if (check && (*check)()) {
            if (detail::current_backend().cpu) {
                // Unlike a GPU's, emulated kernels can be stopped: the work queued so far ends now.
                cpu::cancel_launches();
                throw Interrupted(std::string("interrupted while waiting for ") + what +
                                  " (the CPU device stopped the kernels it was running)");
            }
            // A GPU cannot stop one kernel: the work goes on, and is marked so that nothing
            // waits for it unawares (rt/interrupted_work.hpp).
            detail::mark_interrupted_work(detail::current_backend(), waited);
            throw Interrupted(std::string("interrupted while waiting for ") + what +
                              " (the GPU work may still be running)");
        }
        std::this_thread::sleep_for(sleep);
        sleep = std::min(sleep * 2, max_sleep);
    }
}

}  // namespace xcuda::rt
