// Declarations: module-scope and function-scope variables with their initializers, parameters,
// registers, and the scopes that shadow them.
#include "ptx_test_util.hpp"

using namespace xcuda::cpu::ptx;
using namespace xcuda::cpu::ptx::test;

namespace {

Variable only_variable(const std::string& declaration) {
    const Module m = parse(module_header() + declaration + "\n");
    if (m.variables.size() != 1) {
        ADD_FAILURE() << "expected one variable in: " << declaration;
        return {};
    }
    return m.variables[0];
}

std::vector<std::uint64_t> init_bits(const Variable& v) {
    std::vector<std::uint64_t> out;
    for (const InitValue& i : v.init) out.push_back(i.bits);
    return out;
}

}  // namespace

TEST(PtxDeclarations, ReadsAGlobalByteArrayWithItsInitializer) {
    const Variable v = only_variable(".visible .global .align 4 .b8 table[24] = {65, 144, 0, 255};");
    EXPECT_EQ(v.space, Space::global);
    EXPECT_TRUE(v.is_visible);
    EXPECT_EQ(v.align, 4);
    EXPECT_EQ(v.type, "b8");
    EXPECT_EQ(v.name, "table");
    EXPECT_EQ(v.dims, std::vector<std::uint64_t>{24});
    EXPECT_EQ(init_bits(v), (std::vector<std::uint64_t>{65, 144, 0, 255}));
    EXPECT_EQ(v.init[0].kind, InitValue::Kind::integer);
    EXPECT_EQ(v.source_line, 4);
}

TEST(PtxDeclarations, ReadsConstSharedLocalAndScalarInitializers) {
    const Module m = parse(module_header() +
                           ".const .u32 five = 5;\n.const .s32 minus = -7;\n.const .u64 big = 0xFFFFFFFFFFFFFFFF;\n"
                           ".shared .align 16 .f32 tile[32][33];\n.local .align 8 .b8 __local_depot3[40];\n"
                           ".global .u32 a, b[2], c = 3;\n");
    ASSERT_EQ(m.variables.size(), 8u);
    EXPECT_EQ(m.variables[0].space, Space::const_);
    EXPECT_EQ(init_bits(m.variables[0]), std::vector<std::uint64_t>{5});
    EXPECT_EQ(static_cast<std::int64_t>(m.variables[1].init.at(0).bits), -7);
    EXPECT_EQ(m.variables[2].init.at(0).bits, ~std::uint64_t{0});
    EXPECT_EQ(m.variables[3].space, Space::shared);
    EXPECT_EQ(m.variables[3].dims, (std::vector<std::uint64_t>{32, 33}));
    EXPECT_EQ(m.variables[4].space, Space::local);
    EXPECT_EQ(m.variables[4].align, 8);
    EXPECT_EQ(m.variables[5].name, "a");
    EXPECT_EQ(m.variables[6].dims, std::vector<std::uint64_t>{2});
    EXPECT_EQ(m.variables[6].type, "u32");
    EXPECT_EQ(init_bits(m.variables[7]), std::vector<std::uint64_t>{3});
}

TEST(PtxDeclarations, ReadsAnUnsizedExternSharedArray) {
    const Variable v = only_variable(".extern .shared .align 16 .b8 smem[];");
    EXPECT_TRUE(v.is_extern);
    EXPECT_EQ(v.space, Space::shared);
    EXPECT_EQ(v.align, 16);
    EXPECT_EQ(v.dims, std::vector<std::uint64_t>{0});
}

TEST(PtxDeclarations, ReadsVectorVariables) {
    const Variable v = only_variable(".global .v4 .f32 quad = {0f3F800000, 0f40000000, 0f40400000, 0f40800000};");
    EXPECT_EQ(v.vector, 4);
    EXPECT_EQ(v.type, "f32");
    EXPECT_EQ(init_bits(v), (std::vector<std::uint64_t>{0x3F800000, 0x40000000, 0x40400000, 0x40800000}));
    EXPECT_EQ(v.init[0].kind, InitValue::Kind::floating);
    EXPECT_EQ(only_variable(".const .v2 .u64 pair;").vector, 2);
}

