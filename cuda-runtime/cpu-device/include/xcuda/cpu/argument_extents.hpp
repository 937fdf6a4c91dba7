// The arrays a launch's pointer arguments pass, as their caller knows them. A numpy array is
// staged in a pooled buffer that may be larger than it, and a view passes a pointer into a larger
// array: the CPU device checks a launch's accesses against each array's own extent, so reading
// a[240] of a 240-element array is out of bounds even in a buffer pooled for 300, and reports quote
// the array's size.
#pragma once

#include <cstdint>
#include <vector>

namespace xcuda::cpu {

struct ArgumentExtent {
    std::uint64_t base = 0;   // the pointer passed
    std::uint64_t bytes = 0;  // the array's bytes from there
};

// While one lives, the launches this thread makes on the CPU device (cuLaunchKernel, cuLaunchKernelEx,
// a captured kernel node) take these extents with them. Scopes do not nest: an inner one replaces
// the outer's extents until it ends.
class LaunchArgumentExtents {
public:
    explicit LaunchArgumentExtents(std::vector<ArgumentExtent> extents);
    ~LaunchArgumentExtents();
    LaunchArgumentExtents(const LaunchArgumentExtents&) = delete;
    LaunchArgumentExtents& operator=(const LaunchArgumentExtents&) = delete;

    // The extents of the innermost live scope on this thread (empty when none).
    static const std::vector<ArgumentExtent>& current();

private:
    std::vector<ArgumentExtent> saved_;
};

}  // namespace xcuda::cpu
