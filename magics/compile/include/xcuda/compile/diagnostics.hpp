// NVRTC's log, mapped back to the cell's own lines and columns, and the text a user sees.
#pragma once

#include "xcuda/rt/errors.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

enum class Severity { error, warning, remark, note };

struct Diagnostic {
    Severity severity = Severity::error;
    std::string file;               // "cell_7" (the cell), a header name ("my.h"), or "nvrtc" for
                                    // NVRTC's complaints about options (then line is 0)
    int line = 0;                   // 1-based, in `file`'s own numbering
    int column = 0;                 // 1-based from the caret line; 0 when NVRTC gave no caret
    std::string code;               // "177-D" for "warning #177-D", else ""
    std::string message;            // 'identifier "foo" is undefined', with NVRTC's further lines
                                    // ("operand types are: int + const uint3") after a newline
    std::string source_line;        // the quoted source line, without NVRTC's indentation
    std::vector<Diagnostic> notes;  // NVRTC's "note" lines that follow it, in order
};

// Parses NVRTC's log ("cell_7(3): error: ..." followed by more message lines, the quoted source
// line and a caret line). A note belongs to the diagnostic before it. `source` (the cell,
// optional) makes columns exact when the quoted line is indented differently. Lines that are not
// diagnostics (ptxas info, "1 error detected", remarks) are skipped. Pure; never throws.
std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, std::string_view source = {});

// "cell_7:3:14: error: identifier "foo" is undefined\n    y[i] = foo;\n           ^", then its
// notes (a note on the same line as its diagnostic without the source line again), as nvcc
// prints them.
std::string format_diagnostic(const Diagnostic& d);
// All of them, separated by newlines.
std::string format_diagnostics(const std::vector<Diagnostic>& ds);

// Renames the file `from` to `to` in each diagnostic and note (NVRTC's program name to the cell's
// label).
void relabel(std::vector<Diagnostic>& ds, const std::string& from, const std::string& to);

// The log without ptxas resource lines and NVRTC's summary/remark noise, for display.
std::string user_log(std::string_view log);

// What a cell that did not compile says: its errors (each with its notes), then its warnings; or,
// when NVRTC's log has no error in a form we read, the log itself.
std::string compile_error_text(const std::vector<Diagnostic>& ds, const std::string& log);

// A cell that did not compile. what() is the formatted diagnostics (errors first, as the user
// should read them); log() (from rt::CompileError) is NVRTC's raw log.
class CellCompileError : public rt::CompileError {
public:
    // `cell_label`: the Diagnostic::file of the cell's own diagnostics ("cell_7").
    // `message`: what() when given (a device-link failure explains itself), else the
    // diagnostics formatted.
    CellCompileError(std::string program_name, std::vector<std::string> options, std::string log,
                     std::vector<Diagnostic> diagnostics, const std::string& cell_label, std::string message = {});
    const std::vector<Diagnostic>& diagnostics() const noexcept { return diagnostics_; }
    // Line and column of the first error in the cell (0 when no error is in the cell itself,
    // e.g. it is in a header, or NVRTC gave none).
    int line() const noexcept { return line_; }
    int column() const noexcept { return column_; }
    const char* what() const noexcept override { return message_.c_str(); }

private:
    std::vector<Diagnostic> diagnostics_;
    std::string message_;
    int line_ = 0;
    int column_ = 0;
};

}  // namespace xcuda::compile
