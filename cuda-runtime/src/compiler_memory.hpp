// Keeps the memory NVRTC allocates and frees on every compile mapped between compiles.
#pragma once

namespace xcuda::rt::detail {

// Once per process, before the first compile: fixed glibc malloc thresholds (mmap 8 MiB, trim
// 32 MiB) unless the user set malloc's own (GLIBC_TUNABLES, MALLOC_*_ variables). Nothing
// elsewhere than glibc.
void keep_compiler_memory();

}  // namespace xcuda::rt::detail
