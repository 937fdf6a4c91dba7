// The memory check of a CTA's shared window: one state byte per byte of the window, saying
// whether a thread of the CTA wrote it in this launch, has yet to, or whether it lies in a red
// zone (the bytes between shared variables, which belong to none). A read of an unwritten byte is
// an uninitialised read; any access to a red zone is out of bounds of the variable beside it, so
// an overrun of `ta[32]` into the `tb` after it is found at its first element. The state lives
// with the CTA on its worker (no atomics): a unit's threads all run there.
//
// A read of unwritten bytes is held, not reported at once: if another thread writes them before
// the block's next barrier, the read and that write race (a missing __syncthreads, which the race
// check then reports); only when the block completes its next barrier, or ends, without that is it
// an uninitialised read.
#pragma once

#include <xcuda/cpu/finding.hpp>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace xcuda::cpu {

// The state of one byte of a shared window. Bits, so that one load of 4 or 8 state bytes tells
// an access's bytes apart: any set bit is a finding, bit 1 is out of bounds.
enum SharedByte : std::uint8_t { shared_written = 0, shared_unwritten = 1, shared_red_zone = 2 };

class SharedState {
public:
    // A CTA starts: `layout` is the static part of its window ([0, its size): reserved, variables,
    // red zones); the bytes from there to `window_bytes` are dynamic shared memory, unwritten.
    void start(const std::vector<std::uint8_t>& layout, std::uint32_t window_bytes) {
        if (bytes_.size() < window_bytes) bytes_.resize(window_bytes);
        const std::size_t fixed = layout.size() < window_bytes ? layout.size() : window_bytes;
        std::memcpy(bytes_.data(), layout.data(), fixed);
        std::memset(bytes_.data() + fixed, shared_unwritten, window_bytes - fixed);
        held_ = false;
    }

    // Keeps the first read of unwritten bytes (its finding complete: thread, block, line).
    void hold(Finding read) {
        if (held_) return;
        held_read_ = std::move(read);
        held_ = true;
    }
    // The read held, if any; the state holds none afterwards.
    bool take_held(Finding& read) {
        if (!held_) return false;
        held_ = false;
        read = std::move(held_read_);
        return true;
    }

    // The states of [offset, offset + size) or'ed together (the caller checked the window's
    // bounds): 0 when every byte was written.
    std::uint8_t of(std::uint32_t offset, unsigned size) const noexcept {
        const std::uint8_t* p = bytes_.data() + offset;
        std::uint64_t v = 0;
        if (size == 4) {
            std::uint32_t w;
            std::memcpy(&w, p, 4);
            v = w;
        } else {
            for (unsigned at = 0; at < size; at += 8) {
                std::uint64_t w = 0;
                std::memcpy(&w, p + at, size - at < 8 ? size - at : 8);
                v |= w;
            }
        }
        v |= v >> 32;
        v |= v >> 16;
        v |= v >> 8;
        return static_cast<std::uint8_t>(v);
    }

    // Whether the 4 bytes of `word` (offset / 4) were all written: no red zone, none unwritten.
    bool word_written(std::uint32_t word) const noexcept {
        std::uint32_t v;
        std::memcpy(&v, bytes_.data() + std::size_t{word} * 4, 4);
        return v == 0;
    }

    // Whether every byte of [offset, offset + size) was written (size a multiple of 4).
    bool range_written(std::uint32_t offset, std::uint32_t size) const noexcept {
        const std::uint8_t* p = bytes_.data() + offset;
        std::uint64_t any = 0;
        std::uint32_t at = 0;
        for (; at + 8 <= size; at += 8) {
            std::uint64_t w;
            std::memcpy(&w, p + at, 8);
            any |= w;
        }
        if (at < size) {
            std::uint32_t w;
            std::memcpy(&w, p + at, 4);
            any |= w;
        }
        return any == 0;
    }

    void mark_written(std::uint32_t offset, unsigned size) noexcept {
        std::memset(bytes_.data() + offset, shared_written, size);
    }

    // The first byte of [offset, offset + size) in state `bit` (for reports).
    std::uint32_t first(std::uint32_t offset, unsigned size, std::uint8_t bit) const noexcept {
        for (unsigned i = 0; i < size; ++i) {
            if (bytes_[offset + i] & bit) return offset + i;
        }
        return offset;
    }

private:
    std::vector<std::uint8_t> bytes_;
    bool held_ = false;
    Finding held_read_;
};

}  // namespace xcuda::cpu
