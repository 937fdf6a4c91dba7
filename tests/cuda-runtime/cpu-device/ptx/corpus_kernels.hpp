// CUDA programs of the kinds people write in notebooks, for the parser's corpus test: each is
// compiled with NVRTC at test time and its PTX parsed.
#pragma once

#include <string>
#include <vector>

namespace xcuda::cpu::ptx::test {

struct CorpusKernel {
    // The name in the PTX (extern "C" kernels), or a name expression ("scale<float>") whose
    // lowered name NVRTC reports.
    std::string name;
    // Each parameter as "type" or "type[bytes]" (by-value aggregates are .b8 arrays).
    std::vector<std::string> params;
    bool name_expression = false;
};

struct CorpusProgram {
    std::string name;  // the test's name
    std::string source;
    std::vector<CorpusKernel> kernels;
};

const std::vector<CorpusProgram>& corpus_programs();

}  // namespace xcuda::cpu::ptx::test
