// Reading a CUBIN (an ELF file) without the toolkit's binary utilities, which CI machines and
// users' environments often lack.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace xcuda::rt {

// The machine code of kernel `mangled_name` (its .text.<name> section), viewing into `cubin`;
// nullopt when the CUBIN has no such section or is not a well-formed 64-bit ELF.
std::optional<std::string_view> function_machine_code(std::string_view cubin, std::string_view mangled_name);

// Registers per kernel (mangled name), as ptxas allocated them: the CUBIN's EIATTR_REGCOUNT
// attributes. Empty for an image that is not a well-formed CUBIN.
std::map<std::string, int> kernel_register_counts(std::string_view cubin);

}  // namespace xcuda::rt
