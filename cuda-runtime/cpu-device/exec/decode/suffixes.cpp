// Sorting an instruction's dot-suffixes into types, rounding, comparison, state space and the rest.
#include "exec/decode/decode.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace xcuda::cpu {
namespace {

struct TypeRow {
    const char* name;
    Ty type;
    unsigned size;
    bool is_signed, is_float;
};

constexpr std::array<TypeRow, 25> type_rows{{
    {"pred", Ty::pred, 4, false, false},   {"b8", Ty::b8, 1, false, false},   {"b16", Ty::b16, 2, false, false},
    {"b32", Ty::b32, 4, false, false},     {"b64", Ty::b64, 8, false, false}, {"b128", Ty::b128, 16, false, false},
    {"u8", Ty::u8, 1, false, false},       {"u16", Ty::u16, 2, false, false}, {"u32", Ty::u32, 4, false, false},
    {"u64", Ty::u64, 8, false, false},     {"s8", Ty::s8, 1, true, false},    {"s16", Ty::s16, 2, true, false},
    {"s32", Ty::s32, 4, true, false},      {"s64", Ty::s64, 8, true, false},  {"f16", Ty::f16, 2, true, true},
    {"f16x2", Ty::f16x2, 4, true, true},   {"bf16", Ty::bf16, 2, true, true}, {"bf16x2", Ty::bf16x2, 4, true, true},
    {"f32", Ty::f32, 4, true, true},       {"f64", Ty::f64, 8, true, true},   {"tf32", Ty::tf32, 4, true, true},
    {"e4m3", Ty::e4m3, 1, true, true},     {"e5m2", Ty::e5m2, 1, true, true}, {"e4m3x2", Ty::e4m3x2, 2, true, true},
    {"e5m2x2", Ty::e5m2x2, 2, true, true},
}};

const TypeRow* row_of(Ty t) noexcept {
    for (const auto& r : type_rows) {
        if (r.type == t) return &r;
    }
    return nullptr;
}

template <class E, std::size_t N>
bool lookup(std::string_view word, const std::array<std::pair<const char*, E>, N>& table, E& out) {
    for (const auto& [name, value] : table) {
        if (word == name) {
            out = value;
            return true;
        }
    }
    return false;
}

constexpr std::array<std::pair<const char*, Rounding>, 10> roundings{{
    {"rn", Rounding::rn},
    {"rz", Rounding::rz},
    {"rm", Rounding::rm},
    {"rp", Rounding::rp},
    {"rna", Rounding::rna},
    {"rni", Rounding::rni},
    {"rzi", Rounding::rzi},
    {"rmi", Rounding::rmi},
    {"rpi", Rounding::rpi},
    {"rs", Rounding::rs},
}};

constexpr std::array<std::pair<const char*, Cmp>, 18> comparisons{{
    {"eq", Cmp::eq},
    {"ne", Cmp::ne},
    {"lt", Cmp::lt},
    {"le", Cmp::le},
    {"gt", Cmp::gt},
    {"ge", Cmp::ge},
    {"lo", Cmp::lo},
    {"ls", Cmp::ls},
    {"hi", Cmp::hi},
    {"hs", Cmp::hs},
    {"equ", Cmp::equ},
    {"neu", Cmp::neu},
    {"ltu", Cmp::ltu},
    {"leu", Cmp::leu},
    {"gtu", Cmp::gtu},
    {"geu", Cmp::geu},
    {"num", Cmp::num},
    {"nan", Cmp::nan},
}};

constexpr std::array<std::pair<const char*, Semantics>, 8> semantics{{
    {"weak", Semantics::weak},
    {"volatile", Semantics::volatile_},
    {"relaxed", Semantics::relaxed},
    {"acquire", Semantics::acquire},
    {"release", Semantics::release},
    {"acq_rel", Semantics::acq_rel},
    {"sc", Semantics::sc},
    {"mmio", Semantics::mmio},
}};

constexpr std::array<std::pair<const char*, Scope>, 4> scopes{{
    {"cta", Scope::cta},
    {"cluster", Scope::cluster},
    {"gpu", Scope::gpu},
    {"sys", Scope::sys},
}};

constexpr std::array<std::pair<const char*, MemorySpace>, 9> spaces{{
    {"global", MemorySpace::global},
    {"shared", MemorySpace::shared},
    {"shared::cta", MemorySpace::shared},
    {"shared::cluster", MemorySpace::shared},
    {"local", MemorySpace::local},
    {"param", MemorySpace::param},
    {"param::entry", MemorySpace::param},
    {"param::func", MemorySpace::param},
    {"const", MemorySpace::constant},
}};

}  // namespace

Ty parse_type(std::string_view name) noexcept {
    for (const auto& r : type_rows) {
        if (name == r.name) return r.type;
    }
    return Ty::none;
}

unsigned type_size(Ty t) noexcept {
    const TypeRow* r = row_of(t);
    return r != nullptr ? r->size : 0;
}

bool is_signed(Ty t) noexcept {
    const TypeRow* r = row_of(t);
    return r != nullptr && r->is_signed;
}

bool is_float(Ty t) noexcept {
    const TypeRow* r = row_of(t);
    return r != nullptr && r->is_float;
}

const char* type_name(Ty t) noexcept {
    const TypeRow* r = row_of(t);
    return r != nullptr ? r->name : "none";
}

bool Suffixes::has(std::string_view word) const noexcept {
    return std::find(words.begin(), words.end(), word) != words.end();
}

Suffixes parse_suffixes(const std::vector<std::string>& suffixes, bool comparison) {
    Suffixes s;
    // The boolean operator of setp follows its comparison (setp.lt.and.s32); `and`/`or`/`xor`
    // elsewhere (atom.and, redux.sync.or) are operations, kept as words.
    bool after_cmp = false;
    for (const std::string& word : suffixes) {
        const Ty t = parse_type(word);
        if (t != Ty::none) {
            s.types.push_back(t);
            continue;
        }
        Rounding r;
        Cmp c;
        Semantics sem;
        Scope sc;
        MemorySpace sp;
        if (lookup(word, roundings, r)) {
            s.rounding = r;
        } else if (comparison && s.cmp == Cmp::none && lookup(word, comparisons, c)) {
            s.cmp = c;
            after_cmp = true;
            continue;
        } else if (after_cmp && (word == "and" || word == "or" || word == "xor")) {
            s.bool_op = word == "and" ? BoolOp::and_ : word == "or" ? BoolOp::or_ : BoolOp::xor_;
        } else if (lookup(word, semantics, sem)) {
            s.semantics = sem;
        } else if (lookup(word, scopes, sc)) {
            s.scope = sc;
        } else if (lookup(word, spaces, sp)) {
            s.space = sp;
            s.cluster_space = word == "shared::cluster";
        } else if (word == "v2" || word == "v4" || word == "v8") {
            s.vector = word[1] - '0';
        } else if (word == "ftz") {
            s.ftz = true;
        } else if (word == "sat" || word == "satfinite") {
            s.sat = true;
        } else {
            s.words.push_back(word);
        }
        after_cmp = false;
    }
    return s;
}

}  // namespace xcuda::cpu
