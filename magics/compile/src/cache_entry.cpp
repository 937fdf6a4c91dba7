#include "xcuda/compile/cache_entry.hpp"

#include "xcuda/compile/sha256.hpp"

namespace xcuda::compile {
namespace {

constexpr char magic[8] = {'X', 'C', 'U', 'D', 'A', 'C', 'C', '\0'};

void put(std::string& out, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += char((v >> (8 * i)) & 0xff);
}

void put_bytes(std::string& out, std::string_view s, int len_bytes) {
    put(out, s.size(), len_bytes);
    out.append(s);
}

// Bounds-checked reading; every failure leaves ok false and reads nothing more.
struct Reader {
    std::string_view s;
    std::size_t at = 0;
    bool ok = true;

    std::uint64_t get(int bytes) {
        if (!ok || s.size() - at < std::size_t(bytes)) {
            ok = false;
            return 0;
        }
        std::uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v |= std::uint64_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
        at += bytes;
        return v;
    }
    std::string_view bytes(std::uint64_t n) {
        if (!ok || s.size() - at < n) {
            ok = false;
            return {};
        }
        std::string_view v = s.substr(at, n);
        at += n;
        return v;
    }
    std::string_view sized(int len_bytes) { return bytes(get(len_bytes)); }
};

}  // namespace

std::string serialize_cache_entry(std::string_view key, const CachePayload& p, std::string_view secret) {
    std::string out(magic, sizeof magic);
    put(out, cache_format_version, 4);
    put_bytes(out, key, 4);
    put_bytes(out, p.cubin, 8);
    put_bytes(out, p.ptx, 8);
    put_bytes(out, p.log, 8);
    put(out, p.lowered_names.size(), 4);
    for (const auto& [expr, lowered] : p.lowered_names) {
        put_bytes(out, expr, 4);
        put_bytes(out, lowered, 4);
    }
    auto digest = hmac_sha256(secret, out);
    out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
    return out;
}

std::optional<CachePayload> parse_cache_entry(std::string_view bytes, std::string_view expected_key,
                                              std::string_view secret) {
    constexpr std::size_t digest_size = 32;
    if (bytes.size() < sizeof magic + digest_size) return std::nullopt;
    std::string_view body = bytes.substr(0, bytes.size() - digest_size);
    Reader r{body};
    if (r.bytes(sizeof magic) != std::string_view(magic, sizeof magic)) return std::nullopt;
    if (r.get(4) != cache_format_version) return std::nullopt;
    if (r.sized(4) != expected_key || !r.ok) return std::nullopt;
    // The tag before the (possibly huge) copies: a damaged or forged entry costs one hash.
    auto digest = hmac_sha256(secret, body);
    if (!equal_in_constant_time({reinterpret_cast<const char*>(digest.data()), digest_size}, bytes.substr(body.size())))
        return std::nullopt;
    CachePayload p;
    p.cubin = std::string(r.sized(8));
    p.ptx = std::string(r.sized(8));
    p.log = std::string(r.sized(8));
    std::uint64_t count = r.get(4);
    // each name needs at least 8 bytes: refuse counts the body cannot hold before reserving
    if (!r.ok || count > (body.size() - r.at) / 8) return std::nullopt;
    for (std::uint64_t i = 0; i < count && r.ok; ++i) {
        std::string expr(r.sized(4));
        std::string lowered(r.sized(4));
        p.lowered_names.emplace_back(std::move(expr), std::move(lowered));
    }
    if (!r.ok || r.at != body.size()) return std::nullopt;
    return p;
}

}  // namespace xcuda::compile
