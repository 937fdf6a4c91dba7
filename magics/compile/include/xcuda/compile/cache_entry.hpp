// The on-disk form of one compiled cell. Format (all integers little-endian):
//   "XCUDACC\0"  u32 format version  u32 key length  key bytes
//   u64 cubin length, cubin  u64 ptx length, ptx  u64 log length, log
//   u32 name count, then per name: u32 length + name expression, u32 length + lowered name
//   32 bytes HMAC-SHA256 of everything before it, under the cache owner's secret key
// A reader trusts nothing: any difference (magic, version, key, a length past the end,
// trailing bytes, tag) is a miss. The tag makes an entry forged by someone without the key,
// or copied from another user's cache, a miss too: a plain checksum could be recomputed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcuda::compile {

inline constexpr std::uint32_t cache_format_version = 2;  // 2: HMAC tag (1 had a plain SHA-256)

struct CachePayload {
    std::string cubin;
    std::string ptx;
    std::string log;
    // name expression given to NVRTC ("&ns::k", "&axpy<float>") -> lowered (mangled) name
    std::vector<std::pair<std::string, std::string>> lowered_names;

    bool operator==(const CachePayload& o) const {
        return cubin == o.cubin && ptx == o.ptx && log == o.log && lowered_names == o.lowered_names;
    }
};

std::string serialize_cache_entry(std::string_view key, const CachePayload& payload, std::string_view secret);

// The payload, or nullopt when `bytes` is not a complete, intact entry for `expected_key`
// tagged under `secret`. Pure, never throws (bad_alloc aside), never reads outside `bytes`:
// the fuzz target.
std::optional<CachePayload> parse_cache_entry(std::string_view bytes, std::string_view expected_key,
                                              std::string_view secret);

}  // namespace xcuda::compile
