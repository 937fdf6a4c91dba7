// A cell including a CUDA header that the kernel's environment lacks gets the pip package that has
// it (nvidia-cuda-nvrtc alone compiles plain kernels, not <cuda/std/cmath>).
#include "missing_headers.hpp"

#include "xcuda/compile/diagnostics.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;
using namespace xcuda::compile::detail;

namespace {

// What NVRTC 13 says for `#include <NAME>` when no -I directory has it.
std::vector<Diagnostic> unopened(const std::string& name) {
    return parse_nvrtc_log("cell.cu(1): catastrophic error: could not open source file \"" + name +
                               "\" (no directories in search list)\n  #include <" + name + ">\n" +
                               std::string(11 + name.size(), ' ') +
                               "^\n\n1 catastrophic error detected in the "
                               "compilation of \"cell.cu\".\nCompilation terminated.\n",
                           "#include <" + name + ">\n");
}

}  // namespace

TEST(MissingHeaders, ACcclHeaderNamesTheCcclWheelOfTheNvrtcsCuda) {
    const std::string hint = missing_header_hint(unopened("cuda/std/cmath"), false, true, 13);
    EXPECT_EQ(hint,
              "<cuda/std/cmath> is one of CCCL's headers (<cuda/std/...>, cub, thrust), which the kernel's environment "
              "lacks: pip install nvidia-cuda-cccl (in a notebook: %pip install nvidia-cuda-cccl), then restart the "
              "kernel; %cuda_info shows what was found");
    EXPECT_NE(missing_header_hint(unopened("cub/cub.cuh"), false, true, 12).find("pip install nvidia-cuda-cccl-cu12"),
              std::string::npos);
}

TEST(MissingHeaders, NvrtcsOtherWordingIsReadToo) {
    // NVRTC 13.5 (pip's nvidia-cuda-nvrtc) says it as a plain error.
    const auto ds = parse_nvrtc_log(
        "source(1): error: cannot open source file \"cuda/std/cmath\"\n  #include <cuda/std/cmath>\n"
        "                           ^\n\n1 error detected in the compilation of \"source\".\n",
        "#include <cuda/std/cmath>\n");
    EXPECT_NE(missing_header_hint(ds, false, true, 13).find("pip install nvidia-cuda-cccl "), std::string::npos);
}

TEST(MissingHeaders, ARuntimeHeaderNamesTheRuntimeWheel) {
    const std::string hint = missing_header_hint(unopened("cuda_fp16.h"), true, false, 13);
    EXPECT_NE(hint.find("<cuda_fp16.h> is one of the CUDA runtime's headers"), std::string::npos) << hint;
    EXPECT_NE(hint.find("pip install nvidia-cuda-runtime "), std::string::npos) << hint;
}

TEST(MissingHeaders, NoHintWhereThePieceWasFoundOrTheHeaderIsTheUsers) {
    EXPECT_EQ(missing_header_hint(unopened("cuda/std/cmath"), true, true, 13), "");  // a typo, not a missing wheel
    EXPECT_EQ(missing_header_hint(unopened("my_helpers.cuh"), false, false, 13), "");
    EXPECT_EQ(missing_header_hint({}, false, false, 13), "");
}

TEST(MissingHeaders, EachHeaderBelongsToItsPiece) {
    EXPECT_EQ(piece_for_header("cuda/std/cmath"), "cccl");
    EXPECT_EQ(piece_for_header("thrust/sort.h"), "cccl");
    EXPECT_EQ(piece_for_header("nv/target"), "cccl");
    EXPECT_EQ(piece_for_header("cooperative_groups.h"), "headers");
    EXPECT_EQ(piece_for_header("cuda_bf16.h"), "headers");
    EXPECT_EQ(piece_for_header("curand_kernel.h"), "");
    EXPECT_EQ(piece_for_header("util.cuh"), "");
}
