#pragma once
// %%cuda_profile on the CPU device: while a cell runs, the device counts every instruction of
// its kernels; afterwards, the counts on the lines of the cells that defined them.
#include <xcuda/report/rich.hpp>

namespace xcuda::magics {

class CpuLineCounting {
public:
    CpuLineCounting();   // counting on (what an earlier cell left uncollected is dropped)
    ~CpuLineCounting();  // counting off
    CpuLineCounting(const CpuLineCounting&) = delete;
    CpuLineCounting& operator=(const CpuLineCounting&) = delete;

    // Waits for the device, then the report of every launch counted (per kernel, added up).
    report::Rich report();
};

}  // namespace xcuda::magics
