// The CPU device's device memory: one reserved arena of host address space, carved into
// allocations. Device pointers are host addresses inside the arena, so a checked access is a plain
// host load or store; an address outside the arena can never be dereferenced, with checks or
// without. Freed allocations stay quarantined (not reused) while the quarantine has room, so a
// use after free is recognised as one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xcuda::cpu {

class InitShadow;  // init_shadow.hpp

struct Allocation {
    enum class Kind : std::uint8_t { device, module_variable, launch_parameters, workspace, device_heap };
    std::uint64_t base = 0;
    std::uint64_t size = 0;  // bytes asked for (the red zone after it is not part of it)
    Kind kind = Kind::device;
    std::string label;         // module_variable: the variable's PTX name
    std::uint64_t serial = 0;  // 1, 2, ... in allocation order
    // The bytes written so far, while some are not (memory from cuMemAlloc); nullptr: all are.
    std::shared_ptr<InitShadow> unwritten;
};

// An immutable view of the allocations at one moment: a launch takes one when it starts (cuMemFree
// waits for running kernels, as the real driver does, so none is freed under a kernel; one made
// during a kernel is not in its view, and the kernel cannot know its address anyway).
struct AllocationTable {
    std::vector<Allocation> live;   // sorted by base, disjoint
    std::vector<Allocation> freed;  // quarantined, sorted by base, disjoint
    // The live allocation containing [address, address + bytes), or nullptr.
    const Allocation* find(std::uint64_t address, std::uint64_t bytes) const noexcept;
    // The live allocation containing `address` (any part), or nullptr.
    const Allocation* containing(std::uint64_t address) const noexcept;
    const Allocation* freed_containing(std::uint64_t address) const noexcept;
    // The live allocation whose [base, base + size) is nearest to `address` (for reports).
    const Allocation* nearest(std::uint64_t address) const noexcept;
};

class DeviceMemory {
public:
    static constexpr std::size_t alignment = 256;  // of every allocation's base, as cuMemAlloc's
    static constexpr std::size_t default_quarantine_bytes = std::size_t{1} << 30;
    // Bounds the table a launch copies: past this many freed allocations the oldest leave first.
    static constexpr std::size_t quarantine_entries = 4096;

    // Reserves `capacity` bytes of address space (MAP_NORESERVE: nothing is committed until
    // written); when the system refuses that much, half as much, and so on down to 1 GiB.
    // Throws std::bad_alloc when not even that much address space is available.
    explicit DeviceMemory(std::size_t capacity, std::size_t quarantine_bytes = default_quarantine_bytes);
    ~DeviceMemory();
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;

    // 256-byte aligned, zero-filled, followed by a red zone; 0 when the arena has no room
    // (CUDA_ERROR_OUT_OF_MEMORY), even after the quarantine gave its space back. `bytes` 0 is an
    // error of the caller's (the driver's cuMemAlloc answers INVALID_VALUE before asking).
    // `written` false: its bytes count as unwritten until a copy, memset or kernel writes them (what
    // cuMemAlloc gives; the uninitialised-read check reads them).
    std::uint64_t allocate(std::size_t bytes, Allocation::Kind kind = Allocation::Kind::device, std::string label = {},
                           bool written = true);
    enum class FreeResult { freed, not_allocated };
    // Frees the allocation that starts at `base`: device allocations and module variables are
    // quarantined (their pages given back when they leave it), launch parameters and workspace
    // are free space again at once.
    FreeResult free(std::uint64_t base);

    // A copy or memset wrote [address, address + bytes) (inside one allocation).
    void mark_written(std::uint64_t address, std::size_t bytes);
    // After a launch: allocations its stores wrote completely drop their shadows.
    void settle_written();
    // After a launch without checks (its stores were not marked): every byte counts as written.
    void forget_unwritten();

    std::size_t capacity() const noexcept { return capacity_; }
    std::size_t used() const;  // bytes of live allocations, red zones and alignment included

    std::uint64_t arena_begin() const noexcept { return begin_; }
    std::uint64_t arena_end() const noexcept { return begin_ + capacity_; }
    bool in_arena(std::uint64_t address, std::uint64_t bytes) const noexcept {
        return address >= begin_ && bytes <= capacity_ && address - begin_ <= capacity_ - bytes;
    }

    // The current allocations; cheap (a shared pointer copy, the table rebuilt once after each
    // change) and safe from any thread.
    std::shared_ptr<const AllocationTable> table() const;

private:
    std::uint64_t begin_ = 0;
    std::size_t capacity_ = 0;
    mutable std::mutex mutex_;
    mutable std::shared_ptr<const AllocationTable> table_;  // nullptr after a change
    struct State;
    std::unique_ptr<State> state_;
};

// The capacity the CPU device reports: half the machine's physical memory, at most 64 GiB, or
// $XCUDA_CPU_MEMORY (bytes, or with a K/M/G suffix) when set. A value that is not a size is
// ignored with a warning on stderr that names it.
std::size_t default_device_memory_capacity();

}  // namespace xcuda::cpu
