// Statements of a body: instructions (opcode, suffixes, guard, every kind of operand), labels,
// pragmas, branch-target and call-prototype directives, and the .loc in effect.
#include "ptx_test_util.hpp"

using namespace xcuda::cpu::ptx;
using namespace xcuda::cpu::ptx::test;

using K = Operand::Kind;

TEST(PtxInstructions, SplitsOpcodeAndSuffixes) {
    const Instruction ins = only_instruction("\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd2+16];");
    EXPECT_EQ(ins.opcode, "ld");
    EXPECT_EQ(ins.suffixes, (std::vector<std::string>{"global", "nc", "v4", "f32"}));
    EXPECT_EQ(ins.source_line, 5);
    EXPECT_TRUE(ins.guard.empty());
    ASSERT_EQ(ins.operands.size(), 2u);
    EXPECT_EQ(ins.operands[0].kind, K::vector);
    EXPECT_EQ(ins.operands[1].kind, K::address);
}

TEST(PtxInstructions, KeepsDoubleColonPartsInOneSuffix) {
    EXPECT_EQ(only_instruction("ld.shared::cluster.u32 %r1, [%r2];").suffixes,
              (std::vector<std::string>{"shared::cluster", "u32"}));
    EXPECT_EQ(only_instruction("fence.proxy.async.shared::cta;").suffixes,
              (std::vector<std::string>{"proxy", "async", "shared::cta"}));
    const Instruction bulk = only_instruction(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];");
    EXPECT_EQ(bulk.opcode, "cp");
    EXPECT_EQ(bulk.suffixes,
              (std::vector<std::string>{"async", "bulk", "shared::cluster", "global", "mbarrier::complete_tx::bytes"}));
    EXPECT_EQ(bulk.operands.size(), 4u);
    EXPECT_EQ(only_instruction("ld.global.L1::no_allocate.L2::256B.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];").suffixes,
              (std::vector<std::string>{"global", "L1::no_allocate", "L2::256B", "v4", "u32"}));
}

TEST(PtxInstructions, ReadsGuards) {
    const Module m = parse_body("\t@%p1 bra \t$L__BB1_2;\n\t@!%p2 bra.uni $L__BB1_3;\n\tret;");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 3u);
    EXPECT_EQ(ins[0]->guard, "%p1");
    EXPECT_FALSE(ins[0]->guard_negated);
    EXPECT_EQ(ins[0]->opcode, "bra");
    ASSERT_EQ(ins[0]->operands.size(), 1u);
    EXPECT_EQ(ins[0]->operands[0].kind, K::symbol);
    EXPECT_EQ(ins[0]->operands[0].name, "$L__BB1_2");
    EXPECT_EQ(ins[1]->guard, "%p2");
    EXPECT_TRUE(ins[1]->guard_negated);
    EXPECT_EQ(ins[1]->suffixes, std::vector<std::string>{"uni"});
    EXPECT_TRUE(ins[2]->guard.empty());
    EXPECT_TRUE(ins[2]->operands.empty());
}

TEST(PtxInstructions, ReadsRegistersAndSpecialRegisters) {
    const Module m = parse_body(
        "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.y;\nmov.u32 %r3, %envreg1;\n"
        "mov.u32 %r4, %lanemask_lt;\nmov.u64 %rd1, %clock64;\nmov.f32 %f1, %v1.w;");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 6u);
    EXPECT_EQ(ins[0]->operands[0].kind, K::reg);
    EXPECT_EQ(ins[0]->operands[0].name, "%r1");
    EXPECT_EQ(ins[0]->operands[0].vector_select, "");
    EXPECT_EQ(ins[0]->operands[1].kind, K::reg);
    EXPECT_EQ(ins[0]->operands[1].name, "%tid");
    EXPECT_EQ(ins[0]->operands[1].vector_select, "x");
    EXPECT_EQ(ins[1]->operands[1].name, "%ctaid");
    EXPECT_EQ(ins[1]->operands[1].vector_select, "y");
    EXPECT_EQ(ins[2]->operands[1].name, "%envreg1");
    EXPECT_EQ(ins[3]->operands[1].name, "%lanemask_lt");
    EXPECT_EQ(ins[4]->operands[1].name, "%clock64");
    EXPECT_EQ(ins[5]->operands[1].name, "%v1");
    EXPECT_EQ(ins[5]->operands[1].vector_select, "w");
}

