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

std::string ptx_where(const SourceLocation& at) { return at.str(); }

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

std::string divergence_text(const Finding& f, const WhereText& where) {
    const std::string block = " of block " + f.block.str();
    const std::string other = f.other_where.file.empty() ? std::string() : where(f.other_where);
    switch (f.divergence) {
        case Divergence::warp:
            if (f.absent_at_barrier) {
                return "Divergent thread(s) in warp: " + f.waiting + block + " wait at this barrier while " + f.absent +
                       " of their warp wait at the one at " + other;
            }
            return "Divergent thread(s) in warp: " + f.waiting + block + " wait at this barrier; " + f.absent +
                   " of their warp did not arrive with them" +
                   (other.empty() ? "" : " (they went on to " + other + ")");
        case Divergence::block:
            if (f.absent_at_barrier) {
                return "Divergent thread(s) in block: " + f.waiting + block + " wait at this barrier while " +
                       f.absent + " wait at the one at " + other;
            }
            return "Divergent thread(s) in block: " + f.waiting + block + " wait at this barrier, which " + f.absent +
                   " never reach";
        case Divergence::none: break;
    }
    return f.detail;
}

std::string unordered_text(const Finding& f, const WhereText& where) {
    const bool same_block =
        f.kind != FindingKind::global_race ||
        (f.other_block.x == f.block.x && f.other_block.y == f.block.y && f.other_block.z == f.block.z);
    std::string s;
    if (!same_block) {
        s = "they are in different blocks, and no release/acquire pair orders them (__syncthreads() orders only the "
            "threads of one block; a flag written after __threadfence() and read with an atomic or volatile load, "
            "or a grid sync, would)";
    } else {
        s = "with no __syncthreads() (or __syncwarp() within a warp) between them";
    }
    if (!f.skipped_barrier.file.empty()) {
        s += "; thread " + f.other_thread.str() + " waits at the barrier at " + where(f.skipped_barrier) +
             ", which thread " + f.thread.str() + " did not reach";
    }
    return s;
}

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
              << f.other_where.str() << ", " << unordered_text(f, ptx_where);
            break;
        case FindingKind::global_race:
            s << "Race on __global__ memory: " << access_text(f.access) << " of size " << f.size << " bytes at 0x"
              << std::hex << f.address << std::dec << " (" << region_text(f) << ") by thread " << f.thread.str()
              << " in block " << f.block.str() << " conflicts with a " << access_text(f.other_access) << " by thread "
              << f.other_thread.str() << " in block " << f.other_block.str() << " at " << f.other_where.str() << ": "
              << unordered_text(f, ptx_where);
            break;
        case FindingKind::divergent_barrier:
            s << (f.divergence == Divergence::none ? "Divergent barrier: " : "Barrier error detected. ")
              << divergence_text(f, ptx_where);
            break;
        case FindingKind::collective_absent_lanes:
            s << "Warp collective with absent lanes: " << f.detail;
            if (!f.absent.empty()) s << " (" << f.absent << " are at " << f.other_where.str() << ")";
            break;
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
