"""What CUDA C++ gives a %%cuda cell without a declaration: the built-in variables, intrinsics,
atomics, math functions, vector types and qualifiers that completion offers and inspection
describes. One table, written once as data; the descriptions are ours, short on purpose (a
tooltip, not the Programming Guide).

Each row: name, kind, signature, description, minimum architecture ("" when any GPU xcuda
targets has it). The kind is JupyterLab's completion type, from which it draws the icon:
"variable" (built-in variables), "function", "class" (vector types), "keyword" (qualifiers).
"""

from typing import NamedTuple


class Builtin(NamedTuple):
    name: str
    kind: str
    signature: str
    description: str
    arch: str = ""


_V, _F, _C, _K = "variable", "function", "class", "keyword"

_ROWS = [
    # Built-in variables
    ("threadIdx", _V, "uint3 threadIdx", "This thread's index inside its block (.x, .y, .z)."),
    ("blockIdx", _V, "uint3 blockIdx", "This block's index inside the grid (.x, .y, .z)."),
    ("blockDim", _V, "dim3 blockDim", "The block's shape in threads (.x, .y, .z)."),
    ("gridDim", _V, "dim3 gridDim", "The grid's shape in blocks (.x, .y, .z)."),
    ("warpSize", _V, "int warpSize", "Threads per warp: 32 on every NVIDIA GPU so far."),
    # Qualifiers and specifiers
    ("__global__", _K, "__global__ void f(...)", "A kernel: runs on the device, launched from the host."),
    ("__device__", _K, "__device__", "A function callable on the device, or a variable in global memory."),
    ("__host__", _K, "__host__", "A function compiled for the host (with __device__: for both)."),
    ("__shared__", _K, "__shared__ T name[N]", "A variable in the block's on-chip shared memory, one copy per block."),
    ("__constant__", _K, "__constant__ T name", "A read-only (from kernels) variable in cached constant memory."),
    ("__managed__", _K, "__managed__ T name", "A device variable also addressable from the host (unified memory)."),
    ("__restrict__", _K, "T* __restrict__ p", "Promises the pointer is the only way to reach its data, so loads may be cached and reordered."),
    ("__forceinline__", _K, "__forceinline__", "Asks the compiler to always inline the function."),
    ("__noinline__", _K, "__noinline__", "Asks the compiler never to inline the function."),
    ("__launch_bounds__", _K, "__launch_bounds__(maxThreads, minBlocks)", "Tells the compiler the largest block it will launch, so it can budget registers."),
    ('extern "C"', _K, 'extern "C" __global__ void f(...)', "Keeps the symbol unmangled, so the kernel is found by its plain name."),
    # Synchronization and fences
    ("__syncthreads", _F, "void __syncthreads()", "Waits until every thread of the block arrives; also orders their shared and global memory accesses."),
    ("__syncthreads_count", _F, "int __syncthreads_count(int predicate)", "A block barrier that returns how many threads passed a non-zero predicate."),
    ("__syncthreads_and", _F, "int __syncthreads_and(int predicate)", "A block barrier that returns non-zero when the predicate held for all threads."),
    ("__syncthreads_or", _F, "int __syncthreads_or(int predicate)", "A block barrier that returns non-zero when the predicate held for any thread."),
    ("__syncwarp", _F, "void __syncwarp(unsigned mask = 0xffffffff)", "Waits for the warp's threads named in mask; orders their memory accesses.", "sm_70"),
    ("__threadfence", _F, "void __threadfence()", "Makes this thread's earlier writes visible device-wide before its later ones."),
    ("__threadfence_block", _F, "void __threadfence_block()", "Orders this thread's writes as seen by its own block."),
    ("__threadfence_system", _F, "void __threadfence_system()", "Orders this thread's writes as seen by the host and peer GPUs too."),
    ("__nanosleep", _F, "void __nanosleep(unsigned ns)", "Suspends the thread for roughly ns nanoseconds (a back-off in spin loops).", "sm_70"),
    # Warp intrinsics
    ("__shfl_sync", _F, "T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize)", "Reads var from lane srcLane of the warp (or of each width-wide segment).", "sm_30"),
    ("__shfl_up_sync", _F, "T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize)", "Reads var from the lane delta below this one; lower lanes keep their own.", "sm_30"),
    ("__shfl_down_sync", _F, "T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize)", "Reads var from the lane delta above this one: the step of a warp reduction.", "sm_30"),
    ("__shfl_xor_sync", _F, "T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize)", "Reads var from the lane whose index is this one's XOR laneMask (butterfly patterns).", "sm_30"),
    ("__ballot_sync", _F, "unsigned __ballot_sync(unsigned mask, int predicate)", "A bit per lane of mask, set where the predicate is non-zero.", "sm_30"),
    ("__any_sync", _F, "int __any_sync(unsigned mask, int predicate)", "Non-zero when the predicate holds in any lane of mask.", "sm_30"),
    ("__all_sync", _F, "int __all_sync(unsigned mask, int predicate)", "Non-zero when the predicate holds in every lane of mask.", "sm_30"),
    ("__activemask", _F, "unsigned __activemask()", "The lanes of the warp executing this instruction together right now.", "sm_30"),
    ("__match_any_sync", _F, "unsigned __match_any_sync(unsigned mask, T value)", "The lanes of mask holding the same value as this one.", "sm_70"),
    ("__match_all_sync", _F, "unsigned __match_all_sync(unsigned mask, T value, int* pred)", "mask when all its lanes hold the same value (and *pred = 1), else 0.", "sm_70"),
    ("__reduce_add_sync", _F, "unsigned __reduce_add_sync(unsigned mask, unsigned value)", "The sum of value over the lanes of mask, in one instruction.", "sm_80"),
    ("__reduce_min_sync", _F, "unsigned __reduce_min_sync(unsigned mask, unsigned value)", "The minimum of value over the lanes of mask.", "sm_80"),
    ("__reduce_max_sync", _F, "unsigned __reduce_max_sync(unsigned mask, unsigned value)", "The maximum of value over the lanes of mask.", "sm_80"),
    # Atomics
    ("atomicAdd", _F, "T atomicAdd(T* address, T val)", "Adds val to *address atomically and returns the old value (double needs sm_60).", "sm_60 for double"),
    ("atomicSub", _F, "int atomicSub(int* address, int val)", "Subtracts val from *address atomically; returns the old value."),
    ("atomicExch", _F, "T atomicExch(T* address, T val)", "Stores val at *address atomically; returns what was there."),
    ("atomicMin", _F, "T atomicMin(T* address, T val)", "Keeps the smaller of *address and val; returns the old value."),
    ("atomicMax", _F, "T atomicMax(T* address, T val)", "Keeps the larger of *address and val; returns the old value."),
    ("atomicInc", _F, "unsigned atomicInc(unsigned* address, unsigned val)", "Increments *address, wrapping to 0 past val; returns the old value."),
    ("atomicDec", _F, "unsigned atomicDec(unsigned* address, unsigned val)", "Decrements *address, wrapping to val below 0 (or above val); returns the old value."),
    ("atomicCAS", _F, "T atomicCAS(T* address, T compare, T val)", "Stores val if *address equals compare; returns the old value (build any atomic from it)."),
    ("atomicAnd", _F, "T atomicAnd(T* address, T val)", "Bitwise AND into *address atomically; returns the old value."),
    ("atomicOr", _F, "T atomicOr(T* address, T val)", "Bitwise OR into *address atomically; returns the old value."),
    ("atomicXor", _F, "T atomicXor(T* address, T val)", "Bitwise XOR into *address atomically; returns the old value."),
    ("atomicAdd_block", _F, "T atomicAdd_block(T* address, T val)", "atomicAdd that is atomic only among the threads of this block (cheaper).", "sm_60"),
    ("atomicAdd_system", _F, "T atomicAdd_system(T* address, T val)", "atomicAdd that is atomic with the host and peer GPUs too.", "sm_60"),
    # Bit manipulation
    ("__popc", _F, "int __popc(unsigned x)", "The number of set bits of x."),
    ("__popcll", _F, "int __popcll(unsigned long long x)", "The number of set bits of a 64-bit x."),
    ("__clz", _F, "int __clz(int x)", "The number of leading zero bits of x."),
    ("__ffs", _F, "int __ffs(int x)", "The position (from 1) of x's lowest set bit; 0 when x is 0."),
    ("__brev", _F, "unsigned __brev(unsigned x)", "x with its bits in reverse order."),
    ("__byte_perm", _F, "unsigned __byte_perm(unsigned x, unsigned y, unsigned s)", "Picks four bytes out of x and y as selector s says."),
    # Memory access helpers and timers
    ("__ldg", _F, "T __ldg(const T* p)", "Loads *p through the read-only data cache.", "sm_35"),
    ("clock", _F, "clock_t clock()", "The SM's cycle counter (per-SM, for timing inside a kernel)."),
    ("clock64", _F, "long long clock64()", "The SM's 64-bit cycle counter."),
    ("__trap", _F, "void __trap()", "Aborts the kernel; the launch reports an error."),
    ("printf", _F, "int printf(const char* format, ...)", "Prints from the device; the text appears when the host next synchronizes."),
    ("assert", _F, "void assert(int expression)", "Stops the kernel with a message when the expression is false."),
    # Fast math intrinsics
    ("__fdividef", _F, "float __fdividef(float x, float y)", "A fast, less accurate x / y."),
    ("__expf", _F, "float __expf(float x)", "A fast, less accurate exp(x) (the hardware instruction)."),
    ("__logf", _F, "float __logf(float x)", "A fast, less accurate natural log."),
    ("__sinf", _F, "float __sinf(float x)", "A fast, less accurate sine."),
    ("__cosf", _F, "float __cosf(float x)", "A fast, less accurate cosine."),
    ("__fmaf_rn", _F, "float __fmaf_rn(float x, float y, float z)", "x * y + z rounded once, to nearest."),
    ("__saturatef", _F, "float __saturatef(float x)", "x clamped to [0, 1]."),
    ("rsqrtf", _F, "float rsqrtf(float x)", "1 / sqrt(x), computed directly."),
    # Math functions
    ("sqrtf", _F, "float sqrtf(float x)", "Square root (float)."),
    ("sqrt", _F, "double sqrt(double x)", "Square root (double)."),
    ("expf", _F, "float expf(float x)", "e to the power x (float)."),
    ("exp", _F, "double exp(double x)", "e to the power x (double)."),
    ("logf", _F, "float logf(float x)", "Natural logarithm (float)."),
    ("log", _F, "double log(double x)", "Natural logarithm (double)."),
    ("powf", _F, "float powf(float x, float y)", "x to the power y (float)."),
    ("sinf", _F, "float sinf(float x)", "Sine of x radians (float)."),
    ("cosf", _F, "float cosf(float x)", "Cosine of x radians (float)."),
    ("sincosf", _F, "void sincosf(float x, float* s, float* c)", "Sine and cosine of x at once."),
    ("tanhf", _F, "float tanhf(float x)", "Hyperbolic tangent (float)."),
    ("fabsf", _F, "float fabsf(float x)", "Absolute value (float)."),
    ("fminf", _F, "float fminf(float x, float y)", "The smaller of x and y (a NaN loses)."),
    ("fmaxf", _F, "float fmaxf(float x, float y)", "The larger of x and y (a NaN loses)."),
    ("fmaf", _F, "float fmaf(float x, float y, float z)", "x * y + z with a single rounding."),
    ("floorf", _F, "float floorf(float x)", "The largest integer not above x."),
    ("ceilf", _F, "float ceilf(float x)", "The smallest integer not below x."),
    ("min", _F, "T min(T x, T y)", "The smaller of two integers or floats (device overloads)."),
    ("max", _F, "T max(T x, T y)", "The larger of two integers or floats (device overloads)."),
    ("abs", _F, "int abs(int x)", "Absolute value of an integer."),
    # Half precision
    ("__half", _C, "struct __half", "A 16-bit float (include <cuda_fp16.h>)."),
    ("__float2half", _F, "__half __float2half(float x)", "Converts a float to half precision, rounding to nearest."),
    ("__half2float", _F, "float __half2float(__half x)", "Converts a half to float, exactly."),
    # Vector types and their makers
    ("dim3", _C, "struct dim3 { unsigned x, y, z; }", "A block or grid shape; unset components are 1."),
    ("uint3", _C, "struct uint3 { unsigned x, y, z; }", "Three unsigned ints (the type of threadIdx and blockIdx)."),
    ("int2", _C, "struct int2 { int x, y; }", "Two ints, 8-byte aligned."),
    ("int4", _C, "struct int4 { int x, y, z, w; }", "Four ints, 16-byte aligned: one 128-bit load."),
    ("float2", _C, "struct float2 { float x, y; }", "Two floats, 8-byte aligned (complex numbers, 2-D points)."),
    ("float3", _C, "struct float3 { float x, y, z; }", "Three floats, 4-byte aligned (not one vector load)."),
    ("float4", _C, "struct float4 { float x, y, z, w; }", "Four floats, 16-byte aligned: one 128-bit load."),
    ("double2", _C, "struct double2 { double x, y; }", "Two doubles, 16-byte aligned."),
    ("make_int2", _F, "int2 make_int2(int x, int y)", "Builds an int2."),
    ("make_int4", _F, "int4 make_int4(int x, int y, int z, int w)", "Builds an int4."),
    ("make_float2", _F, "float2 make_float2(float x, float y)", "Builds a float2."),
    ("make_float3", _F, "float3 make_float3(float x, float y, float z)", "Builds a float3."),
    ("make_float4", _F, "float4 make_float4(float x, float y, float z, float w)", "Builds a float4."),
    # Clusters (Hopper)
    ("__cluster_dims__", _K, "__cluster_dims__(x, y, z)", "Fixes the kernel's thread block cluster shape at compile time.", "sm_90"),
    ("this_cluster", _F, "cooperative_groups::cluster_group this_cluster()", "The cluster of this block: .sync() waits for all its threads, .map_shared_rank(p, r) reaches block r's shared memory.", "sm_90"),
    ("this_thread_block", _F, "cooperative_groups::thread_block this_thread_block()", "This block as a group: .sync(), .thread_rank(), .size()."),
]

