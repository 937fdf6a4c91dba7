// The functions a kernel calls that the CUDA driver provides: printf (vprintf), assert
// (__assertfail) and the device heap (malloc, free); the device runtime's are device_runtime.cpp's.
#include "exec/run/device_heap.hpp"
#include "exec/run/call_slots.hpp"
#include "exec/run/device_runtime.hpp"
#include "exec/global_race_notes.hpp"
#include "exec/memory_access.hpp"
#include "exec/memory_checks.hpp"
#include "exec/run/cta_scheduler.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U64 = std::uint64_t;

// A NUL-terminated string at a generic address, read through the checks.
bool read_string(Exec& x, U64 address, unsigned lane, std::string& out, std::size_t limit = 1 << 16) {
    out.clear();
    if (address == 0) {
        out = "(null)";
        return true;
    }
    for (std::size_t i = 0; i < limit; ++i) {
        const std::byte* p = generic_address(x, address + i, 1, lane, Access::read);
        if (p == nullptr) return false;
        const char c = static_cast<char>(*p);
        if (c == '\0') return true;
        out.push_back(c);
    }
    return true;
}

// Device printf: its arguments follow the format in a buffer, each at its size's alignment
// (floats promoted to double, as for C's variadic calls).
bool format_printf(Exec& x, U64 format_address, U64 args, unsigned lane, std::string& out, int& count) {
    std::string format;
    if (!read_string(x, format_address, lane, format)) return false;
    U64 offset = 0;
    count = 0;
    auto take = [&](unsigned size, void* v) {
        offset = (offset + size - 1) / size * size;
        if (args == 0) return false;
        const std::byte* p = generic_address(x, args + offset, size, lane, Access::read);
        if (p == nullptr) return false;
        std::memcpy(v, p, size);
        offset += size;
        ++count;
        return true;
    };
    char buffer[512];
    std::size_t i = 0, j = 0;
    // A conversion without its argument: the GPU prints it as written; a bad pointer is a finding.
    auto missing = [&] {
        if (!x.faulted) out += format.substr(i, j - i + 1);
        return !x.faulted;
    };
    for (i = 0; i < format.size(); ++i) {
        if (format[i] != '%') {
            out.push_back(format[i]);
            continue;
        }
        if (i + 1 < format.size() && format[i + 1] == '%') {
            out.push_back('%');
            ++i;
            continue;
        }
        // %[flags][width][.precision][length]conversion
        j = i + 1;
        while (j < format.size() && std::strchr("-+ #0", format[j]) != nullptr) ++j;
        while (j < format.size() && (std::isdigit(static_cast<unsigned char>(format[j])) != 0)) ++j;
        if (j < format.size() && format[j] == '.') {
            ++j;
            while (j < format.size() && (std::isdigit(static_cast<unsigned char>(format[j])) != 0)) ++j;
        }
        std::string length;
        while (j < format.size() && std::strchr("hlLzjt", format[j]) != nullptr) length.push_back(format[j++]);
        if (j >= format.size()) {
            out += format.substr(i);
            break;
        }
        const char conv = format[j];
        std::string spec = format.substr(i, j - i - length.size());  // without the length modifier
        const bool wide = length == "l" || length == "ll" || length == "z" || length == "j" || length == "t";
        int n = 0;
        switch (conv) {
            case 'd':
            case 'i': {
                if (wide) {
                    std::int64_t v;
                    if (!take(8, &v)) return missing();
                    n = std::snprintf(buffer, sizeof buffer, (spec + PRId64).c_str(), v);
                } else {
                    std::int32_t v;
                    if (!take(4, &v)) return missing();
                    if (length == "h") v = static_cast<std::int16_t>(v);
                    if (length == "hh") v = static_cast<std::int8_t>(v);
                    n = std::snprintf(buffer, sizeof buffer, (spec + "d").c_str(), v);
                }
                break;
            }
            case 'u':
            case 'x':
            case 'X':
            case 'o': {
                const char c[2] = {conv, '\0'};
                if (wide) {
                    U64 v;
                    if (!take(8, &v)) return missing();
                    n = std::snprintf(buffer, sizeof buffer, (spec + "ll" + c).c_str(),
                                      static_cast<unsigned long long>(v));
                } else {
                    U32 v;
                    if (!take(4, &v)) return missing();
                    if (length == "h") v = static_cast<std::uint16_t>(v);
                    if (length == "hh") v = static_cast<std::uint8_t>(v);
                    n = std::snprintf(buffer, sizeof buffer, (spec + c).c_str(), v);
                }
                break;
            }
            case 'c': {
                std::int32_t v;
                if (!take(4, &v)) return missing();
                n = std::snprintf(buffer, sizeof buffer, (spec + "c").c_str(), v);
                break;
            }
            case 'f':
            case 'F':
            case 'e':
            case 'E':
            case 'g':
            case 'G':
            case 'a':
            case 'A': {
                double v;
                if (!take(8, &v)) return missing();
                const char c[2] = {conv, '\0'};
                n = std::snprintf(buffer, sizeof buffer, (spec + c).c_str(), v);
                break;
            }
            case 's': {
                U64 v;
                if (!take(8, &v)) return missing();
                std::string s;
                if (!read_string(x, v, lane, s)) return false;
                n = std::snprintf(buffer, sizeof buffer, (spec + "s").c_str(), s.c_str());
                if (n >= static_cast<int>(sizeof buffer)) {  // a long string: no truncation
                    out += s;
                    n = 0;
                }
                break;
            }
            case 'p': {
                U64 v;
                if (!take(8, &v)) return missing();
                n = std::snprintf(buffer, sizeof buffer, "0x%" PRIx64, v);
                break;
            }
            default:
                // Not a conversion device printf knows: printed as written, as the GPU does.
                out += format.substr(i, j - i + 1);
                i = j;
                continue;
        }
        if (n > 0) out.append(buffer, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buffer - 1));
        i = j;
    }
    return true;
}

