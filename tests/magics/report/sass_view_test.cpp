#include <gtest/gtest.h>

#include "xcuda/report/asm_highlight.hpp"
#include "xcuda/report/sass_view.hpp"

using namespace xcuda::report;

// The shape of `cuobjdump -sass` output (address comment, instruction, encoding comment).
static const char* kSass =
    "\tcode for sm_90\n"
    "\t\tFunction : saxpy\n"
    "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */\n"
    "        /*0010*/                   S2R R0, SR_TID.X ;                     /* 0x0000000000007919 */\n"
    "        /*0020*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ;     /* 0x0000000400007c0c */\n"
    "        /*0030*/               @P0 EXIT ;                                 /* 0x000000000000094d */\n"
    "        /*0040*/                   FFMA R5, R2.reuse, R3, RZ ;            /* 0x0000000302057223 */\n"
    "        /*0050*/                   BRA `(.L_x_0) ;                        /* 0xfffffffc00fc7947 */\n"
    ".L_x_0:\n";

TEST(SassView, PlainIsTheDisassemblyAsGiven) { EXPECT_EQ(sass_view(kSass).plain, kSass); }

TEST(SassView, HighlightsOpcodesRegistersAddressesAndLabels) {
    const std::string h = sass_view(kSass).html;
    EXPECT_NE(h.find("<span class=\"xcuda-asm-address\">/*0000*/</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-opcode\">LDC</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-opcode\">ISETP.GE.AND</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-register\">SR_TID.X</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-register\">@P0</span> <span class=\"xcuda-asm-opcode\">EXIT</span>"),
              std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-register\">R2.reuse</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-register\">RZ</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-comment\">/* 0x00000a00ff017b82 */</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-label\">.L_x_0:</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-label\">.L_x_0</span>"), std::string::npos);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-string\">&quot;EF_CUDA_SM90"), std::string::npos);
    // Header lines have no opcode.
    EXPECT_EQ(h.find("<span class=\"xcuda-asm-opcode\">code</span>"), std::string::npos);
}

TEST(SassView, UnknownIdentifiersAreNotRegisters) {
    const std::string h = highlight_asm_line("/*0000*/ MOV Rx, PROBE ;", AsmDialect::sass);
    EXPECT_EQ(h.find("xcuda-asm-register\">Rx"), std::string::npos) << h;
    EXPECT_EQ(h.find("xcuda-asm-register\">PROBE"), std::string::npos) << h;
}

TEST(ToolMissing, OneSentenceNamingTheToolWhereItLookedAndHowToGetIt) {
    EXPECT_EQ(tool_missing_message("nvdisasm", {"/usr/local/cuda/bin", "PATH"}, "cuda-nvdisasm", "to see SASS",
                                   "PTX is available with --ptx"),
              "nvdisasm not found in /usr/local/cuda/bin or PATH; install the CUDA Toolkit's cuda-nvdisasm package "
              "to see SASS; PTX is available with --ptx.");
    Rich r = tool_missing("cuobjdump", {"<odd>"}, "cuda-cuobjdump", "", "");
    EXPECT_EQ(r.plain, "cuobjdump not found in <odd>; install the CUDA Toolkit's cuda-cuobjdump package.\n");
    EXPECT_NE(r.html.find("&lt;odd&gt;"), std::string::npos);
}
