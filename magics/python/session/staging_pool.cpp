#include "session/staging_pool.hpp"
#include "session/session.hpp"

#include <xcuda/rt/errors.hpp>

namespace xcuda::magics {

rt::DeviceBuffer take_staging_buffer(int device, std::size_t bytes) {
    Session::StagingCache& cache = session().staging[device];
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
    Session::StagingCache& cache = session().staging[device];
    // Oldest first out, until the newcomer fits.
    while (!cache.free.empty() && cache.bytes + buffer.size() > staging_cache_limit) {
        cache.bytes -= cache.free.front().size();
        cache.free.erase(cache.free.begin());
    }
    cache.bytes += buffer.size();
    cache.free.push_back(std::move(buffer));
}

void abandon_staging_buffer(rt::DeviceBuffer buffer) {
    // Kept in the Session, which is never destroyed: a destructor at exit would cuMemFree behind
    // the kernel that still runs, and the driver frees a process's memory when it ends anyway.
    session().abandoned_staging.push_back(std::move(buffer));
}

}  // namespace xcuda::magics
