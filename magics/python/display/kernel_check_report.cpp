#include "display/kernel_check_report.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>

namespace xcuda::magics {
namespace {

std::string demangled(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : name;
}

}  // namespace

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

// "`out` (1000 elements of int, 4000 bytes)" and the element the offset is in.
std::string region_text(const cpu::Finding& f, const KernelContext& k) {
    const cpu::Region& r = f.region;
    if (r.kind == cpu::Region::Kind::none) {
        return f.detail.empty() ? "it is in no allocation of this device" : f.detail;
    }
    std::string what;
    std::size_t element = 0;
    std::string element_type;
    if (r.kind == cpu::Region::Kind::variable) {
        what = "`" + demangled(r.variable) + "`";
    } else if (r.parameter >= 0 && k.decl != nullptr && static_cast<std::size_t>(r.parameter) < k.decl->params.size()) {
        const compile::Param& p = k.decl->params[static_cast<std::size_t>(r.parameter)];
        what = "`" + (p.name.empty() ? "parameter " + std::to_string(r.parameter) : p.name) + "`";
        if (p.kind == compile::ParamKind::pointer && p.pointer_depth == 1) {
            element = compile::scalar_size(p.scalar);
            element_type = p.pointee;
        }
    } else if (r.parameter >= 0) {
        what = "the array kernel parameter " + std::to_string(r.parameter) + " points to";
    } else {
        what = "an allocation no parameter of this launch points to";
    }
    std::string size = std::to_string(r.size) + " bytes";
    if (element > 0) size = std::to_string(r.size / element) + " elements of " + element_type + ", " + size;
    std::string where;
    if (r.offset < 0) {
        where = std::to_string(-r.offset) + " bytes before the start of " + what;
    } else if (static_cast<std::uint64_t>(r.offset) >= r.size) {
        where = std::to_string(static_cast<std::uint64_t>(r.offset) - r.size) + " bytes past the end of " + what;
    } else {
        where = "offset " + std::to_string(r.offset) + " in " + what;
    }
    if (element > 0 && r.offset >= 0) {
        const std::string name = what.substr(1, what.size() - 2);
        where = name + "[" + std::to_string(static_cast<std::uint64_t>(r.offset) / element) + "] is " + where;
    }
    return where + " (" + size + ")";
}

// The element of a global race: "`count[0]`" when a parameter of known element type points into
// it, else the variable or allocation and the byte offset.
std::string element_text(const cpu::Finding& f, const KernelContext& k) {
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
              << " by " << threads(f) << ", " << kernel << " at " << at << "\n  ";
            if (f.kind == cpu::FindingKind::misaligned) {
                s << "the address is not a multiple of " << f.size << " bytes";
                if (f.region.kind != cpu::Region::Kind::none) s << ": " << region_text(f, k);
            } else if (f.kind == cpu::FindingKind::use_after_free) {
                s << "the memory was freed: " << region_text(f, k);
            } else {
                s << region_text(f, k);
            }
            if (!f.detail.empty() && f.region.kind != cpu::Region::Kind::none) s << "; " << f.detail;
            break;
        }
        case cpu::FindingKind::shared_race:
            s << "race on shared memory in " << kernel << ": " << threads(f) << " " << access_verb(f.access) << "s "
              << (f.region.variable.empty() ? "shared memory" : "`" + demangled(f.region.variable) + "`") << " at "
              << at << "\n  after thread " << f.other_thread.str() << " "
              << (f.other_access == cpu::Access::write ? "wrote" : "read") << " it at " << where_text(f.other_where, k)
              << ", " << cpu::unordered_text(f, cell_where);
            break;
        case cpu::FindingKind::global_race:
            s << "race on global memory in " << kernel << ": thread " << f.thread.str() << " of block " << f.block.str()
              << " " << present(f.access) << " " << element_text(f, k) << " at " << at << "\n  and thread "
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
    s << "\n  (found by the CPU device's checks; the device stays usable. xcuda.cpu_checks(False) turns them off)";
    return s.str();
}

int kernel_check_line(const cpu::Failure& failure) { return cell_line_of(failure.finding.where); }
int kernel_check_other_line(const cpu::Failure& failure) { return cell_line_of(failure.finding.other_where); }

}  // namespace xcuda::magics
