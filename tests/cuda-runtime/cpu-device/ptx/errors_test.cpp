// Syntax errors: each names the PTX line and what was expected there.
#include "ptx_test_util.hpp"

using namespace xcuda::cpu::ptx;
using namespace xcuda::cpu::ptx::test;

namespace {

// The body's first line is line 5 of the text (parse_body's wrapping).
std::string body_error(const std::string& body, int* line = nullptr) {
    return parse_error(module_header() + ".visible .entry k() {\n" + body + "\n}\n", line);
}

}  // namespace

TEST(PtxErrors, MissingSemicolonNamesTheInstructionAndWhatFollows) {
    int line = 0;
    const std::string message = body_error("\tmov.u32 %r1, 1;\n\tld.global.u32 %r2, [%rd1]\n\tret;", &line);
    EXPECT_EQ(line, 7);
    EXPECT_EQ(message, "PTX line 7: expected ',' or ';' after operand 2 of 'ld.global.u32', found 'ret'");
}

TEST(PtxErrors, ParseErrorCarriesItsLine) {
    const ParseError e(12, "expected ';' after something");
    EXPECT_EQ(e.line(), 12);
    EXPECT_STREQ(e.what(), "PTX line 12: expected ';' after something");
}

TEST(PtxErrors, UnclosedBodyNamesTheFunctionAndWhereItOpened) {
    int line = 0;
    const std::string message = parse_error(module_header() + ".visible .entry k()\n{\n\tret;\n", &line);
    EXPECT_EQ(message, "PTX line 7: expected '}' closing the body of 'k' opened on line 5, found the end of the text");
    EXPECT_EQ(line, 7);
}

TEST(PtxErrors, UnclosedBracketInAnAddress) {
    int line = 0;
    const std::string message = body_error("\tld.u32 %r1, [%rd1+4;", &line);
    EXPECT_EQ(line, 5);
    EXPECT_EQ(message, "PTX line 5: expected ']' closing the '[' in 'ld', found ';'");
}

TEST(PtxErrors, BadOperand) {
    EXPECT_EQ(body_error("\tadd.s32 %r1, %r2, ];"), "PTX line 5: expected an operand of 'add', found ']'");
    EXPECT_EQ(body_error("\tadd.s32 %r1, %r2.q, 1;"),
              "PTX line 5: expected a vector component (.x, .y, .z, .w) after '%r2' in 'add', found '.q'");
    EXPECT_EQ(body_error("\tmov.b64 %rd1, {%r2, %r3;"),
              "PTX line 5: expected '}' or ',' closing the '{' opened on line 5 in 'mov', found ';'");
}

TEST(PtxErrors, MalformedNumbers) {
    EXPECT_EQ(body_error("\tmov.f32 %f1, 0f3F80;"), "PTX line 5: malformed number '0f3F80'");
    EXPECT_EQ(body_error("\n\tmov.u32 %r1, 0x;"), "PTX line 6: malformed number '0x'");
    EXPECT_EQ(body_error("\tmov.u32 %r1, 09;"), "PTX line 5: malformed number '09'");
    EXPECT_EQ(body_error("\tmov.u64 %rd1, 99999999999999999999;"),
              "PTX line 5: malformed number '99999999999999999999'");
}

TEST(PtxErrors, StatementsThatAreNotInstructions) {
    EXPECT_EQ(body_error("\t%r1 = 3;"), "PTX line 5: expected an instruction or a label, found '%r1'");
    EXPECT_EQ(body_error("\t42;"),
              "PTX line 5: expected an instruction, a label, a declaration or '}' in the body of 'k', found '42'");
    EXPECT_EQ(body_error("\t@!;"), "PTX line 5: expected a predicate register after '@', found ';'");
}

TEST(PtxErrors, BadDeclarations) {
    EXPECT_EQ(body_error("\t.reg %r<4>;"),
              "PTX line 5: expected a type (.b32, .f32, .pred, ...) in the .reg declaration, found '%r'");
    EXPECT_EQ(body_error("\t.reg .b32 %r<x>;"), "PTX line 5: expected a register count after '%r<', found 'x'");
    EXPECT_EQ(body_error("\t.reg .b32 %r<4>"),
              "PTX line 6: expected ';' after the .reg declaration of '%r', found '}'");
    EXPECT_EQ(parse_error(module_header() + ".global .u32 .f32 x;"),
              "PTX line 4: unexpected '.f32' in a .global declaration of type .u32: expected a name");
    EXPECT_EQ(parse_error(module_header() + ".global .b8 x[4] = {1, 2;"),
              "PTX line 4: expected '}' or ',' in the initializer of 'x' opened on line 4, found ';'");
    EXPECT_EQ(parse_error(module_header() + ".global .b8 x[4] = {1, 2}\n.global .u32 y;"),
              "PTX line 5: expected ';' after the declaration of 'x', found '.global'");
    EXPECT_EQ(parse_error(module_header() + ".visible .texture t;"),
              "PTX line 4: expected .entry, .func or a state space (.global, .shared, ...) after the linkage, found "
              "'.texture'");
}

