#include "exec/pointer_source.hpp"

#include <cstring>

namespace xcuda::cpu {

PointerSource pointer_source(const Exec& x, std::uint64_t address) {
    PointerSource best;
    const Site& site = x.program->sites[x.code[x.pc].site];
    bool below = false;  // best's value is at or below the address
    std::uint64_t distance = 0;
    for (const AddressSource& s : site.address_sources) {
        PointerSource p;
        if (s.kind == AddressSource::Kind::parameter) {
            if (s.offset + 8 > x.launch->kernel->param_bytes) continue;
            std::memcpy(&p.value, reinterpret_cast<const void*>(x.launch->params_address + s.offset), 8);
            p.kind = PointerSource::Kind::parameter;
            p.parameter = static_cast<int>(s.index);
        } else {
            // A module variable of this module: live while its kernel runs.
            if (x.launch->table->find(s.address, 8) == nullptr) continue;
            std::memcpy(&p.value, reinterpret_cast<const void*>(s.address), 8);
            p.kind = PointerSource::Kind::variable;
            p.variable = s.name;
        }
        const bool is_below = p.value <= address;
        const std::uint64_t d = is_below ? address - p.value : p.value - address;
        if (best.kind == PointerSource::Kind::unknown || (is_below && !below) || (is_below == below && d < distance)) {
            best = p;
            below = is_below;
            distance = d;
        }
    }
    return best;
}

}  // namespace xcuda::cpu
