#include <xcuda/cpu/finding.hpp>

#include <sstream>

namespace xcuda::cpu {

std::string Dim3::str() const {
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

std::string SourceLocation::str() const {
    if (file.empty()) return "<no line information>";
    std::string s = file + ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
    return s;
}

namespace {

const char* access_text(Access a) {
    switch (a) {
        case Access::read: return "read";
        case Access::write: return "write";
        case Access::atomic: return "atomic";
        case Access::none: break;
    }
    return "access";
}

const char* space_text(MemorySpace s) {
    switch (s) {
        case MemorySpace::global: return "__global__";
        case MemorySpace::shared: return "__shared__";
        case MemorySpace::local: return "__local__";
        case MemorySpace::param: return "parameter";
        case MemorySpace::constant: return "__constant__";
        case MemorySpace::generic: return "generic";
        case MemorySpace::none: break;
    }
    return "";
}

std::string region_text(const Finding& f) {
    const Region& r = f.region;
    if (r.kind == Region::Kind::none) {
        if (f.pointer.kind == PointerSource::Kind::unknown)
            return f.detail.empty() ? "no allocation near it" : f.detail;
        std::ostringstream s;
        s << (f.pointer.kind == PointerSource::Kind::parameter
                  ? "kernel parameter " + std::to_string(f.pointer.parameter)
                  : "variable " + f.pointer.variable);
        if (f.pointer.value == 0) {
            s << " is a null pointer";
        } else {
            s << " holds 0x" << std::hex << f.pointer.value << std::dec << ", an address no allocation covers";
        }
        return s.str();
    }
    std::string what = r.kind == Region::Kind::heap_block ? std::string("a device-heap block")
                       : r.kind == Region::Kind::variable ? "variable " + r.variable
                       : r.parameter >= 0
                           ? "the allocation kernel parameter " + std::to_string(r.parameter) + " points into"
                           : "an allocation";
    what += " (" + std::to_string(r.size) + " bytes at 0x";
    std::ostringstream hex;
    hex << std::hex << r.base;
    what += hex.str() + ")";
    if (r.offset < 0) return std::to_string(-r.offset) + " bytes before the start of " + what;
    const auto off = static_cast<std::uint64_t>(r.offset);
    if (off >= r.size) return std::to_string(off - r.size) + " bytes past the end of " + what;
    return "offset " + std::to_string(off) + " into " + what;
}

}  // namespace

std::string Failure::report() const {
    const Finding& f = finding;
    std::ostringstream s;
    switch (f.kind) {
        case FindingKind::out_of_bounds:
        case FindingKind::misaligned:
        case FindingKind::use_after_free: {
            const char* what = f.kind == FindingKind::misaligned       ? "Misaligned"
                               : f.kind == FindingKind::use_after_free ? "Use-after-free"
                                                                       : "Invalid";
            s << what << " " << space_text(f.space) << " " << access_text(f.access) << " of size " << f.size
              << " bytes at 0x" << std::hex << f.address << std::dec << ": " << region_text(f);
            break;
        }
        case FindingKind::shared_race:
            s << "Race on __shared__ memory: " << access_text(f.access) << " of size " << f.size << " bytes"
              << (f.region.variable.empty() ? "" : " in " + f.region.variable) << " by thread " << f.thread.str()
              << " conflicts with a " << access_text(f.other_access) << " by thread " << f.other_thread.str() << " at "
              << f.other_where.str() << " with no barrier between";
            break;
        case FindingKind::divergent_barrier: s << "Divergent barrier: " << f.detail; break;
        case FindingKind::collective_absent_lanes: s << "Warp collective with absent lanes: " << f.detail; break;
        case FindingKind::assertion: s << "Device assertion failed: " << f.detail; break;
        case FindingKind::trap: s << "Trap (__trap() or a trap instruction)"; break;
        case FindingKind::unsupported:
            s << "Unsupported instruction `" << f.instruction << "`: the CPU device does not run it"
              << (f.detail.empty() ? "" : " (" + f.detail + ")") << "; run this kernel on a GPU";
            break;
        case FindingKind::invalid_operation: s << "Invalid operation: " << f.detail; break;
        case FindingKind::uninitialised_read:
            s << "Uninitialized " << space_text(f.space) << " memory " << access_text(f.access) << " of size " << f.size
              << " bytes at 0x" << std::hex << f.address << std::dec << ": " << region_text(f) << " (" << f.detail
              << ")";
            break;
        case FindingKind::invalid_free:
            s << "Malloc/Free error: " << f.detail << ": free(0x" << std::hex << f.address << std::dec << ")"
              << (f.region.kind == Region::Kind::none ? "" : ", " + region_text(f));
            break;
    }
    s << "\n    at " << f.where.str() << " in " << f.function;
    if (!f.instruction.empty() && f.kind != FindingKind::unsupported) s << ": " << f.instruction;
    s << "\n    by thread " << f.thread.str() << " in block " << f.block.str();
    if (f.lanes > 1) s << " (and " << (f.lanes - 1) << " more threads of its warp)";
    return s.str();
}

}  // namespace xcuda::cpu
