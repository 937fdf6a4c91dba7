// Syntax highlighting shared by the PTX and SASS views: comments, directives, registers,
// opcodes, numbers and labels become <span class="xcuda-asm-*"> (colours in report_css()).
#pragma once

#include <string>
#include <string_view>

namespace xcuda::report {

enum class AsmDialect { ptx, sass };

// One line (no newline) as HTML; every piece of text is escaped.
std::string highlight_asm_line(std::string_view line, AsmDialect dialect);

}  // namespace xcuda::report
