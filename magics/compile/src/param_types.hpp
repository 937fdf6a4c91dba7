// How a parameter's tokens become a Param (its type, name and kind) and a declaration becomes
// the signature text users see; the type vocabulary the kernel signature scanner shares.
#pragma once

#include "cpp_tokens.hpp"
#include "xcuda/compile/kernel_decl.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile::detail {

// The words of C++'s built-in types ("unsigned", "int", "auto", ...).
bool is_builtin_word(const std::string& word);

// Joins tokens the way people write types: "const float* __restrict__", "Vec<float, 4>".
std::string join(const std::vector<std::string>& tokens);

// The texts of tokens [b, e).
std::vector<std::string> texts(const std::vector<Token>& tokens, std::size_t b, std::size_t e);

// Splits at top-level commas (outside (), [], {}, <>); no parts for no tokens.
std::vector<std::vector<std::string>> split_commas(const std::vector<std::string>& tokens);

// The token texts of `text`.
std::vector<std::string> word_tokens(std::string_view text);

// Classifies `type` (tokens of a parameter type, no name) into p's kind, scalar and pointee.
void classify(Param& p, const std::vector<std::string>& type);

// A Param from the tokens of one parameter ("const float* __restrict__ x = nullptr").
Param make_param(const std::vector<std::string>& tokens);

// "template <typename T> void axpy(T a, const T* x)", or with d.template_args the instantiation's
// "void axpy<float>(float a, const float* x)"; `ret` is the return type.
std::string build_signature(const KernelDecl& d, const std::string& ret);

// What the template arguments `args` of `name` bind: every parameter's argument (trailing ones
// missing take their defaults) and, by parameter name, what it stands for. Throws
// std::invalid_argument ("axpy<...> takes 1 to 2 template argument(s), 3 given; write it like
// axpy<float>") when `params` are not a template's (`is_template` false) or the count does not fit.
struct TemplateBinding {
    std::vector<std::string> args;
    std::map<std::string, std::string> by_name;
};
TemplateBinding bind_template_args(const std::vector<TemplateParam>& params, bool is_template,
                                   const std::vector<std::string>& args, const std::string& name,
                                   const std::string& example_args);

}  // namespace xcuda::compile::detail
