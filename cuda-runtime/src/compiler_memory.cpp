// NVRTC allocates and frees tens of MiB in every compile. Under glibc's dynamic thresholds
// its large blocks are mapped and unmapped, and the heap's free top trimmed back to the kernel,
// every time, so each compile pays again for fresh zeroed pages (page faults, unmapping): about
// 2 ms of a 19 ms cold saxpy compile on the 2-core CPU machine (perf; 16.9 vs 18.2-19.6 ms of
// CPU per compile with these thresholds, medians of 41). The values stay inside the range
// glibc's own dynamic thresholds move through in any long-running process (mmap up to 32 MiB,
// trim twice the mmap threshold), so the rest of the process keeps memory as it could anyway:
// at most 32 MiB of free heap top stays mapped.
#include "compiler_memory.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace xcuda::rt::detail {
namespace {

#ifdef __GLIBC__
bool user_tuned_malloc() {
    if (const char* tunables = std::getenv("GLIBC_TUNABLES"); tunables && std::strstr(tunables, "glibc.malloc.")) {
        return true;
    }
    for (const char* name :
         {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"}) {
        if (std::getenv(name) != nullptr) return true;
    }
    return false;
}
#endif

}  // namespace

void keep_compiler_memory() {
#ifdef __GLIBC__
    static std::once_flag once;
    std::call_once(once, [] {
        if (user_tuned_malloc()) return;
        mallopt(M_MMAP_THRESHOLD, 8 << 20);
        mallopt(M_TRIM_THRESHOLD, 32 << 20);
    });
#endif
}

}  // namespace xcuda::rt::detail
