#include "driver/access_tracing.hpp"

#include <atomic>
#include <mutex>
#include <vector>

namespace xcuda::cpu {
namespace {

struct Traces {
    std::atomic<bool> on{false};
    std::mutex mutex;
    std::vector<std::shared_ptr<const AccessTrace>> kept;  // in completion order
};

Traces& traces() {
    static Traces t;
    return t;
}

}  // namespace

void set_tracing(bool on) { traces().on = on; }
bool tracing() { return traces().on; }

std::vector<std::shared_ptr<const AccessTrace>> take_traces() {
    Traces& t = traces();
    std::lock_guard<std::mutex> lock(t.mutex);
    std::vector<std::shared_ptr<const AccessTrace>> taken;
    taken.swap(t.kept);
    return taken;
}

namespace driver::detail {

void keep_trace(std::shared_ptr<const AccessTrace> trace) {
    Traces& t = traces();
    std::lock_guard<std::mutex> lock(t.mutex);
    t.kept.push_back(std::move(trace));
}

}  // namespace driver::detail
}  // namespace xcuda::cpu