void device_printf(Exec& x, const CallSite& call, U32 mask) {
    std::string records;
    while (mask != 0) {
        const unsigned lane = first_lane(mask);
        mask &= mask - 1;
        std::string line;
        int count = 0;
        if (!format_printf(x, call_argument<U64>(x, call, 0, lane), call_argument<U64>(x, call, 1, lane), lane, line,
                           count)) {
            return;  // a bad pointer: the finding is recorded
        }
        call_result<std::int32_t>(x, call, lane, count);
        records += line;
    }
    LaunchState& L = *x.launch;
    std::lock_guard<std::mutex> lock(L.printf_mutex);
    if (L.printf_output.size() + records.size() > L.options.printf_fifo_bytes) {
        L.printf_dropped += records.size();
        return;
    }
    L.printf_output += records;
}

// __assertfail(message, file, line, function, char size): the GPU prints "file:line: function:
// block: [x,y,z], thread: [x,y,z] Assertion `message` failed." and traps; here it is the finding.
void assert_fail(Exec& x, const CallSite& call, U32 mask) {
    const unsigned lane = first_lane(mask);
    std::string message, file, function;
    if (!read_string(x, call_argument<U64>(x, call, 0, lane), lane, message) ||
        !read_string(x, call_argument<U64>(x, call, 1, lane), lane, file) ||
        !read_string(x, call_argument<U64>(x, call, 3, lane), lane, function)) {
        return;
    }
    const U32 line = call_argument<U32>(x, call, 2, lane);
    const Dim3 t = x.thread_of(lane);
    const Dim3& b = x.cta->ctaid;
    Finding f;
    f.kind = FindingKind::assertion;
    f.detail = file + ":" + std::to_string(line) + ": " + function + ": block: [" + std::to_string(b.x) + "," +
               std::to_string(b.y) + "," + std::to_string(b.z) + "], thread: [" + std::to_string(t.x) + "," +
               std::to_string(t.y) + "," + std::to_string(t.z) + "] Assertion `" + message + "` failed.";
    x.fail(std::move(f), lane, static_cast<U32>(__builtin_popcount(mask)), CUDA_ERROR_ASSERT);
}

void device_malloc(Exec& x, const CallSite& call, U32 mask) {
    HeapBlocks& heap = DeviceHeap::instance().blocks();
    const SourceLocation at = call_location(x);
    for_lanes(mask, [&](unsigned lane) {
        call_result<U64>(x, call, lane, heap.allocate(call_argument<U64>(x, call, 0, lane), at));
    });
}

// free() of a pointer malloc did not return, or of a block freed already: what compute-sanitizer
// calls a Malloc/Free error. The finding says which, and the block or allocation concerned.
void invalid_free(Exec& x, U64 p, unsigned lane, HeapBlocks::Freed why, const HeapBlock& block) {
    Finding f;
    f.kind = FindingKind::invalid_free;
    f.space = MemorySpace::global;
    f.address = p;
    if (why == HeapBlocks::Freed::twice || why == HeapBlocks::Freed::inside_block) {
        f.region.kind = Region::Kind::heap_block;
        f.region.base = block.base;
        f.region.size = block.size;
        f.region.offset = static_cast<std::int64_t>(p - block.base);
        f.region.allocated_at = block.allocated_at;
        f.region.freed_at = block.freed_at;
        f.detail = why == HeapBlocks::Freed::twice ? "double free" : "a pointer inside a block, not its start";
    } else {
        const AllocationTable& table = *x.launch->table;
        const Allocation* a = table.containing(p);
        if (a != nullptr && a->kind != Allocation::Kind::device_heap) {
            f.region = region_of(x, *a, p);
        }
        f.detail = "not a pointer device malloc returned";
    }
    x.fail(std::move(f), lane, 1, CUDA_ERROR_LAUNCH_FAILED);
}

void device_free(Exec& x, const CallSite& call, U32 mask) {
    HeapBlocks& heap = DeviceHeap::instance().blocks();
    const SourceLocation at = call_location(x);
    for_lanes(mask, [&](unsigned lane) {
        if (x.faulted) return;
        const U64 p = call_argument<U64>(x, call, 0, lane);
        if (p == 0) return;  // free(NULL) does nothing
        HeapBlock block;
        const HeapBlocks::Freed why = heap.release(p, at, block);
        if (why != HeapBlocks::Freed::freed) invalid_free(x, p, lane, why, block);
    });
}

}  // namespace

void run_builtin(Exec& x, const CallSite& call, U32 mask) {
    switch (call.builtin) {
        case CallSite::Builtin::vprintf: device_printf(x, call, mask); return;
        case CallSite::Builtin::assertfail: assert_fail(x, call, mask); return;
        case CallSite::Builtin::malloc:
            device_malloc(x, call, mask);
            note_heap_malloc(x);  // after the block is taken: it sees the free that gave it back
            return;
        case CallSite::Builtin::free:
            note_heap_free(x);  // before the block goes back
            device_free(x, call, mask);
            return;
        case CallSite::Builtin::device_runtime: x.launch->device_runtime->call(x, call, mask); return;
        case CallSite::Builtin::none: return;
    }
}

}  // namespace xcuda::cpu
