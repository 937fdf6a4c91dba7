// The .loc in effect while a function body is read, with its chain of inlined call sites.
#pragma once

#include "ptx/ast.hpp"

#include <array>
#include <map>
#include <optional>
#include <vector>

namespace xcuda::cpu::ptx {

class LocTracker {
public:
    // A new function: no .loc in effect, no chains known.
    void reset();
    // `.loc file line column [, inlined_at site]`.
    void set(const Loc::Site& position, const std::optional<Loc::Site>& inlined_at);
    const Loc& current() const { return current_; }

private:
    using Key = std::array<int, 3>;
    static Key key(const Loc::Site& s) { return {s.file, s.line, s.column}; }

    Loc current_;
    // Each position's chain, as the last .loc at that position had it: a .loc names only its
    // nearest call site, and that site's own chain is the one it had when it was last in effect.
    std::map<Key, std::vector<Loc::Site>> chains_;
};

}  // namespace xcuda::cpu::ptx