TEST(PtxInstructions, ReadsIntegerLiterals) {
    const Instruction ins =
        only_instruction("foo.b32 %r1, 42, -1, 0x1F, 0XFFFFFFFF, 017, 8U, 0xffffffffffffffff, 0b101, -0x10, 0;");
    std::vector<std::int64_t> values;
    for (std::size_t i = 1; i < ins.operands.size(); ++i) {
        EXPECT_EQ(ins.operands[i].kind, K::integer) << "operand " << i;
        values.push_back(ins.operands[i].integer);
    }
    EXPECT_EQ(values, (std::vector<std::int64_t>{42, -1, 31, 0xFFFFFFFF, 15, 8, -1, 5, -16, 0}));
}

TEST(PtxInstructions, ReadsFloatLiterals) {
    const Instruction ins = only_instruction(
        "foo.f32 %f1, 0f3F800000, 0d3FF0000000000000, 1.5, 0F40490FDB, -0f3F800000, "
        "2.5e-1, -1.0;");
    ASSERT_EQ(ins.operands.size(), 8u);
    for (std::size_t i = 1; i < ins.operands.size(); ++i) EXPECT_EQ(ins.operands[i].kind, K::floating) << i;
    EXPECT_EQ(ins.operands[1].bits, 0x3F800000u);
    EXPECT_FALSE(ins.operands[1].is_double);
    EXPECT_EQ(ins.operands[2].bits, 0x3FF0000000000000u);
    EXPECT_TRUE(ins.operands[2].is_double);
    EXPECT_EQ(ins.operands[3].bits, 0x3FF8000000000000u);
    EXPECT_TRUE(ins.operands[3].is_double);
    EXPECT_EQ(ins.operands[4].bits, 0x40490FDBu);
    EXPECT_EQ(ins.operands[5].bits, 0xBF800000u);
    EXPECT_EQ(ins.operands[6].bits, 0x3FD0000000000000u);
    EXPECT_EQ(ins.operands[7].bits, 0xBFF0000000000000u);
}

TEST(PtxInstructions, ReadsAddresses) {
    const Module m = parse_body(
        "ld.u32 %r1, [%rd1];\nld.u32 %r1, [%rd1+16];\nld.u32 %r1, [%rd34+-4];\n"
        "ld.param.u32 %r1, [param0+0];\nld.const.u32 %r1, [sym];\nld.const.u32 %r1, [sym+8];\n"
        "ld.u32 %r1, [0x1000];\nld.u32 %r1, [%rd1 - 8];\nld.u32 %r1, [ %rd1 + 0x10 ];");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 9u);
    const std::vector<std::pair<std::string, std::int64_t>> expected = {{"%rd1", 0},   {"%rd1", 16}, {"%rd34", -4},
                                                                        {"param0", 0}, {"sym", 0},   {"sym", 8},
                                                                        {"", 0x1000},  {"%rd1", -8}, {"%rd1", 16}};
    for (std::size_t i = 0; i < ins.size(); ++i) {
        const Operand& a = ins[i]->operands.at(1);
        EXPECT_EQ(a.kind, K::address) << i;
        EXPECT_EQ(a.name, expected[i].first) << i;
        EXPECT_EQ(a.integer, expected[i].second) << i;
        EXPECT_TRUE(a.elements.empty()) << i;
    }
}

TEST(PtxInstructions, ReadsTextureAndSurfaceOperands) {
    const Module m = parse_body(
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];\n"
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, smp, {%f5, %f6}];\n"
        "sust.b.2d.v4.b32.trap [surf, {%r1, %r2}], {%r3, %r4, %r5, %r6};");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 3u);
    const Operand& t0 = ins[0]->operands.at(1);
    EXPECT_EQ(t0.kind, K::address);
    EXPECT_EQ(t0.name, "tex0");
    ASSERT_EQ(t0.elements.size(), 1u);
    EXPECT_EQ(t0.elements[0].kind, K::vector);
    EXPECT_EQ(t0.elements[0].elements.size(), 2u);
    const Operand& t1 = ins[1]->operands.at(1);
    EXPECT_EQ(t1.name, "%rd1");
    ASSERT_EQ(t1.elements.size(), 2u);
    EXPECT_EQ(t1.elements[0].kind, K::symbol);
    EXPECT_EQ(t1.elements[0].name, "smp");
    EXPECT_EQ(ins[2]->operands.at(0).name, "surf");
    EXPECT_EQ(ins[2]->operands.at(1).kind, K::vector);
}