TEST(PtxDeclarations, ConvertsFloatInitializersToTheDeclaredType) {
    EXPECT_EQ(init_bits(only_variable(".global .f32 x = 1.5;")), std::vector<std::uint64_t>{0x3FC00000});
    EXPECT_EQ(init_bits(only_variable(".global .f32 x = 0d3FF8000000000000;")), std::vector<std::uint64_t>{0x3FC00000});
    EXPECT_EQ(init_bits(only_variable(".global .f64 x = 0f3FC00000;")), std::vector<std::uint64_t>{0x3FF8000000000000});
    EXPECT_EQ(init_bits(only_variable(".global .f64 x[2] = {0d4000000000000000, -2.0};")),
              (std::vector<std::uint64_t>{0x4000000000000000, 0xC000000000000000}));
    EXPECT_EQ(init_bits(only_variable(".global .f32 x = -0f3F800000;")), std::vector<std::uint64_t>{0xBF800000});
}

TEST(PtxDeclarations, ReadsSymbolInitializersWithGenericAndOffsets) {
    const Variable v = only_variable(
        ".visible .global .align 8 .u64 ptrs[4] = {foo, bar+4, generic(baz), "
        "generic(garr)+12};");
    ASSERT_EQ(v.init.size(), 4u);
    EXPECT_EQ(v.init[0].kind, InitValue::Kind::symbol);
    EXPECT_EQ(v.init[0].symbol, "foo");
    EXPECT_EQ(v.init[0].offset, 0);
    EXPECT_FALSE(v.init[0].generic);
    EXPECT_EQ(v.init[1].symbol, "bar");
    EXPECT_EQ(v.init[1].offset, 4);
    EXPECT_EQ(v.init[2].symbol, "baz");
    EXPECT_TRUE(v.init[2].generic);
    EXPECT_EQ(v.init[3].symbol, "garr");
    EXPECT_TRUE(v.init[3].generic);
    EXPECT_EQ(v.init[3].offset, 12);
}

