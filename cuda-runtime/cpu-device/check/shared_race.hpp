// The race check of a CTA's shared memory. Each 4-byte word has a shadow: its last writer and its
// recent readers, each with the worker's race clock ("epoch") at the access. An access is ordered
// after every access whose epoch is below its thread's horizon (exec/run/race_clock.hpp: the last
// barrier, or a release it acquired); two accesses by different threads, at least one a write,
// race when the earlier one is at or above the later one's horizon and no __syncwarp of their warp
// came between. Atomics and other strong accesses (volatile, acquire, release) do not take part:
// they synchronise (release_epoch) instead. A write of the value already there races with nothing
// before it (threads storing the same flag), though reads after it must still be ordered after it.
// Epochs only grow on a worker, so a shadow is reused from CTA to CTA without clearing it.
#pragma once

#include <xcuda/cpu/finding.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace xcuda::cpu {

// Who accessed: the thread's index in the CTA, its warp's __syncwarp count, the instruction.
struct Accessor {
    std::uint32_t thread = 0;
    std::uint32_t warp_syncs = 0;
    std::uint32_t pc = 0;
};

struct RaceConflict {
    Access other_access = Access::none;
    std::uint32_t other_thread = 0;
    std::uint32_t other_pc = 0;
};

class SharedShadow {
public:
    // Makes room for a window of `bytes` (keeping what is known: epochs tell old from new).
    void resize(std::uint32_t bytes);

    // Records a read (write) of [offset, offset + size) by `who` at `epoch`, whose thread is ordered
    // after the accesses below `horizon`; returns true and fills `conflict` when it races with an
    // earlier access. `current` is the memory before the write and `value` what is written
    // (same-value writes are not races).
    bool read(std::uint32_t offset, unsigned size, const Accessor& who, std::uint64_t epoch, std::uint64_t horizon,
              RaceConflict& conflict);
    bool write(std::uint32_t offset, unsigned size, const Accessor& who, std::uint64_t epoch, std::uint64_t horizon,
               const std::byte* current, const std::byte* value, RaceConflict& conflict);

    // The epoch of the last release on `word` (an atomic, a release store, an mbarrier arrival):
    // a thread that acquires it is ordered after every access below it.
    std::uint64_t release_epoch(std::uint32_t word) const noexcept { return words_[word].release_epoch; }
    void release(std::uint32_t word, std::uint64_t epoch) noexcept { words_[word].release_epoch = epoch; }

    // read() for one whole word (a 4-byte-aligned access, or one word of a wider one), inline for
    // the warp-wide fast path: false, having recorded nothing, when it would race (read() then
    // says with what).
    bool read_word(std::uint32_t word, std::uint16_t thread, std::uint16_t syncs, std::uint32_t pc, std::uint64_t epoch,
                   std::uint64_t horizon) noexcept {
        Word& w = words_[word];
        if (w.write_epoch >= horizon && w.write_thread != thread &&
            !(w.write_thread / 32 == thread / 32 && w.write_syncs != syncs)) {
            return false;
        }
        if (w.read_epoch != epoch) {
            w.read_epoch = epoch;
            w.first_reader = {thread, syncs, 0xF, pc};
            w.has_second = 0;
        } else if (w.first_reader.thread == thread) {
            w.first_reader.syncs = syncs;
            w.first_reader.bytes = 0xF;
        } else {
            w.second_reader = {thread, syncs, 0xF, pc};
            w.has_second = 1;
        }
        return true;
    }

private:
    struct Reader {
        std::uint16_t thread = 0;
        std::uint16_t syncs = 0;
        std::uint8_t bytes = 0;  // which bytes of the word it read
        std::uint32_t pc = 0;
    };
    // Per 4-byte word: the last writer, and the first reader of the epoch and a later, different one.
    struct Word {
        std::uint64_t write_epoch = 0;
        std::uint32_t write_pc = 0;
        std::uint16_t write_thread = 0;
        std::uint16_t write_syncs = 0;
        std::uint8_t write_bytes = 0;
        std::uint8_t has_second = 0;
        std::uint64_t read_epoch = 0;
        std::uint64_t release_epoch = 0;
        Reader first_reader, second_reader;
    };
    std::vector<Word> words_;
};

}  // namespace xcuda::cpu