TEST(PtxInstructions, ReadsVectorOperandsWithSinksAndConstants) {
    const Instruction ins = only_instruction("st.global.v4.f32 [%rd1], {%f1, %f2, _, 0f00000000};");
    const Operand& v = ins.operands.at(1);
    EXPECT_EQ(v.kind, K::vector);
    ASSERT_EQ(v.elements.size(), 4u);
    EXPECT_EQ(v.elements[0].name, "%f1");
    EXPECT_EQ(v.elements[2].kind, K::none);
    EXPECT_EQ(v.elements[3].kind, K::floating);
    const Instruction unpack = only_instruction("mov.b64 {%r1, %r2}, %rd1;");
    EXPECT_EQ(unpack.operands.at(0).kind, K::vector);
    EXPECT_EQ(unpack.operands.at(0).elements.size(), 2u);
}

TEST(PtxInstructions, ReadsPairDestinationsNegatedPredicatesAndSinks) {
    const Module m = parse_body(
        "shfl.sync.down.b32 \t%r26|%p1, %r25, 16, 31, -1;\n"
        "selp.b32 %r1, 1, 0, !%p3;\nvote.sync.any.pred %p4, !%p5, -1;\n"
        "atom.global.exch.b32 _, [%rd1], %r1;\nsetp.lt.s32 %p1|%p2, %r1, 3;");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 5u);
    EXPECT_EQ(ins[0]->operands[0].name, "%r26");
    EXPECT_EQ(ins[0]->operands[0].pair, "%p1");
    EXPECT_EQ(ins[0]->operands[4].integer, -1);
    EXPECT_TRUE(ins[1]->operands[3].negated);
    EXPECT_EQ(ins[1]->operands[3].name, "%p3");
    EXPECT_FALSE(ins[1]->operands[0].negated);
    EXPECT_TRUE(ins[2]->operands[1].negated);
    EXPECT_EQ(ins[3]->operands[0].kind, K::none);
    EXPECT_EQ(ins[4]->operands[0].pair, "%p2");
}

TEST(PtxInstructions, ReadsCallsWithParenthesisedListsAcrossLines) {
    const Module m = parse_body(
        "\tcall.uni (retval0), \n\tvprintf, \n\t(\n\tparam0, \n\tparam1\n\t);\n"
        "\tcall (retval0), %rd5, (param0), prototype_0;\n"
        "\tcall.uni _Z3foov, ();\n\tcall.uni \n\t__assertfail, \n\t(\n\tparam0\n\t);");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 4u);
    const Instruction& printf_call = *ins[0];
    EXPECT_EQ(printf_call.opcode, "call");
    EXPECT_EQ(printf_call.suffixes, std::vector<std::string>{"uni"});
    EXPECT_EQ(printf_call.source_line, 5);
    ASSERT_EQ(printf_call.operands.size(), 3u);
    EXPECT_EQ(printf_call.operands[0].kind, K::list);
    ASSERT_EQ(printf_call.operands[0].elements.size(), 1u);
    EXPECT_EQ(printf_call.operands[0].elements[0].name, "retval0");
    EXPECT_EQ(printf_call.operands[1].kind, K::symbol);
    EXPECT_EQ(printf_call.operands[1].name, "vprintf");
    ASSERT_EQ(printf_call.operands[2].elements.size(), 2u);
    EXPECT_EQ(printf_call.operands[2].elements[1].name, "param1");
    const Instruction& indirect = *ins[1];
    ASSERT_EQ(indirect.operands.size(), 4u);
    EXPECT_EQ(indirect.operands[1].kind, K::reg);
    EXPECT_EQ(indirect.operands[1].name, "%rd5");
    EXPECT_EQ(indirect.operands[3].kind, K::symbol);
    EXPECT_EQ(indirect.operands[3].name, "prototype_0");
    ASSERT_EQ(ins[2]->operands.size(), 2u);
    EXPECT_EQ(ins[2]->operands[1].kind, K::list);
    EXPECT_TRUE(ins[2]->operands[1].elements.empty());
    EXPECT_EQ(ins[3]->operands.size(), 2u);
    EXPECT_EQ(ins[3]->operands[0].name, "__assertfail");
}

