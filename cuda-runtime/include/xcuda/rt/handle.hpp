// The move-only RAII every handle class of this library is built on (DeviceBuffer, Stream,
// Module, PrimaryContext, ...). Public only because those classes hold one as a member.
#pragma once

#include <utility>

namespace xcuda::rt::detail {

struct Backend;  // driver_api.hpp: NVIDIA's driver or the CPU device

// What a handle's release needs beyond the handle: the driver it was made with (objects of both
// devices live side by side; each goes back to its own).
struct BackendRelease {
    Backend* backend = nullptr;
};
// The backend current on this thread: what a handle made now belongs to.
Backend* current_backend_pointer() noexcept;

// std::unique_ptr's model for handles that need not be pointers (a CUdeviceptr is an integer):
// owns one T, T{} meaning none, and calls `Release` on it once, when destroyed or assigned
// another. Release must not throw (destructors call it); it may carry state (the device a
// primary context is released on), which a moved-from handle keeps. Move-assignment takes the
// new handle before it releases the old one.
template <class T, class Release>
class Handle : private Release {  // a base, not a member: a stateless Release takes no room
    static_assert(noexcept(std::declval<const Release&>()(T{})), "Release runs in destructors: make it noexcept");

public:
    Handle() = default;
    explicit Handle(T value, Release release = Release{}) noexcept : Release(std::move(release)), value_(value) {}
    ~Handle() {
        if (value_ != T{}) releaser()(value_);
    }
    Handle(Handle&& other) noexcept : Release(other.releaser()), value_(std::exchange(other.value_, T{})) {}
    Handle& operator=(Handle&& other) noexcept {
        Handle taken(std::move(other));
        std::swap(static_cast<Release&>(*this), static_cast<Release&>(taken));
        std::swap(value_, taken.value_);
        return *this;  // what this held goes with `taken`
    }

    T get() const noexcept { return value_; }
    // Where a create call writes the handle it makes: cuStreamCreate(stream_.put(), ...).
    T* put() noexcept {
        *this = Handle(T{}, releaser());
        return &value_;
    }
    const Release& releaser() const noexcept { return *this; }

private:
    T value_{};
};

}  // namespace xcuda::rt::detail
