// The host rounding (fp::Round) of a PTX rounding modifier, for the float (ops_float.cpp) and
// conversion (ops_convert.cpp) families, which must agree on it.
#pragma once

#include "exec/decode/decode.hpp"
#include "exec/ops/float_semantics.hpp"

namespace xcuda::cpu {

// .rzi, .rmi and .rpi (a float rounded to an integral value) round as .rz, .rm and .rp; no
// modifier, .rn and .rni round to nearest even.
inline fp::Round round_of(Rounding r) {
    switch (r) {
        case Rounding::rz:
        case Rounding::rzi: return fp::Round::zero;
        case Rounding::rm:
        case Rounding::rmi: return fp::Round::down;
        case Rounding::rp:
        case Rounding::rpi: return fp::Round::up;
        case Rounding::rna: return fp::Round::nearest_away;
        default: return fp::Round::nearest;
    }
}

}  // namespace xcuda::cpu