TEST(PtxInstructions, ReadsSymbolOperandsWithOffsets) {
    const Module m =
        parse_body("mov.u64 %rd1, $str;\nmov.u64 %rd2, arr+8;\nmov.u32 %r1, _ZZ1kE2sm;\nbra.uni $L__BB0_1;");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 4u);
    EXPECT_EQ(ins[0]->operands[1].kind, K::symbol);
    EXPECT_EQ(ins[0]->operands[1].name, "$str");
    EXPECT_EQ(ins[0]->operands[1].integer, 0);
    EXPECT_EQ(ins[1]->operands[1].name, "arr");
    EXPECT_EQ(ins[1]->operands[1].integer, 8);
    EXPECT_EQ(ins[2]->operands[1].name, "_ZZ1kE2sm");
}

TEST(PtxInstructions, ReadsInlineAsmScopesOnOneLine) {
    const Module m = parse_body(
        "\t{ .reg .pred %p1; setp.ne.u32 %p1, %r72, 0; bar.red.popc.u32 %r20, 0, %p1; }\n"
        "\t{ .reg .b64 %tmp;\n\t  cvt.u64.u32 \t%tmp, %r2;\n\t  cvta.shared.u64 \t%rd3, %tmp; }");
    const Function& f = m.functions.at(0);
    using S = Statement::Kind;
    std::vector<S> kinds;
    for (const Statement& s : f.body) kinds.push_back(s.kind);
    EXPECT_EQ(kinds, (std::vector<S>{S::scope_begin, S::registers, S::instruction, S::instruction, S::scope_end,
                                     S::scope_begin, S::registers, S::instruction, S::instruction, S::scope_end}));
    const auto ins = instructions(f);
    EXPECT_EQ(ins[1]->opcode, "bar");
    EXPECT_EQ(ins[1]->suffixes, (std::vector<std::string>{"red", "popc", "u32"}));
    EXPECT_EQ(ins[1]->source_line, 5);
    EXPECT_EQ(ins[3]->source_line, 8);
}

TEST(PtxInstructions, ReadsLabelsPragmasBranchTargetsAndCallPrototypes) {
    const Module m = parse_body(
        "$L__BB3_2:\n\t.pragma \"nounroll\";\n\tts: .branchtargets $L__BB3_2, $L__BB3_3;\n"
        "\tbrx.idx %r1, ts;\n$L__BB3_3:\n"
        "\tprototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
        "\tct: .calltargets f1, f2;\n\tret;");
    const Function& f = m.functions.at(0);
    ASSERT_EQ(f.body.size(), 8u);
    EXPECT_EQ(f.body[0].kind, Statement::Kind::label);
    EXPECT_EQ(f.body[0].label, "$L__BB3_2");
    EXPECT_EQ(f.body[0].source_line, 5);
    EXPECT_EQ(f.body[1].kind, Statement::Kind::pragma);
    EXPECT_EQ(f.body[1].text, "nounroll");
    EXPECT_EQ(f.body[2].kind, Statement::Kind::branch_targets);
    EXPECT_EQ(f.body[2].label, "ts");
    EXPECT_EQ(f.body[2].targets, (std::vector<std::string>{"$L__BB3_2", "$L__BB3_3"}));
    EXPECT_EQ(f.body[3].instruction.operands.at(1).name, "ts");
    EXPECT_EQ(f.body[4].label, "$L__BB3_3");
    EXPECT_EQ(f.body[5].kind, Statement::Kind::call_prototype);
    EXPECT_EQ(f.body[5].label, "prototype_0");
    EXPECT_EQ(f.body[5].text, "(.param .b32 _) _ (.param .b64 _)");
    EXPECT_EQ(f.body[6].kind, Statement::Kind::call_targets);
    EXPECT_EQ(f.body[6].targets, (std::vector<std::string>{"f1", "f2"}));
}