BUILTINS = {row[0]: Builtin(*row) for row in _ROWS}

# The members `.` offers after a built-in variable or a value of a vector type. The
# components follow from the type's declaration in the table, not a second list.
_COMPONENTS = ("x", "y", "z", "w")


def members_of_type(type_name):
    """The components of a built-in vector type (float4 -> x y z w), or () when it is none."""
    row = BUILTINS.get(type_name)
    if row is None or row.kind != _C or "{" not in row.signature:
        return ()
    fields = row.signature[row.signature.index("{") + 1:row.signature.rindex("}")]
    return tuple(c for c in _COMPONENTS if f" {c}" in fields or f",{c}" in fields)


def members_of_builtin(name):
    """After `threadIdx.`: the members of the built-in variable's type; () for other names."""
    row = BUILTINS.get(name)
    if row is None or row.kind != _V:
        return ()
    return members_of_type(row.signature.split()[0])


def describe(row):
    """The text an inspection shows for a built-in: signature, what it does, what it needs."""
    if not row.arch:
        needs = ""
    elif " " in row.arch:  # a condition, "sm_60 for double"
        needs = f"\nNeeds {row.arch}."
    else:
        needs = f"\nNeeds {row.arch} or newer."
    return f"{row.signature}\n\n{row.description}{needs}"
