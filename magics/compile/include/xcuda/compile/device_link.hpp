// Relocatable device code across cells: a cell compiled with -dc (or -rdc=true) is device-linked
// with nvJitLink before it is loaded, together with CUDA's device runtime (launches from the
// device) and with the earlier -dc cells that define the device functions and variables it
// only declares. A session remembers each -dc cell's object; the newest definition wins.
#pragma once

#include <xcuda/rt/linker.hpp>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

// The global symbols an ELF object defines and the ones it needs from elsewhere; nullopt when
// `elf` is not a 64-bit little-endian ELF with a symbol table. Never reads outside `elf`.
struct ElfSymbols {
    std::set<std::string> defined;
    std::set<std::string> undefined;
};
std::optional<ElfSymbols> elf_symbols(std::string_view elf);

class DeviceObjects {
public:
    // Remembers a linked cell's relocatable object (`label`: "cell_5") and its symbols
    // (elf_symbols of it). The same object again (a re-run of an unchanged cell) replaces the
    // older copy, so re-running cells does not grow the list.
    void add(const std::string& label, const std::string& cubin, ElfSymbols symbols);
    // The objects defining what `needs` leaves undefined, newest first, and what they in turn
    // need (each object once). `unresolved`: the symbols none of them defines (the device
    // runtime's, or missing).
    std::vector<rt::LinkInput> providers_for(const ElfSymbols& needs,
                                             std::set<std::string>* unresolved = nullptr) const;
    std::size_t size() const { return objects_.size(); }

private:
    struct Object {
        std::string label;
        std::string cubin;
        ElfSymbols symbols;
    };
    std::vector<Object> objects_;  // oldest first
};

// nvJitLink's log, explained: an undefined symbol is named as C++ wrote it and the fix given
// (define it in an earlier -dc cell); other logs pass through.
std::string explain_link_log(const std::string& log, const std::string& cell_label);

}  // namespace xcuda::compile
