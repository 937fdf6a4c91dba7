// libFuzzer target: the disk cache entry loader. Anything it accepts must serialise back to
// the same bytes (a damaged entry can never load as some other module).
#include "xcuda/compile/cache_entry.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // the key and secret the seed entries were written with (see corpus/cache_entry)
    const std::string key(64, 'a');
    const std::string secret(32, 's');
    if (auto p = xcuda::compile::parse_cache_entry(bytes, key, secret)) {
        if (xcuda::compile::serialize_cache_entry(key, *p, secret) != bytes) std::abort();
    }
    return 0;
}
