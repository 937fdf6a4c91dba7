#include <xcuda/rt/cubin.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

// The sections of a 64-bit little-endian ELF (what every CUBIN is): name, contents, link.
struct Section {
    std::string_view name, data;
    std::uint64_t link = 0;
};

std::optional<std::vector<Section>> sections(std::string_view cubin) {
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
    struct Raw {
        std::uint64_t name = 0, type = 0, offset = 0, size = 0, link = 0;
    };
    constexpr std::uint64_t nobits = 8;  // SHT_NOBITS (.nv.shared.*): a size, no bytes in the file
    std::vector<Raw> raw(shnum);
    for (std::uint64_t i = 0; i < shnum; ++i) {
        const std::uint64_t at = shoff + i * shentsize;
        Raw& r = raw[i];
        if (!read_le(cubin, at, 4, r.name) || !read_le(cubin, at + 4, 4, r.type) ||
            !read_le(cubin, at + 0x18, 8, r.offset) || !read_le(cubin, at + 0x20, 8, r.size) ||
            !read_le(cubin, at + 0x28, 4, r.link)) {
            return std::nullopt;
        }
        if (r.type == nobits) r.size = 0;
        if (r.offset > cubin.size() || r.size > cubin.size() - r.offset) return std::nullopt;
    }
    const std::string_view names = cubin.substr(raw[shstrndx].offset, raw[shstrndx].size);
    std::vector<Section> out(shnum);
    for (std::uint64_t i = 0; i < shnum; ++i) {
        if (raw[i].name < names.size()) {
            const std::string_view rest = names.substr(raw[i].name);
            out[i].name = rest.substr(0, rest.find('\0'));
        }
        out[i].data = cubin.substr(raw[i].offset, raw[i].size);
        out[i].link = raw[i].link;
    }
    return out;
}

}  // namespace

std::optional<std::string_view> function_machine_code(std::string_view cubin, std::string_view mangled_name) {
    const auto all = sections(cubin);
    if (!all) return std::nullopt;
    const std::string wanted = ".text." + std::string(mangled_name);
    for (const Section& s : *all) {
        if (s.name == wanted) return s.data;
    }
    return std::nullopt;
}

std::map<std::string, int> kernel_register_counts(std::string_view cubin) {
    std::map<std::string, int> counts;
    const auto all = sections(cubin);
    if (!all) return counts;
    // Symbol names, for the attributes that name a function by its symbol index.
    std::vector<std::string> symbols;
    for (const Section& s : *all) {
        if (s.name != ".symtab" || s.link >= all->size()) continue;
        const std::string_view strings = (*all)[s.link].data;
        for (std::size_t at = 0; at + 24 <= s.data.size(); at += 24) {
            std::uint64_t name = 0;
            read_le(s.data, at, 4, name);
            const std::string_view rest = name < strings.size() ? strings.substr(name) : std::string_view();
            symbols.emplace_back(rest.substr(0, rest.find('\0')));
        }
    }
    // .nv.info: a list of attributes (format byte, attribute byte, then a payload by format);
    // EIATTR_REGCOUNT (0x2f, format EIFMT_SVAL 0x04) holds {symbol index, registers}.
    constexpr unsigned sval = 0x04, regcount = 0x2f;
    for (const Section& s : *all) {
        if (s.name != ".nv.info") continue;
        std::size_t at = 0;
        while (at + 2 <= s.data.size()) {
            const auto format = static_cast<unsigned char>(s.data[at]);
            const auto attribute = static_cast<unsigned char>(s.data[at + 1]);
            if (format == sval) {
                std::uint64_t size = 0, symbol = 0, value = 0;
                if (!read_le(s.data, at + 2, 2, size)) break;
                if (attribute == regcount && size >= 8 && read_le(s.data, at + 4, 4, symbol) &&
                    read_le(s.data, at + 8, 4, value) && symbol < symbols.size()) {
                    counts[symbols[symbol]] = static_cast<int>(value);
                }
                at += 4 + size;
            } else if (format == 0x03) {  // EIFMT_HVAL: a 16-bit value
                at += 4;
            } else if (format == 0x02) {  // EIFMT_BVAL: an 8-bit value
                at += 3;
            } else if (format == 0x01) {  // EIFMT_NVAL: none
                at += 2;
            } else {
                break;  // a format this reader does not know: stop rather than misread
            }
        }
    }
    return counts;
}

}  // namespace xcuda::rt
