#include "check/init_shadow.hpp"

#include <sys/mman.h>

#include <exception>

namespace xcuda::cpu {

InitShadow::InitShadow(std::uint64_t base, std::uint64_t size) : base_(base), size_(size) {}

InitShadow::~InitShadow() {
    if (std::uint8_t* p = written_.load()) munmap(p, size_);
}

std::uint8_t* InitShadow::map() const noexcept {
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) std::terminate();
    std::uint8_t* expected = nullptr;
    if (!written_.compare_exchange_strong(expected, static_cast<std::uint8_t*>(p), std::memory_order_acq_rel)) {
        munmap(p, size_);  // another worker mapped it first
        return expected;
    }
    return static_cast<std::uint8_t*>(p);
}

std::uint64_t InitShadow::first_unwritten(std::uint64_t address, std::uint64_t bytes) const noexcept {
    const std::uint8_t* written = shadow() + (address - base_);
    for (std::uint64_t i = 0; i < bytes; ++i) {
        if (__atomic_load_n(written + i, __ATOMIC_RELAXED) == 0) return address + i;
    }
    return address + bytes;
}

bool InitShadow::complete() {
    if (!dirty_.exchange(false, std::memory_order_relaxed)) return scanned_ == size_;
    const std::uint8_t* written = written_.load(std::memory_order_acquire);
    if (written == nullptr) return size_ == 0;  // nothing marked yet
    // By aligned 8-byte words where it can (the shadow is page-aligned), else byte by byte.
    while (scanned_ < size_) {
        if (scanned_ % 8 == 0 && scanned_ + 8 <= size_) {
            const auto w =
                __atomic_load_n(reinterpret_cast<const std::uint64_t*>(written + scanned_), __ATOMIC_RELAXED);
            if (w == 0x0101010101010101ull) {
                scanned_ += 8;
                continue;
            }
        }
        if (__atomic_load_n(written + scanned_, __ATOMIC_RELAXED) == 0) break;
        ++scanned_;
    }
    return scanned_ == size_;
}

}  // namespace xcuda::cpu
