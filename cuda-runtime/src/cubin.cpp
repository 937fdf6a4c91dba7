#include <xcuda/rt/cubin.hpp>

#include <cstdint>
#include <cstring>
#include <string>

namespace xcuda::rt {
namespace {

// Little-endian field of `bytes` bytes at `offset`; false when it lies outside `data`.
bool read_le(std::string_view data, std::uint64_t offset, unsigned bytes, std::uint64_t& out) {
    if (offset > data.size() || bytes > data.size() - offset) return false;
    out = 0;
    for (unsigned i = 0; i < bytes; ++i) {
        out |= std::uint64_t(static_cast<unsigned char>(data[offset + i])) << (8 * i);
    }
    return true;
}

}  // namespace

std::optional<std::string_view> function_machine_code(std::string_view cubin, std::string_view mangled_name) {
    // ELF64, little-endian (ELFCLASS64 = 2, ELFDATA2LSB = 1): what every CUBIN is.
    if (cubin.size() < 64 ||
        std::memcmp(cubin.data(),
                    "\x7f"
                    "ELF",
                    4) != 0 ||
        cubin[4] != 2 || cubin[5] != 1) {
        return std::nullopt;
    }
    std::uint64_t shoff = 0, shentsize = 0, shnum = 0, shstrndx = 0;
    if (!read_le(cubin, 0x28, 8, shoff) || !read_le(cubin, 0x3A, 2, shentsize) || !read_le(cubin, 0x3C, 2, shnum) ||
        !read_le(cubin, 0x3E, 2, shstrndx) || shentsize < 0x40 || shstrndx >= shnum) {
        return std::nullopt;
    }
    const auto section = [&](std::uint64_t index, std::uint64_t& name, std::uint64_t& offset, std::uint64_t& size) {
        const std::uint64_t at = shoff + index * shentsize;
        return read_le(cubin, at, 4, name) && read_le(cubin, at + 0x18, 8, offset) &&
               read_le(cubin, at + 0x20, 8, size) && offset <= cubin.size() && size <= cubin.size() - offset;
    };
    std::uint64_t names_name = 0, names_offset = 0, names_size = 0;
    if (!section(shstrndx, names_name, names_offset, names_size)) return std::nullopt;
    const std::string_view names = cubin.substr(names_offset, names_size);
    const std::string wanted = ".text." + std::string(mangled_name);
    for (std::uint64_t i = 0; i < shnum; ++i) {
        std::uint64_t name = 0, offset = 0, size = 0;
        if (!section(i, name, offset, size) || name >= names.size()) continue;
        const std::string_view rest = names.substr(name);
        if (rest.substr(0, rest.find('\0')) == wanted) return cubin.substr(offset, size);
    }
    return std::nullopt;
}

}  // namespace xcuda::rt
