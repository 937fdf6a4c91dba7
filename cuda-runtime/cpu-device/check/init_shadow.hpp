// Which bytes of a device allocation something wrote, for the uninitialised-read check (what
// compute-sanitizer's initcheck asks on a GPU): memory from cuMemAlloc counts as unwritten until a
// copy, a memset or a kernel's store writes it. One shadow byte per byte (1: written), in pages
// reserved (at the first access, so an allocation a copy fills at once never maps any) without
// committing them; kernels on several workers mark their bytes at once (relaxed atomic stores,
// plain moves on x86). Once every byte is written the allocation drops its shadow and its
// accesses take the unchecked fast path.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

namespace xcuda::cpu {

class InitShadow {
public:
    InitShadow(std::uint64_t base, std::uint64_t size);  // every byte unwritten
    ~InitShadow();
    InitShadow(const InitShadow&) = delete;
    InitShadow& operator=(const InitShadow&) = delete;

    std::uint64_t base() const noexcept { return base_; }

    // Whether every byte of [address, address + bytes) (inside the allocation) was written.
    bool written(std::uint64_t address, unsigned bytes) const noexcept {
        const std::uint8_t* p = shadow() + (address - base_);
        if (bytes == 4 && (address & 3u) == 0) return load32(p) == 0x01010101u;
        for (unsigned i = 0; i < bytes; ++i) {
            if (__atomic_load_n(p + i, __ATOMIC_RELAXED) == 0) return false;
        }
        return true;
    }
    // The first unwritten byte of [address, address + bytes), or address + bytes.
    std::uint64_t first_unwritten(std::uint64_t address, std::uint64_t bytes) const noexcept;

    void mark(std::uint64_t address, std::uint64_t bytes) noexcept {
        std::uint8_t* p = shadow() + (address - base_);
        if (bytes == 4 && (address & 3u) == 0) {
            __atomic_store_n(reinterpret_cast<std::uint32_t*>(p), 0x01010101u, __ATOMIC_RELAXED);
        } else if (bytes <= 64) {
            for (std::uint64_t i = 0; i < bytes; ++i) __atomic_store_n(p + i, std::uint8_t{1}, __ATOMIC_RELAXED);
        } else {
            std::memset(p, 1, bytes);  // a host copy or memset (a kernel writing these bytes meanwhile races with it)
        }
        dirty_.store(true, std::memory_order_relaxed);
    }

    // Whether every byte is written now (after a launch or a copy); scans only what it has not
    // seen written before, so an allocation written bit by bit costs its size once in all.
    bool complete();

private:
    // The shadow bytes, mapped by the first caller (std::terminate when the system has no address
    // space left for them, as for any allocation failure inside a kernel's execution).
    std::uint8_t* shadow() const noexcept {
        std::uint8_t* p = written_.load(std::memory_order_acquire);
        return p != nullptr ? p : map();
    }
    std::uint8_t* map() const noexcept;

    static std::uint32_t load32(const std::uint8_t* p) noexcept {
        return __atomic_load_n(reinterpret_cast<const std::uint32_t*>(p), __ATOMIC_RELAXED);
    }

    std::uint64_t base_ = 0, size_ = 0;
    mutable std::atomic<std::uint8_t*> written_{nullptr};
    std::uint64_t scanned_ = 0;  // every byte before it is written
    std::atomic<bool> dirty_{true};
};

}  // namespace xcuda::cpu
