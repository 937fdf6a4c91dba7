// Reading a CUBIN (an ELF file) without the toolkit's binary utilities, which CI machines and
// users' environments often lack.
#pragma once

#include <optional>
#include <string_view>

namespace xcuda::rt {

// The machine code of kernel `mangled_name` (its .text.<name> section), viewing into `cubin`;
// nullopt when the CUBIN has no such section or is not a well-formed 64-bit ELF.
std::optional<std::string_view> function_machine_code(std::string_view cubin, std::string_view mangled_name);

}  // namespace xcuda::rt
