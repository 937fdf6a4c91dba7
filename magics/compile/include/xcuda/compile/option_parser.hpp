// A table-driven parser for magic lines (`%%cuda -n mod --arch sm_90 -- -G`), shared by every
// magic that takes options. Splits with shell-like quoting by hand: no shell is ever involved.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

// A bad magic line. what() names the bad token and the fix; token() is that token ("" when
// the problem is not one token, e.g. an unterminated quote).
class ParseError : public std::invalid_argument {
public:
    ParseError(std::string token, const std::string& message)
        : std::invalid_argument(message), token_(std::move(token)) {}
    const std::string& token() const noexcept { return token_; }

private:
    std::string token_;
};

// One word of the line after quote removal, and where it started in the line (so a magic
// that takes "the rest of the line" as a statement can cut the raw text there).
struct Token {
    std::string text;
    std::size_t offset = 0;
};

// Splits like a POSIX shell without expansions: whitespace separates words; '...' is literal;
// "..." is literal except \" and \\; a backslash outside quotes escapes the next character.
// Throws ParseError on an unterminated quote or a trailing backslash.
std::vector<Token> split_words(std::string_view line);

struct OptionSpec {
    std::string short_name;   // "-n" or "" (only single-letter short options)
    std::string long_name;    // "--name" or ""; the key in ParsedArgs (short_name when empty)
    std::string metavar;      // "NAME" when the option takes a value, "" for a flag
    std::string help;         // one line for the help text
    bool repeatable = false;  // may appear more than once (values accumulate)
    // Checks a value; returns an error message naming the value and the fix, or nullopt.
    std::function<std::optional<std::string>(const std::string& value)> check;
    std::string example;  // a valid value for messages: "--arch needs a value like sm_90"
    // Set for a long option whose value is optional: the value of a bare `--opt`; a value is
    // then only ever given as `--opt=VALUE` (the next word is never taken).
    std::string implicit_value = {};

    bool takes_value() const { return !metavar.empty(); }
    bool value_optional() const { return !implicit_value.empty(); }
    const std::string& key() const { return long_name.empty() ? short_name : long_name; }
};

// What a magic accepts besides options.
enum class Positionals {
    none,   // any non-option word is an error
    words,  // non-option words are collected in ParsedArgs::positionals
    rest,   // the first non-option word starts the raw rest of the line (%cuda_timeit STMT)
};

struct CommandSpec {
    std::string magic;        // "%%cuda" (used in messages and the help text)
    std::string usage;        // "%%cuda [options] [-- NVRTC options]"
    std::string description;  // first paragraph of the help text
    std::vector<OptionSpec> options;
    Positionals positionals = Positionals::none;
    std::string positional_name;   // "STMT", "NAME" for the help text and messages
    bool passthrough = false;      // words after a bare `--` go to ParsedArgs::passthrough
    std::string passthrough_help;  // the help text's line for them
};

struct ParsedArgs {
    std::map<std::string, std::vector<std::string>> values;  // key() -> values ("" for flags)
    std::vector<std::string> positionals;
    std::string rest;  // Positionals::rest: raw text
    std::vector<std::string> passthrough;

    bool has(const std::string& key) const { return values.count(key) != 0; }
    // Last value given for `key`, or `fallback` when absent.
    std::string value(const std::string& key, const std::string& fallback = {}) const;
    std::vector<std::string> all(const std::string& key) const;
};

// Accepts `--opt VALUE`, `--opt=VALUE`, `-o VALUE`, `-oVALUE` (e.g. -DN=4, -I/dir); for an
// option with an implicit value, `--opt` and `--opt=VALUE` only.
// Throws ParseError ("unknown option --foo; run %%cuda -h for the options",
// "--arch needs a value like sm_90", "--ptx given twice", ...).
ParsedArgs parse_args(std::string_view line, const CommandSpec& spec);

// The help text: usage, description, one aligned line per option.
std::string format_help(const CommandSpec& spec);

}  // namespace xcuda::compile
