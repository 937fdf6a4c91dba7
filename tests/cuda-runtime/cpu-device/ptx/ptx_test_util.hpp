// Helpers of the parser tests: a body wrapped into a module, the instructions of a function.
#pragma once

#include "ptx/parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xcuda::cpu::ptx::test {

inline std::string module_header() { return ".version 8.0\n.target sm_90\n.address_size 64\n"; }

// `body` as the body of `.visible .entry k()`; the body's first line is the PTX text's line 5.
inline Module parse_body(const std::string& body) {
    return parse(module_header() + ".visible .entry k() {\n" + body + "\n}\n");
}

inline std::vector<const Instruction*> instructions(const Function& f) {
    std::vector<const Instruction*> out;
    for (const Statement& s : f.body) {
        if (s.kind == Statement::Kind::instruction) out.push_back(&s.instruction);
    }
    return out;
}

inline std::vector<const Statement*> statements_of(const Function& f, Statement::Kind kind) {
    std::vector<const Statement*> out;
    for (const Statement& s : f.body) {
        if (s.kind == kind) out.push_back(&s);
    }
    return out;
}

// The one instruction of a body that holds exactly one.
inline Instruction only_instruction(const std::string& body) {
    const Module m = parse_body(body);
    const auto ins = instructions(m.functions.at(0));
    if (ins.size() != 1) {
        ADD_FAILURE() << "expected one instruction in: " << body;
        return {};
    }
    return *ins[0];
}

// ParseError's message for `text`, or "" when it parses.
inline std::string parse_error(const std::string& text, int* line = nullptr) {
    try {
        parse(text);
    } catch (const ParseError& e) {
        if (line) *line = e.line();
        return e.what();
    }
    return "";
}

}  // namespace xcuda::cpu::ptx::test
