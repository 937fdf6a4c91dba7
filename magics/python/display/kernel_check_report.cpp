#include "display/kernel_check_report.hpp"

#include <xcuda/compile/global_decls.hpp>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>

namespace xcuda::magics {

std::string demangled(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : name;
}

int cell_line_of(const cpu::SourceLocation& at) {
    auto in_cell = [](const std::string& file) {
        const std::string cell = "cell.cu";
        return file.size() >= cell.size() && file.compare(file.size() - cell.size(), cell.size(), cell) == 0;
    };
    if (in_cell(at.file)) return at.line;
    for (const auto& site : at.inlined_at) {
        if (in_cell(site.file)) return site.line;
    }
    return 0;
}

namespace {

std::string line_text(const std::string& source, int line) {
    std::istringstream lines(source);
    std::string text;
    for (int i = 1; std::getline(lines, text); ++i) {
        if (i == line) {
            const auto first = text.find_first_not_of(" \t");
            return first == std::string::npos ? std::string() : text.substr(first);
        }
    }
    return {};
}

std::string where_text(const cpu::SourceLocation& at, const KernelContext& k) {
    const int line = cell_line_of(at);
    if (line == 0) return at.file.empty() ? "(no line information)" : at.str();
    std::string s = "line " + std::to_string(line);
    if (!k.cell_source.empty()) {
        const std::string text = line_text(k.cell_source, line);
        if (!text.empty()) s += ": `" + text + "`";
    }
    return s;
}

const char* access_verb(cpu::Access a) {
    switch (a) {
        case cpu::Access::read: return "read";
        case cpu::Access::write: return "write";
        case cpu::Access::atomic: return "atomic";
        case cpu::Access::none: break;
    }
    return "access";
}

const char* space_name(cpu::MemorySpace s) {
    switch (s) {
        case cpu::MemorySpace::global:
        case cpu::MemorySpace::generic: return "global memory";
        case cpu::MemorySpace::shared: return "shared memory";
        case cpu::MemorySpace::local: return "local memory (the thread's stack)";
        case cpu::MemorySpace::param: return "the kernel's parameters";
        case cpu::MemorySpace::constant: return "constant memory";
        case cpu::MemorySpace::none: break;
    }
    return "memory";
}

// A PTX variable name as the cell wrote it: a function's own (`_ZZ1kPfE4tile`, demangled
// `k(float*)::tile`) is `tile`; one at namespace scope keeps its namespaces.
std::string variable_name(const std::string& ptx_name) {
    const std::string d = demangled(ptx_name);
    const auto colons = d.rfind("::");
    if (ptx_name.rfind("_ZZ", 0) == 0 && colons != std::string::npos) return d.substr(colons + 2);
    return d;
}

// What a region is, in the cell's words: its name, and its elements where the cell says them.
struct Described {
    std::string name;          // "out", "tile"; "" for memory without one
    std::string what;          // "`out`", "a 16-byte block device malloc returned at line 4"
    std::size_t element = 0;   // bytes of one element; 0 when unknown
    std::string element_type;  // "const float"
};

// The element type and size of a __shared__ or __device__ variable, from its declaration.
void describe_variable(const std::string& name, const std::string& qualified, const KernelContext& k, Described& d) {
    if (k.cell_source.empty()) return;
    std::vector<compile::GlobalDecl> decls = compile::parse_shared_variables(k.cell_source);
    for (auto& g : compile::parse_globals(k.cell_source)) decls.push_back(std::move(g));
    for (const compile::GlobalDecl& g : decls) {
        if (g.key() != qualified && g.name != name) continue;
        const compile::ElementLayout layout = compile::element_layout(g.type);
        if (layout.components == 0) return;
        d.element = compile::scalar_size(layout.scalar) * static_cast<std::size_t>(layout.components);
        d.element_type = g.type;
        return;
    }
}

int line_in_cell(const cpu::SourceLocation& at) { return cell_line_of(at); }

Described describe(const cpu::Finding& f, const KernelContext& k) {
    const cpu::Region& r = f.region;
    Described d;
    if (r.kind == cpu::Region::Kind::heap_block) {
        d.what = "a " + std::to_string(r.size) + "-byte block device malloc returned";
        if (const int line = line_in_cell(r.allocated_at)) d.what += " at line " + std::to_string(line);
        return d;
    }
    if (r.kind == cpu::Region::Kind::variable) {
        d.name = variable_name(r.variable);
        d.what = "`" + d.name + "`";
        describe_variable(d.name, demangled(r.variable), k, d);
        return d;
    }
    const int parameter = r.parameter >= 0                                        ? r.parameter
                          : f.pointer.kind == cpu::PointerSource::Kind::parameter ? f.pointer.parameter
                                                                                  : -1;
    if (parameter >= 0 && k.decl != nullptr && static_cast<std::size_t>(parameter) < k.decl->params.size()) {
        const compile::Param& p = k.decl->params[static_cast<std::size_t>(parameter)];
        d.name = p.name.empty() ? "parameter " + std::to_string(parameter) : p.name;
        d.what = "`" + d.name + "`";
        if (p.kind == compile::ParamKind::pointer && p.pointer_depth == 1) {
            d.element = compile::scalar_size(p.scalar);
            d.element_type = p.pointee;
        }
    } else if (parameter >= 0) {
        d.what = "the array kernel parameter " + std::to_string(parameter) + " points to";
    } else {
        d.what = "an allocation no parameter of this launch points to";
    }
    return d;
}

// "(240 elements of const float, 960 bytes)"
std::string size_text(const Described& d, std::uint64_t bytes) {
    if (d.element == 0) return "(" + std::to_string(bytes) + " bytes)";
    return "(" + std::to_string(bytes / d.element) + " elements of " + d.element_type + ", " + std::to_string(bytes) +
           " bytes)";
}

// "a[240] is 0 bytes past the end of `a` (240 elements of float, 960 bytes)": where in (or
// beside) the region `offset` lies, with the element a named array has there.
std::string region_text(const cpu::Finding& f, const KernelContext& k, std::int64_t offset) {
    const cpu::Region& r = f.region;
    const Described d = describe(f, k);
    std::string where;
    if (offset < 0) {
        where = std::to_string(-offset) + " bytes before the start of " + d.what;
    } else if (static_cast<std::uint64_t>(offset) >= r.size) {
        where = std::to_string(static_cast<std::uint64_t>(offset) - r.size) + " bytes past the end of " + d.what;
    } else {
        where = "offset " + std::to_string(offset) + " in " + d.what;
    }
    if (d.element > 0 && offset >= 0 && !d.name.empty()) {
        where = d.name + "[" + std::to_string(static_cast<std::uint64_t>(offset) / d.element) + "] is " + where;
    }
    if (r.kind == cpu::Region::Kind::heap_block) return where;  // its size is in its description
    return where + " " + size_text(d, r.size);
}

// "in[0] of `in` (256 elements of float, 1024 bytes)", or "byte 12 of a 16-byte block ...".
std::string element_text(const cpu::Finding& f, const KernelContext& k) {
    const Described d = describe(f, k);
    const std::int64_t offset = f.region.offset;
    if (d.element > 0 && !d.name.empty() && offset >= 0) {
        return d.name + "[" + std::to_string(offset / static_cast<std::int64_t>(d.element)) + "] of " + d.what + " " +
               size_text(d, f.region.size);
    }
    std::string s = "byte " + std::to_string(offset) + " of " + d.what;
    return f.region.kind == cpu::Region::Kind::heap_block ? s : s + " " + size_text(d, f.region.size);
}

std::string region_text(const cpu::Finding& f, const KernelContext& k) { return region_text(f, k, f.region.offset); }

// A pointer the kernel's code took the address from, which points nowhere: "`x` is a null pointer".
std::string pointer_text(const cpu::Finding& f, const KernelContext& k) {
    const cpu::PointerSource& p = f.pointer;
    std::string name;
    std::size_t element = 0;
    if (p.kind == cpu::PointerSource::Kind::parameter) {
        if (k.decl != nullptr && static_cast<std::size_t>(p.parameter) < k.decl->params.size()) {
            const compile::Param& param = k.decl->params[static_cast<std::size_t>(p.parameter)];
            name = param.name.empty() ? "parameter " + std::to_string(p.parameter) : param.name;
            if (param.kind == compile::ParamKind::pointer && param.pointer_depth == 1)
                element = compile::scalar_size(param.scalar);
        } else {
            name = "kernel parameter " + std::to_string(p.parameter);
        }
    } else {
        name = variable_name(p.variable);
        // `__device__ float* table`: its elements are floats.
        if (!k.cell_source.empty()) {
            for (const compile::GlobalDecl& g : compile::parse_globals(k.cell_source)) {
                if ((g.key() != demangled(p.variable) && g.name != name) || g.type.empty() || g.type.back() != '*' ||
                    !g.extents.empty())
                    continue;
                const compile::ElementLayout pointee = compile::element_layout(g.type.substr(0, g.type.size() - 1));
                element = compile::scalar_size(pointee.scalar) * static_cast<std::size_t>(pointee.components);
            }
        }
    }
    std::ostringstream s;
    s << "`" << name << "` " << (p.value == 0 ? "is a null pointer" : "holds ");
    if (p.value != 0) {
        s << "0x" << std::hex << p.value << std::dec
          << (p.allocated ? ", memory that is not an array this launch can reach"
                          : ", an address no allocation covers");
    }
    if (element > 0 && f.address >= p.value) {
        s << " (the access is " << name << "[" << (f.address - p.value) / element << "], address 0x" << std::hex
          << f.address << std::dec << ")";
    } else {
        s << " (the access is at address 0x" << std::hex << f.address << std::dec << ")";
    }
    return s.str();
}

// `what` (with its leading space or comma) and the cell line of `at`; "" when it has none.
std::string location_line(const char* what, const cpu::SourceLocation& at) {
    const int line = line_in_cell(at);
    return line > 0 ? std::string(what) + " at line " + std::to_string(line) : std::string();
}

// The element of a global race: "`count[0]`" when a parameter of known element type points into
// it, else the variable or allocation and the byte offset.
std::string race_element_text(const cpu::Finding& f, const KernelContext& k) {
    const cpu::Region& r = f.region;
    if (r.kind == cpu::Region::Kind::variable) {
        return "`" + demangled(r.variable) + "`" + (r.offset != 0 ? " (byte " + std::to_string(r.offset) + ")" : "");
    }
    if (r.kind == cpu::Region::Kind::allocation && r.parameter >= 0 && k.decl != nullptr &&
        static_cast<std::size_t>(r.parameter) < k.decl->params.size()) {
        const compile::Param& p = k.decl->params[static_cast<std::size_t>(r.parameter)];
        const std::string name = p.name.empty() ? "parameter " + std::to_string(r.parameter) : p.name;
        const std::size_t element =
            p.kind == compile::ParamKind::pointer && p.pointer_depth == 1 ? compile::scalar_size(p.scalar) : 0;
        if (element > 0)
            return "`" + name + "[" + std::to_string(static_cast<std::uint64_t>(r.offset) / element) + "]`";
        return "byte " + std::to_string(r.offset) + " of `" + name + "`";
    }
    return "global memory at 0x" + [&] {
        std::ostringstream hex;
        hex << std::hex << f.address;
        return hex.str();
    }();
}

const char* present(cpu::Access a) {
    switch (a) {
        case cpu::Access::read: return "reads";
        case cpu::Access::write: return "writes";
        case cpu::Access::atomic: return "atomically updates";
        case cpu::Access::none: break;
    }
    return "accesses";
}

std::string threads(const cpu::Finding& f) {
    std::string s = "thread " + f.thread.str() + " of block " + f.block.str();
    if (f.lanes > 1) s += " (and " + std::to_string(f.lanes - 1) + " more of its warp)";
    return s;
}

}  // namespace

std::string kernel_check_message(const cpu::Failure& failure, const KernelContext& k) {
    const cpu::Finding& f = failure.finding;
    const std::string kernel = "kernel `" + (k.decl != nullptr ? k.decl->name : demangled(failure.kernel)) + "`";
    const std::string at = where_text(f.where, k);
    const bool in_heap = f.region.kind == cpu::Region::Kind::heap_block;
    const cpu::WhereText cell_where = [&](const cpu::SourceLocation& l) { return where_text(l, k); };
    std::ostringstream s;
    switch (f.kind) {
        case cpu::FindingKind::out_of_bounds:
        case cpu::FindingKind::use_after_free:
        case cpu::FindingKind::misaligned: {
            const char* what = f.kind == cpu::FindingKind::misaligned       ? "misaligned"
                               : f.kind == cpu::FindingKind::use_after_free ? "use-after-free"
                                                                            : "out-of-bounds";
            s << what << " " << access_verb(f.access) << " of " << f.size << " bytes in " << space_name(f.space)
              << (in_heap ? " (the device heap)" : "") << " by " << threads(f) << ", " << kernel << " at " << at
              << "\n  ";
            if (f.kind == cpu::FindingKind::misaligned) {
                s << "the address is not a multiple of " << f.size << " bytes";
                if (f.region.kind != cpu::Region::Kind::none) s << ": " << region_text(f, k);
            } else if (f.kind == cpu::FindingKind::use_after_free) {
                if (in_heap) {
                    s << "the memory was freed: " << element_text(f, k)
                      << location_line(", freed by free()", f.region.freed_at);
                } else {
                    s << "the memory was freed: " << region_text(f, k);
                }
            } else if (f.region.kind == cpu::Region::Kind::none &&
                       f.pointer.kind != cpu::PointerSource::Kind::unknown) {
                s << pointer_text(f, k);
            } else {
                s << region_text(f, k);
            }
            if (!f.detail.empty() && f.region.kind != cpu::Region::Kind::none && !in_heap) s << "; " << f.detail;
            break;
        }
        case cpu::FindingKind::uninitialised_read: {
            s << "uninitialised " << access_verb(f.access) << " of " << f.size << " bytes in " << space_name(f.space)
              << " by " << threads(f) << ", " << kernel << " at " << at << "\n  " << element_text(f, k)
              << " was never written: ";
            const char* reader = f.access == cpu::Access::atomic ? "atomic" : "read";
            if (f.space == cpu::MemorySpace::shared) {
                s << "no thread of block " << f.block.str() << " wrote it in this launch before this " << reader
                  << " (shared memory starts each block undefined)";
            } else {
                s << "the memory came from cuMemAlloc (xcuda.empty()), and no copy, memset or kernel wrote it before "
                     "this "
                  << reader;
            }
            break;
        }
        case cpu::FindingKind::invalid_free: {
            const bool twice = f.detail == "double free";
            s << (twice ? "device-side double free" : "invalid pointer to device-side free") << " by " << threads(f)
              << ", " << kernel << " at " << at << "\n  ";
            if (twice) {
                s << "free() of " << describe(f, k).what << ", which was freed already"
                  << location_line(" by free()", f.region.freed_at);
            } else if (in_heap) {
                s << "the pointer is " << f.region.offset << " bytes into " << describe(f, k).what
                  << ": free() takes the pointer malloc returned";
            } else if (f.region.kind != cpu::Region::Kind::none) {
                s << "free() takes only what device malloc returned; this pointer is " << element_text(f, k);
            } else {
                s << "free() of 0x" << std::hex << f.address << std::dec << ", a pointer device malloc did not return";
            }
            break;
        }
        case cpu::FindingKind::shared_race:
            s << "race on shared memory in " << kernel << ": " << threads(f) << " " << access_verb(f.access) << "s "
              << (f.region.variable.empty() ? "shared memory" : "`" + variable_name(f.region.variable) + "`") << " at "
              << at << "\n  after thread " << f.other_thread.str() << " "
              << (f.other_access == cpu::Access::write ? "wrote" : "read") << " it at " << where_text(f.other_where, k)
              << ", " << cpu::unordered_text(f, cell_where);
            break;
        case cpu::FindingKind::global_race:
            s << "race on global memory in " << kernel << ": thread " << f.thread.str() << " of block " << f.block.str()
              << " " << present(f.access) << " " << race_element_text(f, k) << " at " << at << "\n  and thread "
              << f.other_thread.str() << " of block " << f.other_block.str() << " " << present(f.other_access)
              << " it at " << where_text(f.other_where, k) << ":\n  " << cpu::unordered_text(f, cell_where);
            break;
        case cpu::FindingKind::divergent_barrier:
            s << "divergent barrier in " << kernel << " at " << at << ":\n  "
              << (f.divergence != cpu::Divergence::none ? "Barrier error detected. " : "")
              << cpu::divergence_text(f, cell_where);
            break;
        case cpu::FindingKind::collective_absent_lanes:
            s << "warp collective with absent threads in " << kernel << " at " << at << ": " << f.detail;
            if (!f.absent.empty()) s << " (" << f.absent << " are at " << where_text(f.other_where, k) << ")";
            break;
        case cpu::FindingKind::assertion:
            s << "device assertion failed in " << kernel << " at " << at << ": " << f.detail;
            break;
        case cpu::FindingKind::trap:
            s << "trap (__trap()) in " << kernel << " by " << threads(f) << " at " << at;
            break;
        case cpu::FindingKind::unsupported:
            s << kernel << " uses `" << f.instruction << "` at " << at << ", which the CPU device does not run ("
              << f.detail << "); run it on a GPU";
            break;
        case cpu::FindingKind::invalid_operation:
            s << "invalid operation in " << kernel << " at " << at << ": " << f.detail;
            break;
    }
    if (!failure.launched_from.empty())
        s << "\n  (in a grid launched from the device by kernel `" << demangled(failure.launched_from) << "`)";
    s << "\n  (found by the CPU device's checks; the device stays usable. xcuda.cpu_checks(False) turns them off)";
    return s.str();
}

int kernel_check_line(const cpu::Failure& failure) { return cell_line_of(failure.finding.where); }
int kernel_check_other_line(const cpu::Failure& failure) { return cell_line_of(failure.finding.other_where); }

}  // namespace xcuda::magics
