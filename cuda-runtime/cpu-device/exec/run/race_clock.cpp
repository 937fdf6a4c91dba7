#include "exec/run/race_clock.hpp"

#include "check/shared_race.hpp"
#include "exec/global_race_notes.hpp"

namespace xcuda::cpu {

void synchronise_on(Exec& x, Cta& cta, std::uint32_t word, bool acquire, bool release) {
    if (!x.checks || cta.shadow == nullptr || x.epochs == nullptr) return;
    if (acquire) {
        const std::uint64_t released = cta.shadow->release_epoch(word);
        if (released > x.warp->acquired_epoch) x.warp->acquired_epoch = released;
    }
    if (release) cta.shadow->release(word, ++*x.epochs);
    note_shared_sync(x, static_cast<std::uint32_t>(&cta - x.ctas->data()), word, acquire, release);
}

}  // namespace xcuda::cpu
