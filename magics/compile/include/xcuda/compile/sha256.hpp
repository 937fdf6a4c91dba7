// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), self-contained: the cache key and the
// cache entries' authentication tag.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace xcuda::compile {

class Sha256 {
public:
    using Digest = std::array<std::uint8_t, 32>;
    Sha256();
    Sha256& update(const void* data, std::size_t size);
    Sha256& update(std::string_view bytes) { return update(bytes.data(), bytes.size()); }
    // Hashes the length (8 bytes, little-endian) then the bytes, so concatenated fields
    // cannot collide by moving bytes across a boundary.
    Sha256& field(std::string_view bytes);
    Digest finish();  // the object is spent afterwards

private:
    void block(const std::uint8_t* p);
    std::array<std::uint32_t, 8> h_;
    std::array<std::uint8_t, 64> buf_;
    std::size_t buffered_ = 0;
    std::uint64_t total_ = 0;
};

std::string to_hex(const Sha256::Digest& d);
std::string sha256_hex(std::string_view bytes);

// HMAC-SHA256 of `message` under `secret` (any length; longer than a block is hashed first).
Sha256::Digest hmac_sha256(std::string_view secret, std::string_view message);

// Compares two byte strings in time that depends only on their lengths: a tag check must not
// tell an attacker how many leading bytes they got right.
bool equal_in_constant_time(std::string_view a, std::string_view b);

}  // namespace xcuda::compile
