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

    // Every thread that can reach this window completed a barrier (the CTA's own, outside a
    // cluster; the cluster's), or the CTA started: every access before it is ordered before every
    // access after it, so reads still deferred (defer_reads) can race with nothing and are dropped.
    void barrier_completed() noexcept { deferred_.clear(); }

    // Records a read (write) of [offset, offset + size) by `who` at `epoch`, whose thread is ordered
    // after the accesses below `horizon`; returns true and fills `conflict` when it races with an
    // earlier access. `current` is the memory before the write and `value` what is written
    // (same-value writes are not races).
    bool read(std::uint32_t offset, unsigned size, const Accessor& who, std::uint64_t epoch, std::uint64_t horizon,
              RaceConflict& conflict);
    bool write(std::uint32_t offset, unsigned size, const Accessor& who, std::uint64_t epoch, std::uint64_t horizon,
               const std::byte* current, const std::byte* value, RaceConflict& conflict);

    // Whether no write at or after `horizon` was recorded on words [first, first + count): then no
    // read of them by a thread with that horizon races (read_would_race is false for each).
    bool writes_ordered_before(std::uint32_t first, std::uint32_t count, std::uint64_t horizon) const noexcept {
        return all_below(newest_write_.data() + first, count, horizon);
    }
    // Whether no access at all at or after `horizon` was recorded (or deferred) on those words: then
    // no write by a thread with that horizon races either.
    bool accesses_ordered_before(std::uint32_t first, std::uint32_t count, std::uint64_t horizon) const noexcept {
        return all_below(newest_access_.data() + first, count, horizon);
    }
    // A full warp's 4-byte writes of `32` consecutive words from `base`, lane l's at base + l, when
    // accesses_ordered_before() its horizon: what write() of each lane in turn records, without the
    // race checks that can find nothing.
    void record_row_write(std::uint32_t base, std::uint16_t first, std::uint16_t syncs, std::uint32_t pc,
                          std::uint64_t epoch) noexcept {
        if (!deferred_.empty()) record_deferred();
        note(newest_write_, base, 32, epoch);
        note(newest_access_, base, 32, epoch);
        for (unsigned l = 0; l < 32; ++l)
            set_writer(words_[base + l], 0xF, static_cast<std::uint16_t>(first + l), syncs, pc, epoch);
    }

    // The epoch of the last release on `word` (an atomic, a release store, an mbarrier arrival):
    // a thread that acquires it is ordered after every access below it.
    std::uint64_t release_epoch(std::uint32_t word) const noexcept { return words_[word].release_epoch; }
    void release(std::uint32_t word, std::uint64_t epoch) noexcept { words_[word].release_epoch = epoch; }

    // The warp-wide fast path's read of one whole word (a 4-byte-aligned access, or one word of a
    // wider one) by several lanes of a warp at once: `lanes` (a mask) of the warp whose lane 0 is
    // thread `first`. Checked first, then recorded, so that a race records nothing (read() then
    // says with what).
    [[gnu::always_inline]] bool read_would_race(std::uint32_t word, std::uint16_t first, std::uint32_t lanes,
                                                std::uint16_t syncs, std::uint64_t horizon) const noexcept {
        const Word& w = words_[word];
        if (w.write_epoch < horizon) return false;  // ordered after the write: no lane races
        for (; lanes != 0; lanes &= lanes - 1) {
            const auto thread = static_cast<std::uint16_t>(first + __builtin_ctz(lanes));
            if (w.write_thread != thread && !(w.write_thread / 32 == thread / 32 && w.write_syncs != syncs))
                return true;
        }
        return false;
    }
    // A full warp's reads of a row of words recorded later (at the next access that needs the
    // readers, or never, when a barrier comes first): lane l reads the `words` words from
    // base + (l % period) * words, period 32 (every lane its own) or 16 (lane l + 16 reads lane
    // l's). What record_reads() would do then is done then; until a barrier nothing can race with
    // them, and after it they matter to nothing (a tile read by every warp between two barriers
    // costs one entry per warp-instruction, not one shadow update per word).
    void defer_reads(std::uint32_t base, unsigned words, unsigned period, std::uint16_t first, std::uint16_t syncs,
                     std::uint32_t pc, std::uint64_t epoch) {
        if (deferred_.size() == max_deferred) record_deferred();
        note(newest_access_, base, words * period, epoch);
        deferred_.push_back(
            {epoch, base, pc, first, syncs, static_cast<std::uint8_t>(words), static_cast<std::uint8_t>(period)});
    }

    // Records the reads of read_would_race() in lane order, leaving the word's readers as read() of
    // each lane in turn would: the first reader of the epoch stays, the last other one is second.
    [[gnu::always_inline]] void record_reads(std::uint32_t word, std::uint16_t first, std::uint32_t lanes,
                                             std::uint16_t syncs, std::uint32_t pc, std::uint64_t epoch) noexcept {
        Word& w = words_[word];
        note(newest_access_, word, 1, epoch);
        const unsigned highest = 31u - static_cast<unsigned>(__builtin_clz(lanes));
        if (w.read_epoch != epoch) {
            w.read_epoch = epoch;
            w.first_reader = {static_cast<std::uint16_t>(first + __builtin_ctz(lanes)), syncs, 0xF, pc};
            w.has_second = 0;
            lanes &= lanes - 1;  // the lowest lane is the first reader
            if (lanes == 0) return;
            w.second_reader = {static_cast<std::uint16_t>(first + highest), syncs, 0xF, pc};
            w.has_second = 1;
            return;
        }
        // The first reader's own lane (if it reads again) refreshes it; every other lane is second in
        // turn, so the highest of them stays.
        const auto own = static_cast<std::uint16_t>(w.first_reader.thread - first);
        if (own < 32 && ((lanes >> own) & 1u)) {
            w.first_reader.syncs = syncs;
            w.first_reader.bytes = 0xF;
            lanes &= ~(1u << own);
            if (lanes == 0) return;
        }
        w.second_reader = {static_cast<std::uint16_t>(first + 31u - static_cast<unsigned>(__builtin_clz(lanes))), syncs,
                           0xF, pc};
        w.has_second = 1;
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
    struct DeferredReads {
        std::uint64_t epoch;
        std::uint32_t base, pc;
        std::uint16_t first, syncs;
        std::uint8_t words, period;
    };
    static constexpr std::size_t max_deferred = 1024;
    // Makes `thread` the word's last writer of `bytes` (added to its bytes when it wrote them in
    // this epoch already).
    static void set_writer(Word& w, std::uint8_t bytes, std::uint16_t thread, std::uint16_t syncs, std::uint32_t pc,
                           std::uint64_t epoch) noexcept {
        w.write_bytes = w.write_epoch == epoch && w.write_thread == thread ? w.write_bytes | bytes : bytes;
        w.write_epoch = epoch;
        w.write_thread = thread;
        w.write_syncs = syncs;
        w.write_pc = pc;
    }
    // Records what defer_reads() held, in order: before anything reads or changes the readers.
    void record_deferred() noexcept;

    std::vector<Word> words_;
    std::vector<DeferredReads> deferred_;
    // Per word, the newest epoch of the writes recorded on it, and of any access recorded or
    // deferred: what the warp-wide paths ask, a dense row of epochs, before they skip the per-word
    // race checks. (Epochs only grow, so a word's newest is the one last recorded, except for
    // deferred reads recorded late, hence the max.)
    static void note(std::vector<std::uint64_t>& newest, std::uint32_t first, std::uint32_t count,
                     std::uint64_t epoch) noexcept {
        std::uint64_t* e = newest.data() + first;
        for (std::uint32_t i = 0; i < count; ++i) e[i] = e[i] > epoch ? e[i] : epoch;
    }
    static bool all_below(const std::uint64_t* newest, std::uint32_t count, std::uint64_t horizon) noexcept {
        bool below = true;
        for (std::uint32_t i = 0; i < count; ++i) below &= newest[i] < horizon;
        return below;
    }
    std::vector<std::uint64_t> newest_write_, newest_access_;
};

}  // namespace xcuda::cpu
