#include "check/shared_race.hpp"

#include <algorithm>
#include <cstring>

namespace xcuda::cpu {
namespace {

// An earlier access by `thread` (with its warp's sync count then) is ordered before `now` when
// both are in one warp and a __syncwarp of that warp came between them. (A barrier between
// them shows in the epochs.)
bool ordered(std::uint16_t thread, std::uint16_t syncs, const Accessor& now) {
    return thread / 32 == now.thread / 32 && syncs != static_cast<std::uint16_t>(now.warp_syncs);
}

}  // namespace

void SharedShadow::record_deferred() noexcept {
    for (const DeferredReads& d : deferred_) {
        const unsigned n = d.period * d.words;
        for (unsigned j = 0; j < n; ++j) {
            const unsigned lane = j / d.words;
            const std::uint32_t lanes = d.period == 32 ? 1u << lane : (1u << lane) | (1u << (lane + 16));
            record_reads(d.base + j, d.first, lanes, d.syncs, d.pc, d.epoch);
        }
    }
    deferred_.clear();
}

void SharedShadow::resize(std::uint32_t bytes) {
    if (!deferred_.empty()) record_deferred();
    const std::size_t words = (bytes + 3) / 4;
    if (words_.size() < words) words_.resize(words);
    if (newest_write_.size() < words) {
        newest_write_.resize(words);
        newest_access_.resize(words);
    }
}

bool SharedShadow::read(std::uint32_t offset, unsigned size, const Accessor& who, std::uint64_t epoch,
                        std::uint64_t horizon, RaceConflict& conflict) {
    if (!deferred_.empty()) record_deferred();
    note(newest_access_, offset / 4, (offset % 4 + size + 3) / 4, epoch);
    const auto thread = static_cast<std::uint16_t>(who.thread);
    const auto syncs = static_cast<std::uint16_t>(who.warp_syncs);
    bool raced = false;
    for (std::uint32_t at = offset; at < offset + size;) {
        Word& w = words_[at / 4];
        const std::uint32_t first = at % 4, last = std::min<std::uint32_t>(4, first + (offset + size - at));
        const auto bytes = static_cast<std::uint8_t>(((1u << last) - 1) & ~((1u << first) - 1));
        at += last - first;
        if (!raced && w.write_epoch >= horizon && (w.write_bytes & bytes) != 0 && w.write_thread != thread &&
            !ordered(w.write_thread, w.write_syncs, who)) {
            conflict = {Access::write, w.write_thread, w.write_pc};
            raced = true;
        }
        if (w.read_epoch != epoch) {
            w.read_epoch = epoch;
            w.first_reader = {thread, syncs, bytes, who.pc};
            w.has_second = 0;
        } else if (w.first_reader.thread == thread) {
            w.first_reader.syncs = syncs;
            w.first_reader.bytes |= bytes;
        } else {
            w.second_reader = {thread, syncs, bytes, who.pc};
            w.has_second = 1;
        }
    }
    return raced;
}

bool SharedShadow::write(std::uint32_t offset, unsigned size, const Accessor& who, std::uint64_t epoch,
                         std::uint64_t horizon, const std::byte* current, const std::byte* value,
                         RaceConflict& conflict) {
    if (!deferred_.empty()) record_deferred();
    const std::uint32_t first_word = offset / 4, words = (offset % 4 + size + 3) / 4;
    note(newest_write_, first_word, words, epoch);
    note(newest_access_, first_word, words, epoch);
    // Storing what is already there changes nothing another thread could see: no race with the
    // accesses before it. It is still a write that later reads must be ordered after.
    const bool same = size == 4 ? std::memcmp(current, value, 4) == 0 : std::memcmp(current, value, size) == 0;
    const auto thread = static_cast<std::uint16_t>(who.thread);
    const auto syncs = static_cast<std::uint16_t>(who.warp_syncs);
    bool raced = false;
    auto conflicts_with = [&](const Reader& r, std::uint8_t bytes) {
        return (r.bytes & bytes) != 0 && r.thread != thread && !ordered(r.thread, r.syncs, who);
    };
    for (std::uint32_t at = offset; at < offset + size;) {
        Word& w = words_[at / 4];
        const std::uint32_t first = at % 4, last = std::min<std::uint32_t>(4, first + (offset + size - at));
        const auto bytes = static_cast<std::uint8_t>(((1u << last) - 1) & ~((1u << first) - 1));
        at += last - first;
        if (!same && !raced && w.write_epoch >= horizon && (w.write_bytes & bytes) != 0 && w.write_thread != thread &&
            !ordered(w.write_thread, w.write_syncs, who)) {
            conflict = {Access::write, w.write_thread, w.write_pc};
            raced = true;
        }
        if (!same && !raced && w.read_epoch >= horizon) {
            if (conflicts_with(w.first_reader, bytes)) {
                conflict = {Access::read, w.first_reader.thread, w.first_reader.pc};
                raced = true;
            } else if (w.has_second && conflicts_with(w.second_reader, bytes)) {
                conflict = {Access::read, w.second_reader.thread, w.second_reader.pc};
                raced = true;
            }
        }
        set_writer(w, bytes, thread, syncs, who.pc, epoch);
    }
    return raced;
}

}  // namespace xcuda::cpu
