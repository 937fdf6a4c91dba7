#include "staging_pool.hpp"

#include <xcuda/rt/errors.hpp>

#include <algorithm>
#include <map>
#include <vector>

namespace xcuda::magics {
namespace {

struct DeviceCache {
    std::vector<rt::DeviceBuffer> free;
    std::size_t bytes = 0;
};

// Never destroyed: freeing device memory from a static destructor would run after the driver
// may already be unloading at process exit.
std::map<int, DeviceCache>& caches() {
    static auto* m = new std::map<int, DeviceCache>();
    return *m;
}

}  // namespace

rt::DeviceBuffer take_staging_buffer(int device, std::size_t bytes) {
    DeviceCache& cache = caches()[device];
    auto best = cache.free.end();
    for (auto it = cache.free.begin(); it != cache.free.end(); ++it) {
        const std::size_t size = it->size();
        if (size >= bytes && size / 2 <= bytes && (best == cache.free.end() || size < best->size())) best = it;
    }
    if (best != cache.free.end()) {
        rt::DeviceBuffer buffer = std::move(*best);
        cache.free.erase(best);
        cache.bytes -= buffer.size();
        return buffer;
    }
    try {
        return rt::DeviceBuffer(bytes);
    } catch (const rt::OutOfMemoryError&) {
        if (cache.free.empty()) throw;
        cache.free.clear();
        cache.bytes = 0;
        return rt::DeviceBuffer(bytes);
    }
}

void give_back_staging_buffer(int device, rt::DeviceBuffer buffer) {
    if (buffer.size() == 0 || buffer.size() > staging_cache_limit) return;
    DeviceCache& cache = caches()[device];
    // Oldest first out, until the newcomer fits.
    while (!cache.free.empty() && cache.bytes + buffer.size() > staging_cache_limit) {
        cache.bytes -= cache.free.front().size();
        cache.free.erase(cache.free.begin());
    }
    cache.bytes += buffer.size();
    cache.free.push_back(std::move(buffer));
}

void abandon_staging_buffer(rt::DeviceBuffer buffer) {
    // Never destroyed, not even at exit: a static destructor would cuMemFree behind the kernel
    // that still runs, and the driver frees a process's memory when it ends anyway.
    static auto* abandoned = new std::vector<rt::DeviceBuffer>();
    abandoned->push_back(std::move(buffer));
}

}  // namespace xcuda::magics
