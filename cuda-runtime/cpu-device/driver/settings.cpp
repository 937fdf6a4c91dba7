#include "driver/settings.hpp"

#include <cstdlib>
#include <cstring>

namespace xcuda::cpu::driver::detail {
namespace {

bool env_is(const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v != nullptr && std::strcmp(v, value) == 0;
}

}  // namespace

Settings& settings() {
    // Never destroyed: stream workers read it until the process ends.
    static Settings* s = [] {
        auto* made = new Settings();
        made->checks = !env_is("XCUDA_CPU_CHECKS", "0");
        made->deterministic = env_is("XCUDA_CPU_DETERMINISTIC", "1");
        return made;
    }();
    return *s;
}

}  // namespace xcuda::cpu::driver::detail
