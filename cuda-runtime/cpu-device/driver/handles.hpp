// The driver's opaque handles (CUstream, CUevent, CUmodule, ...) are the addresses of this
// library's objects. Every handle a caller passes is looked up in its table first, so a stale or
// made-up handle is CUDA_ERROR_INVALID_HANDLE, never a dereference of freed memory.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

namespace xcuda::cpu::driver::detail {

template <class T>
class HandleTable {
public:
    // The handle of `object` (of the driver's handle type H), which stays valid until removed.
    template <class H>
    H add(std::shared_ptr<T> object) {
        T* raw = object.get();
        std::lock_guard<std::mutex> lock(mutex_);
        objects_.emplace(raw, std::move(object));
        return reinterpret_cast<H>(raw);
    }

    // nullptr for a handle not in the table.
    std::shared_ptr<T> find(const void* handle) const {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = objects_.find(handle);
        return it == objects_.end() ? nullptr : it->second;
    }

    // The object, now no longer reachable through its handle; nullptr for an unknown handle.
    std::shared_ptr<T> remove(const void* handle) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = objects_.find(handle);
        if (it == objects_.end()) return nullptr;
        std::shared_ptr<T> object = std::move(it->second);
        objects_.erase(it);
        return object;
    }

private:
    mutable std::mutex mutex_;
    std::unordered_map<const void*, std::shared_ptr<T>> objects_;
};

}  // namespace xcuda::cpu::driver::detail