TEST(PtxDeclarations, FlattensNestedInitializersOfMultiDimensionalArrays) {
    const Variable v = only_variable(".const .u32 m[2][3] = {{1, 2, 3}, {4, 5, 6}};");
    EXPECT_EQ(v.dims, (std::vector<std::uint64_t>{2, 3}));
    EXPECT_EQ(init_bits(v), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(PtxDeclarations, ReadsManagedVariablesAndTextureReferences) {
    const Variable managed = only_variable(".visible .global .attribute(.managed) .align 4 .u32 counter;");
    EXPECT_TRUE(managed.managed);
    EXPECT_EQ(managed.type, "u32");
    EXPECT_EQ(managed.align, 4);
    const Variable tex = only_variable(".global .texref tex0;");
    EXPECT_EQ(tex.type, "texref");
}

TEST(PtxDeclarations, ReadsPointerParamsAndByValueParams) {
    const Module m = parse(module_header() +
                           ".entry k(\n\t.param .u64 .ptr .global .align 16 k_param_0,\n"
                           "\t.param .u64 .ptr .align 4 k_param_1,\n\t.param .align 8 .b8 k_param_2[16],\n"
                           "\t.param .u32 k_param_3\n) { ret; }\n");
    const Function& f = m.functions.at(0);
    ASSERT_EQ(f.params.size(), 4u);
    EXPECT_TRUE(f.params[0].ptr);
    EXPECT_EQ(f.params[0].ptr_space, "global");
    EXPECT_EQ(f.params[0].type, "u64");
    EXPECT_EQ(f.params[0].align, 0) << ".align after .ptr is the pointee's";
    EXPECT_TRUE(f.params[1].ptr);
    EXPECT_EQ(f.params[1].ptr_space, "");
    EXPECT_FALSE(f.params[2].ptr);
    EXPECT_EQ(f.params[2].align, 8);
    EXPECT_EQ(f.params[2].dims, std::vector<std::uint64_t>{16});
    EXPECT_EQ(f.params[3].name, "k_param_3");
    EXPECT_EQ(f.params[3].space, Space::param);
}

TEST(PtxDeclarations, ReadsRegisterDeclarations) {
    const Module m = parse_body(
        "\t.reg .b32 \t%r<79>;\n\t.reg .pred \t%p1;\n\t.reg .v4 .f32 %v<2>;\n"
        "\t.reg .b64 \t%SP;\n\t.reg .u32 a, b, %q<3>;");
    const auto regs = statements_of(m.functions.at(0), Statement::Kind::registers);
    ASSERT_EQ(regs.size(), 7u);
    EXPECT_EQ(regs[0]->registers.name, "%r");
    EXPECT_EQ(regs[0]->registers.count, 79);
    EXPECT_EQ(regs[0]->registers.type, "b32");
    EXPECT_EQ(regs[0]->registers.source_line, 5);
    EXPECT_EQ(regs[0]->source_line, 5);
    EXPECT_EQ(regs[1]->registers.name, "%p1");
    EXPECT_EQ(regs[1]->registers.count, 0);
    EXPECT_EQ(regs[1]->registers.type, "pred");
    EXPECT_EQ(regs[2]->registers.vector, 4);
    EXPECT_EQ(regs[2]->registers.type, "f32");
    EXPECT_EQ(regs[2]->registers.count, 2);
    EXPECT_EQ(regs[3]->registers.name, "%SP");
    EXPECT_EQ(regs[4]->registers.name, "a");
    EXPECT_EQ(regs[5]->registers.name, "b");
    EXPECT_EQ(regs[6]->registers.name, "%q");
    EXPECT_EQ(regs[6]->registers.count, 3);
    EXPECT_EQ(regs[6]->registers.type, "u32");
}

TEST(PtxDeclarations, ReadsFunctionScopeVariables) {
    const Module m = parse_body(
        "\t.local .align 8 .b8 \t__local_depot3[40];\n"
        "\t// demoted variable\n\t.shared .align 4 .b8 _ZZ1kE2sm[4224];\n"
        "\t.shared .align 4 .u32 _ZZ2kcPiE1s;\n\t.param .b64 p0;");
    const auto vars = statements_of(m.functions.at(0), Statement::Kind::variable);
    ASSERT_EQ(vars.size(), 4u);
    EXPECT_EQ(vars[0]->variable.space, Space::local);
    EXPECT_EQ(vars[0]->variable.name, "__local_depot3");
    EXPECT_EQ(vars[0]->variable.dims, std::vector<std::uint64_t>{40});
    EXPECT_EQ(vars[1]->variable.space, Space::shared);
    EXPECT_EQ(vars[1]->source_line, 7);
    EXPECT_EQ(vars[2]->variable.type, "u32");
    EXPECT_TRUE(vars[2]->variable.dims.empty());
    EXPECT_EQ(vars[3]->variable.space, Space::param);
}

TEST(PtxDeclarations, KeepsScopesWithShadowingDeclarationsOfCallSequences) {
    const Module m = parse_body(
        "\t.reg .pred %p1;\n"
        "\t{ // callseq 0, 0\n\t.reg .b32 temp_param_reg;\n\t.param .b64 param0;\n\tst.param.b64 \t[param0+0], %rd1;\n"
        "\t} // callseq 0\n"
        "\t{ // callseq 1, 0\n\t.param .b64 param0;\n\t{ .reg .pred %p1; setp.ne.u32 %p1, %r72, 0; }\n\t}\n");
    const Function& f = m.functions.at(0);
    std::vector<Statement::Kind> kinds;
    for (const Statement& s : f.body) kinds.push_back(s.kind);
    using K = Statement::Kind;
    EXPECT_EQ(kinds, (std::vector<K>{K::registers, K::scope_begin, K::registers, K::variable, K::instruction,
                                     K::scope_end, K::scope_begin, K::variable, K::scope_begin, K::registers,
                                     K::instruction, K::scope_end, K::scope_end}));
    EXPECT_EQ(f.body[1].source_line, 6);
    EXPECT_EQ(f.body[5].source_line, 10);
    EXPECT_EQ(f.body[9].registers.name, "%p1");
}
