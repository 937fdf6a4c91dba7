#include "xcuda/compile/option_parser.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;

namespace {

std::vector<std::string> words(std::string_view line) {
    std::vector<std::string> v;
    for (auto& t : split_words(line)) v.push_back(t.text);
    return v;
}

std::string error_of(std::string_view line, const CommandSpec& spec) {
    try {
        parse_args(line, spec);
    } catch (const ParseError& e) {
        return e.what();
    }
    return "(no error)";
}

CommandSpec timeit_spec() {
    CommandSpec s;
    s.magic = "%cuda_timeit";
    s.usage = "%cuda_timeit [-r N] STMT";
    s.description = "Times STMT on the GPU.";
    s.options = {{"-r", "--repeat", "N", "repetitions", false, {}, "10"}};
    s.positionals = Positionals::rest;
    s.positional_name = "STMT";
    return s;
}

}  // namespace

TEST(SplitWords, SplitsOnAnyWhitespace) {
    EXPECT_EQ(words("  -n  mod\t--ptx \n"), (std::vector<std::string>{"-n", "mod", "--ptx"}));
    EXPECT_TRUE(words("   ").empty());
}

TEST(SplitWords, SingleQuotesKeepEverythingLiteral) {
    EXPECT_EQ(words("--instantiate 'axpy<float, 4>'"), (std::vector<std::string>{"--instantiate", "axpy<float, 4>"}));
    EXPECT_EQ(words("'a\\b'"), (std::vector<std::string>{"a\\b"}));
}

TEST(SplitWords, DoubleQuotesHonourBackslashQuoteAndBackslash) {
    EXPECT_EQ(words("-D \"MSG=\\\"hi there\\\"\""), (std::vector<std::string>{"-D", "MSG=\"hi there\""}));
    EXPECT_EQ(words("\"a b\"c'd e'"), (std::vector<std::string>{"a bcd e"}));
}

TEST(SplitWords, BackslashEscapesTheNextCharacterOutsideQuotes) {
    EXPECT_EQ(words("a\\ b c"), (std::vector<std::string>{"a b", "c"}));
}

TEST(SplitWords, ReportsUnterminatedQuotesAndATrailingBackslash) {
    EXPECT_THROW(split_words("--instantiate 'axpy<float>"), ParseError);
    EXPECT_THROW(split_words("-D \"X=1"), ParseError);
    EXPECT_THROW(split_words("abc \\"), ParseError);
    try {
        split_words("-n 'oops");
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("unterminated ' quote"), std::string::npos) << e.what();
        EXPECT_EQ(e.token(), "'oops");
    }
}

TEST(SplitWords, RecordsWhereEachWordStarts) {
    auto t = split_words("-r 3  f(x, 'y')");
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t[2].offset, 6u);
}

TEST(ParseArgs, RestPositionalKeepsTheRawStatement) {
    auto a = parse_args("-r 5 kern[1, 32](x, 'a b')  ", timeit_spec());
    EXPECT_EQ(a.value("--repeat"), "5");
    EXPECT_EQ(a.rest, "kern[1, 32](x, 'a b')");
}

TEST(ParseArgs, UnknownOptionNamesItAndTheHelp) {
    EXPECT_EQ(error_of("--foo kern()", timeit_spec()), "unknown option --foo; run %cuda_timeit -h for the options");
}

TEST(ParseArgs, WordsPositionalsAreCollected) {
    CommandSpec s = timeit_spec();
    s.positionals = Positionals::words;
    auto a = parse_args("info -r 2 extra", s);
    EXPECT_EQ(a.positionals, (std::vector<std::string>{"info", "extra"}));
}

TEST(ParseArgs, FormatHelpListsEveryOption) {
    std::string h = format_help(timeit_spec());
    EXPECT_NE(h.find("Usage: %cuda_timeit [-r N] STMT"), std::string::npos) << h;
    EXPECT_NE(h.find("-r, --repeat N"), std::string::npos) << h;
}

TEST(ParseArgs, AnOptionalValueIsImplicitBareAndOnlyEverGivenAfterEquals) {
    CommandSpec s = timeit_spec();
    s.options.push_back({"", "--level", "L", "how hard", false, {}, "max", "max"});
    EXPECT_EQ(parse_args("--level kern()", s).value("--level"), "max");
    auto a = parse_args("--level=mid kern()", s);
    EXPECT_EQ(a.value("--level"), "mid");
    EXPECT_EQ(a.rest, "kern()");
    // the word after a bare --level is the statement, not its value
    EXPECT_EQ(parse_args("--level mid", s).rest, "mid");
    EXPECT_NE(format_help(s).find("--level[=L]"), std::string::npos) << format_help(s);
}