TEST(PtxInstructions, KeepsTheLocInEffectOnEveryInstruction) {
    const Module m = parse_body(
        "\tmov.u32 %r1, 0;\n\t.loc\t1 12 3\n\tmov.u32 %r2, %ntid.x;\n"
        "\tmov.u32 %r3, %ctaid.x;\n$L__BB0_1:\n\t.loc 1 15 7\n\tret;");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 4u);
    EXPECT_EQ(ins[0]->loc.file, 0);
    EXPECT_EQ(ins[1]->loc.file, 1);
    EXPECT_EQ(ins[1]->loc.line, 12);
    EXPECT_EQ(ins[1]->loc.column, 3);
    EXPECT_EQ(ins[2]->loc.line, 12);
    EXPECT_EQ(ins[3]->loc.line, 15);
    EXPECT_EQ(ins[3]->loc.column, 7);
    EXPECT_TRUE(ins[3]->loc.inlined_at.empty());
}

TEST(PtxInstructions, ChainsInlinedAtSitesInnermostFirst) {
    // NVRTC's shape: each .loc names its nearest call site; a chain's outer .locs come first.
    const Module m = parse_body(
        "\t.loc\t1 23 3\n"
        "\t.loc\t6 261 5, function_name $L__info_string4, inlined_at 1 23 3\n"
        "\t.loc\t7 92 9, function_name $L__info_string5, inlined_at 6 261 5\n"
        "\t.loc\t7 66 9, function_name $L__info_string6, inlined_at 7 92 9\n"
        "\t.loc\t7 83 96, function_name $L__info_string7+12, inlined_at 7 66 9\n"
        "\tmov.u32 %r49, %envreg2;\n"
        "\t.loc\t7 66 9, function_name $L__info_string6, inlined_at 7 92 9\n"
        "\tcvt.u64.u32 \t%rd22, %r49;\n"
        "\t.loc\t1 25 3\n\t.loc\t2 440 9, function_name $L__info_string0, inlined_at 1 25 3\n"
        "\tshfl.sync.down.b32 \t%r36|%p3, %r33, %r34, %r18, %r35;\n"
        "\t.loc\t1 25 3\n\tadd.f32 %f9, %f7, %f8;");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 4u);
    auto chain = [](const Instruction& i) {
        std::vector<std::array<int, 3>> out;
        for (const Loc::Site& s : i.loc.inlined_at) out.push_back({s.file, s.line, s.column});
        return out;
    };
    using C = std::vector<std::array<int, 3>>;
    EXPECT_EQ(ins[0]->loc.file, 7);
    EXPECT_EQ(ins[0]->loc.line, 83);
    EXPECT_EQ(ins[0]->loc.column, 96);
    EXPECT_EQ(chain(*ins[0]), (C{{7, 66, 9}, {7, 92, 9}, {6, 261, 5}, {1, 23, 3}}));
    EXPECT_EQ(ins[1]->loc.line, 66);
    EXPECT_EQ(chain(*ins[1]), (C{{7, 92, 9}, {6, 261, 5}, {1, 23, 3}}));
    EXPECT_EQ(ins[2]->loc.file, 2);
    EXPECT_EQ(chain(*ins[2]), (C{{1, 25, 3}}));
    EXPECT_TRUE(chain(*ins[3]).empty());
}

TEST(PtxInstructions, StartsEachFunctionWithoutALoc) {
    const Module m = parse(module_header() + ".func f() {\n.loc 1 3 1\nret;\n}\n.func g() {\nret;\n}\n");
    ASSERT_EQ(m.functions.size(), 2u);
    EXPECT_EQ(instructions(m.functions[0]).at(0)->loc.line, 3);
    EXPECT_EQ(instructions(m.functions[1]).at(0)->loc.file, 0);
}

TEST(PtxInstructions, IgnoresCommentsAnywhere) {
    const Module m = parse_body(
        "\tadd.s32 /* inline */ %r1, %r2, // the rest of the line\n\t3; /* a\n"
        "multi-line comment */ ret;");
    const auto ins = instructions(m.functions.at(0));
    ASSERT_EQ(ins.size(), 2u);
    EXPECT_EQ(ins[0]->operands.at(2).integer, 3);
    EXPECT_EQ(ins[1]->source_line, 7);
}
