#include "xcuda/compile/device_link.hpp"

#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace xcuda::compile {
namespace {

template <typename T>
bool read_at(std::string_view bytes, std::uint64_t offset, T& out) {
    if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
    std::memcpy(&out, bytes.data() + offset, sizeof(T));
    return true;
}

std::string demangled(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : name;
}

}  // namespace

std::optional<ElfSymbols> elf_symbols(std::string_view elf) {
    Elf64_Ehdr eh;
    if (!read_at(elf, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr))
        return std::nullopt;
    std::optional<ElfSymbols> out;
    for (std::uint16_t i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr symtab;
        if (!read_at(elf, eh.e_shoff + std::uint64_t(i) * sizeof(Elf64_Shdr), symtab)) return std::nullopt;
        if (symtab.sh_type != SHT_SYMTAB || symtab.sh_entsize != sizeof(Elf64_Sym)) continue;
        Elf64_Shdr strtab;
        if (!read_at(elf, eh.e_shoff + std::uint64_t(symtab.sh_link) * sizeof(Elf64_Shdr), strtab)) return std::nullopt;
        if (strtab.sh_offset > elf.size() || elf.size() - strtab.sh_offset < strtab.sh_size) return std::nullopt;
        std::string_view names = elf.substr(strtab.sh_offset, strtab.sh_size);
        if (!out) out.emplace();
        const std::uint64_t count = symtab.sh_size / sizeof(Elf64_Sym);
        for (std::uint64_t k = 1; k < count; ++k) {
            Elf64_Sym sym;
            if (!read_at(elf, symtab.sh_offset + k * sizeof(Elf64_Sym), sym)) return std::nullopt;
            const unsigned bind = ELF64_ST_BIND(sym.st_info);
            if ((bind != STB_GLOBAL && bind != STB_WEAK) || sym.st_name >= names.size()) continue;
            const std::size_t end = names.find('\0', sym.st_name);
            if (end == std::string_view::npos) continue;
            std::string name(names.substr(sym.st_name, end - sym.st_name));
            if (name.empty()) continue;
            // The linker's own (unified function/data tables, reserved shared memory): every
            // relocatable object refers to them and nvJitLink defines them.
            if (sym.st_shndx == SHN_UNDEF &&
                (name[0] == '.' || name.rfind("__UFT", 0) == 0 || name.rfind("__UDT", 0) == 0))
                continue;
            (sym.st_shndx == SHN_UNDEF ? out->undefined : out->defined).insert(std::move(name));
        }
    }
    return out;
}

void DeviceObjects::add(const std::string& label, const std::string& cubin, ElfSymbols symbols) {
    objects_.erase(std::remove_if(objects_.begin(), objects_.end(), [&](const Object& o) { return o.cubin == cubin; }),
                   objects_.end());
    objects_.push_back({label, cubin, std::move(symbols)});
}

std::vector<rt::LinkInput> DeviceObjects::providers_for(const ElfSymbols& needs,
                                                        std::set<std::string>* unresolved) const {
    std::vector<rt::LinkInput> out;
    std::vector<bool> taken(objects_.size(), false);
    std::set<std::string> defined = needs.defined;
    std::vector<std::string> wanted(needs.undefined.begin(), needs.undefined.end());
    while (!wanted.empty()) {
        const std::string symbol = wanted.back();
        wanted.pop_back();
        if (defined.count(symbol)) continue;
        bool found = false;
        for (std::size_t i = objects_.size(); i-- > 0;) {  // newest first: a re-run cell's definition wins
            if (!objects_[i].symbols.defined.count(symbol)) continue;
            found = true;
            if (!taken[i]) {
                taken[i] = true;
                out.push_back({objects_[i].label, objects_[i].cubin});
                defined.insert(objects_[i].symbols.defined.begin(), objects_[i].symbols.defined.end());
                wanted.insert(wanted.end(), objects_[i].symbols.undefined.begin(), objects_[i].symbols.undefined.end());
            }
            break;
        }
        if (!found && unresolved) unresolved->insert(symbol);
        defined.insert(symbol);  // provided, or left for the device runtime / the linker to report
    }
    return out;
}

std::string explain_link_log(const std::string& log, const std::string& cell_label) {
    std::string explained;
    // nvJitLink: "error   : Undefined reference to '_Z5twicei' in 'cell_6'"
    const std::string marker = "Undefined reference to '";
    for (std::size_t at = log.find(marker); at != std::string::npos; at = log.find(marker, at + 1)) {
        const std::size_t start = at + marker.size();
        const std::size_t end = log.find('\'', start);
        if (end == std::string::npos) break;
        const std::string symbol = log.substr(start, end - start);
        const std::string shown = demangled(symbol);
        explained += cell_label + " uses `" + shown + "`" + (shown != symbol ? " (" + symbol + ")" : "") +
                     ", which no earlier %%cuda -dc cell defines: run the cell that defines it first, compiled "
                     "with -dc (`%%cuda -- -dc`), or define it in this cell.\n";
    }
    return explained + "nvJitLink: " + log;
}

}  // namespace xcuda::compile