TEST(PtxErrors, BadFunctionHeaders) {
    EXPECT_EQ(parse_error(module_header() + ".entry k(.param .u32 a .param .u32 b) { ret; }"),
              "PTX line 4: expected ')' after the last parameter of 'k', found '.param'");
    EXPECT_EQ(parse_error(module_header() + ".entry k(.shared .u32 a) { ret; }"),
              "PTX line 4: expected '.param' or '.reg' to start a parameter of 'k', found '.shared'");
    EXPECT_EQ(parse_error(module_header() + ".entry k() .maxntid 1, 2, 3, 4 { ret; }"),
              "PTX line 4: more than 3 dimensions after .maxntid of 'k'");
    EXPECT_EQ(parse_error(module_header() + ".entry k() .maxntid x { ret; }"),
              "PTX line 4: expected a dimension after .maxntid of 'k', found 'x'");
    EXPECT_EQ(parse_error(module_header() + ".entry k() ret; }"),
              "PTX line 4: expected '{' or ';' after the declaration of 'k', found 'ret'");
    EXPECT_EQ(parse_error(module_header() + ".entry (.param .u32 a) { ret; }"),
              "PTX line 4: expected the name of the .entry, found '('");
}

TEST(PtxErrors, BadModuleDirectives) {
    EXPECT_EQ(parse_error(".version nine\n"),
              "PTX line 1: expected a version MAJOR.MINOR after .version, found 'nine'");
    EXPECT_EQ(parse_error(".version 9.0\n.target\n"),
              "PTX line 3: expected a target (sm_90, ...) after .target, found the end of the text");
    EXPECT_EQ(parse_error(module_header() + ".file 1 name.cu\n"),
              "PTX line 4: expected a quoted file name after .file 1, found 'name.cu'");
    EXPECT_EQ(parse_error(module_header() + "mov.u32 %r1, 1;\n"),
              "PTX line 4: expected a directive at module scope (.version, .target, .entry, .func, a variable), found "
              "'mov.u32'");
    EXPECT_EQ(parse_error(module_header() + ".section .debug_str\n{\n.b8 1\n"),
              "PTX line 5: '{' without a closing '}'");
}

TEST(PtxErrors, BadLocDirectives) {
    EXPECT_EQ(body_error("\t.loc 1 2\n\tret;"), "PTX line 6: expected a column after .loc 1 2, found 'ret'");
    EXPECT_EQ(body_error("\t.loc 1 2 3, discriminator 4\n\tret;"),
              "PTX line 5: expected function_name or inlined_at after ',' in .loc, found 'discriminator'");
    EXPECT_EQ(body_error("\t.loc 1 2 3, inlined_at 1 2\n\tret;"),
              "PTX line 6: expected a column after inlined_at, found 'ret'");
}

TEST(PtxErrors, LexicalErrors) {
    int line = 0;
    EXPECT_EQ(body_error("\tmov.u32 %r1, 1;\n\t/* never closed\n\tret;", &line),
              "PTX line 6: unterminated comment: '/*' without a closing '*/'");
    EXPECT_EQ(line, 6);
    EXPECT_EQ(body_error("\t.pragma \"nounroll;\n\tret;"),
              "PTX line 5: unterminated string: '\"' without a closing '\"' on its line");
    EXPECT_EQ(body_error("\tmov.u32 %r1, #3;"), "PTX line 5: unexpected character '#'");
}

TEST(PtxErrors, UnterminatedCallPrototypeNamesItsLine) {
    EXPECT_EQ(body_error("\tproto: .callprototype (.param .b32 _) _ (.param .b64 _)\n\t}"),
              "PTX line 5: expected ';' ending .callprototype 'proto', found '}'");
}

TEST(PtxErrors, BoundsNestingInsteadOfExhaustingTheStack) {
    EXPECT_EQ(body_error("\tmov.b32 %r1, " + std::string(100000, '{') + "%r2;"),
              "PTX line 5: operands of 'mov' nested deeper than 16");
    EXPECT_EQ(parse_error(module_header() + ".global .u32 x[1] = " + std::string(100000, '{') + "1;"),
              "PTX line 4: initializer of 'x' nested deeper than 16 braces");
}
