#include "init_shadow.hpp"

#include <sys/mman.h>

#include <new>

namespace xcuda::cpu {

InitShadow::InitShadow(std::uint64_t base, std::uint64_t size) : base_(base), size_(size) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    written_ = static_cast<std::uint8_t*>(p);
}

InitShadow::~InitShadow() { munmap(written_, size_); }

std::uint64_t InitShadow::first_unwritten(std::uint64_t address, std::uint64_t bytes) const noexcept {
    const std::uint64_t at = address - base_;
    for (std::uint64_t i = 0; i < bytes; ++i) {
        if (__atomic_load_n(written_ + at + i, __ATOMIC_RELAXED) == 0) return address + i;
    }
    return address + bytes;
}

bool InitShadow::complete() {
    if (!dirty_.exchange(false, std::memory_order_relaxed)) return scanned_ == size_;
    // By aligned 8-byte words where it can (the shadow is page-aligned), else byte by byte.
    while (scanned_ < size_) {
        if (scanned_ % 8 == 0 && scanned_ + 8 <= size_) {
            const auto w =
                __atomic_load_n(reinterpret_cast<const std::uint64_t*>(written_ + scanned_), __ATOMIC_RELAXED);
            if (w == 0x0101010101010101ull) {
                scanned_ += 8;
                continue;
            }
        }
        if (__atomic_load_n(written_ + scanned_, __ATOMIC_RELAXED) == 0) break;
        ++scanned_;
    }
    return scanned_ == size_;
}

}  // namespace xcuda::cpu
