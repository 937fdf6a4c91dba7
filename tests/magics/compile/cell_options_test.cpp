#include "xcuda/compile/cell_options.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;

namespace {

std::string error_of(std::string_view line) {
    try {
        parse_cell_options(line);
    } catch (const ParseError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(CellOptions, EmptyLineGivesTheDefaults) {
    CellOptions o = parse_cell_options("");
    EXPECT_EQ(o.std, "c++17");
    EXPECT_TRUE(o.arch.empty());
    EXPECT_FALSE(o.ptx || o.sass || o.resources || o.fast_math || o.lineinfo || o.no_cache || o.help);
    EXPECT_EQ(nvrtc_options(o), (std::vector<std::string>{"-std=c++17"}));
}

TEST(CellOptions, ParsesEveryOption) {
    CellOptions o = parse_cell_options(
        "-n mod --arch sm_80 --std c++20 -I /opt/inc -I\"/my dir\" -D N=4 -DDEBUG "
        "--instantiate 'axpy<float>' --instantiate \"axpy<double>\" --ptx --sass --resources "
        "--fast-math --lineinfo --no-cache -- -G --extra-device-vectorization");
    EXPECT_EQ(o.name, "mod");
    EXPECT_EQ(o.arch, "sm_80");
    EXPECT_EQ(o.std, "c++20");
    EXPECT_EQ(o.include_dirs, (std::vector<std::string>{"/opt/inc", "/my dir"}));
    EXPECT_EQ(o.defines, (std::vector<std::string>{"N=4", "DEBUG"}));
    EXPECT_EQ(o.instantiate, (std::vector<std::string>{"axpy<float>", "axpy<double>"}));
    EXPECT_TRUE(o.ptx && o.sass && o.resources && o.fast_math && o.lineinfo && o.no_cache);
    EXPECT_EQ(o.nvrtc_extra, (std::vector<std::string>{"-G", "--extra-device-vectorization"}));
    EXPECT_EQ(nvrtc_options(o),
              (std::vector<std::string>{"-std=c++20", "-DN=4", "-DDEBUG", "-I/opt/inc", "-I/my dir", "-use_fast_math",
                                        "-lineinfo", "-G", "--extra-device-vectorization"}));
}

TEST(CellOptions, AcceptsEqualsFormsAndLongName) {
    CellOptions o = parse_cell_options("--name=m --arch=sm_90a --std=c++14 -h");
    EXPECT_EQ(o.name, "m");
    EXPECT_EQ(o.arch, "sm_90a");
    EXPECT_EQ(o.std, "c++14");
    EXPECT_TRUE(o.help);
    EXPECT_TRUE(parse_cell_options("--help").help);
    EXPECT_EQ(parse_cell_options("--arch compute_90").arch, "compute_90");
}

TEST(CellOptions, UnknownOptionSaysHowToListThem) {
    EXPECT_EQ(error_of("--foo"), "unknown option --foo; run %%cuda -h for the options");
    EXPECT_EQ(error_of("-x"), "unknown option -x; run %%cuda -h for the options");
    EXPECT_EQ(error_of("--ptx=yes"), "--ptx takes no value; write --ptx alone");
}

TEST(CellOptions, MissingValueGivesAnExample) {
    EXPECT_EQ(error_of("--arch"), "--arch needs a value like sm_90; run %%cuda -h for the options");
    EXPECT_EQ(error_of("-n"), "--name needs a value like mymodule; run %%cuda -h for the options");
    EXPECT_EQ(error_of("--instantiate"),
              "--instantiate needs a value like 'axpy<float>'; run %%cuda -h for the options");
    EXPECT_EQ(error_of("--arch="), "--arch needs a value like sm_90; run %%cuda -h for the options");
}

TEST(CellOptions, BadValuesNameTheValueAndTheFix) {
    EXPECT_EQ(error_of("--arch 90"),
              "--arch 90 is not an architecture; write it like sm_90 (or compute_90 for PTX only)");
    EXPECT_EQ(error_of("--arch sm_"),
              "--arch sm_ is not an architecture; write it like sm_90 (or compute_90 for PTX only)");
    EXPECT_NE(error_of("--std c++99").find("--std c++99 is not a C++ standard"), std::string::npos);
    EXPECT_NE(error_of("-D 1X").find("-D 1X does not define a macro"), std::string::npos);
    EXPECT_NE(error_of("-D =3").find("write -D NAME or -D NAME=VALUE"), std::string::npos);
    EXPECT_NE(error_of("--instantiate axpy").find("write it like 'axpy<float>'"), std::string::npos);
}

TEST(CellOptions, SingleValuedOptionsMayNotRepeat) {
    EXPECT_EQ(error_of("--arch sm_80 --arch sm_90"), "--arch given twice; give it once");
    EXPECT_EQ(error_of("--ptx --ptx"), "--ptx given twice; give it once");
}

TEST(CellOptions, StrayWordsPointAtTheDoubleDash) {
    EXPECT_EQ(error_of("-G"), "unknown option -G; run %%cuda -h for the options");
    EXPECT_EQ(error_of("mod"), "unexpected argument 'mod'; run %%cuda -h for the options (NVRTC options go after --)");
}

TEST(CellOptions, ErrorsCarryTheBadToken) {
    try {
        parse_cell_options("--ptx --bogus x");
        FAIL() << "no error";
    } catch (const ParseError& e) {
        EXPECT_EQ(e.token(), "--bogus");
    }
}

TEST(CellOptions, HelpTextListsEveryOption) {
    std::string h = cuda_help_text();
    for (const char* opt : {"-n, --name NAME", "--arch sm_XX", "--std", "-I DIR", "-D NAME[=VALUE]",
                            "--instantiate EXPR", "--ptx", "--sass", "--resources", "--fast-math",
                            "--fast-compile[=LEVEL]", "--lineinfo", "--no-cache", "-h, --help", "-- OPTIONS..."})
        EXPECT_NE(h.find(opt), std::string::npos) << opt << " missing from:\n" << h;
    EXPECT_NE(h.find("(repeatable)"), std::string::npos);
}

TEST(CellOptions, FastCompileIsMaxBareAndALevelAfterEquals) {
    EXPECT_EQ(parse_cell_options("").fast_compile, "");
    EXPECT_EQ(parse_cell_options("--fast-compile").fast_compile, "max");
    EXPECT_EQ(parse_cell_options("--fast-compile=mid").fast_compile, "mid");
    EXPECT_EQ(parse_cell_options("--fast-compile=min --ptx").fast_compile, "min");
    EXPECT_EQ(nvrtc_options(parse_cell_options("--fast-compile --fast-math -- -G")),
              (std::vector<std::string>{"-std=c++17", "-use_fast_math", "--Ofast-compile=max", "-G"}));
    EXPECT_EQ(nvrtc_options(parse_cell_options("--fast-compile=mid")),
              (std::vector<std::string>{"-std=c++17", "--Ofast-compile=mid"}));
}

TEST(CellOptions, FastCompileLevelErrorsSayHowToWriteIt) {
    EXPECT_EQ(
        error_of("--fast-compile=fast"),
        "--fast-compile=fast is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min");
    // the level goes after `=`: the next word is not taken, and the error says so
    EXPECT_EQ(error_of("--fast-compile mid"),
              "unexpected argument 'mid': write --fast-compile=mid (--fast-compile takes its value only after =)");
    EXPECT_EQ(error_of("--fast-compile --fast-compile=mid"), "--fast-compile given twice; give it once");
    EXPECT_EQ(error_of("--fast-compile="), "--fast-compile needs a value like max; run %%cuda -h for the options");
}

TEST(CellOptions, FastCompileNeedsNvrtc129AndSaysSo) {
    CellOptions fast = parse_cell_options("--fast-compile");
    EXPECT_EQ(unsupported_by_nvrtc(fast, 12, 8).value_or(""),
              "--fast-compile needs NVRTC 12.9 or newer (its --Ofast-compile option); this kernel uses NVRTC 12.8: "
              "install CUDA Toolkit 12.9+ (13 recommended) for the kernel, or remove --fast-compile");
    EXPECT_FALSE(unsupported_by_nvrtc(fast, 12, 9));
    EXPECT_FALSE(unsupported_by_nvrtc(fast, 13, 0));
    EXPECT_FALSE(unsupported_by_nvrtc(parse_cell_options(""), 11, 8));
}

TEST(CellOptions, PtxImpliesLineInfoSoTheViewCanShowTheCellsLines) {
    CellOptions o = parse_cell_options("--ptx");
    EXPECT_TRUE(o.lineinfo);
    EXPECT_EQ(nvrtc_options(o), (std::vector<std::string>{"-std=c++17", "-lineinfo"}));
}

namespace {

std::string keyword_error_of(const std::string& keyword, const OptionValue& value) {
    const CellOption* option = find_keyword(keyword);
    if (!option) return "(no keyword " + keyword + ")";
    CellOptions o;
    try {
        option->set(o, value);
    } catch (const ParseError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(CellOptions, KeywordsAreCheckedWithTheMagicLinesMessages) {
    EXPECT_EQ(keyword_error_of("std", std::string("c++99")), error_of("--std c++99"));
    EXPECT_EQ(keyword_error_of("defines", std::vector<std::string>{"N=1", "1X"}), error_of("-D 1X"));
    EXPECT_EQ(keyword_error_of("arch", std::string("90")), error_of("--arch 90"));
    EXPECT_EQ(keyword_error_of("instantiate", std::vector<std::string>{"axpy"}), error_of("--instantiate axpy"));
    EXPECT_EQ(keyword_error_of("fast_compile", std::string("fast")), error_of("--fast-compile=fast"));
    EXPECT_EQ(keyword_error_of("std", std::string("c++20")), "(no error)");
}

TEST(CellOptions, UnknownKeywordListsTheKeywords) {
    EXPECT_EQ(find_keyword("instantiation"), nullptr);
    EXPECT_EQ(find_keyword("ptx"), nullptr) << "display options are the magic's only";
    EXPECT_EQ(find_keyword(""), nullptr);
    EXPECT_EQ(unknown_keyword_message("instantiation"),
              "compile() got an unexpected option instantiation; options: name, arch, std, include_dirs, defines, "
              "instantiate, fast_math, lineinfo, fast_compile, no_cache, options");
}

TEST(CellOptions, AnEmptyTextKeywordIsTheDefault) {
    CellOptions o = parse_cell_options("--std c++20 --fast-compile");
    find_keyword("std")->set(o, std::string());
    find_keyword("fast_compile")->set(o, std::string());
    EXPECT_EQ(o.std, "c++17");
    EXPECT_EQ(o.fast_compile, "");
}

TEST(CellOptions, AValueOfAnotherTypeIsRefused) {
    CellOptions o;
    EXPECT_THROW(find_keyword("std")->set(o, true), std::invalid_argument);
    EXPECT_THROW(find_keyword("fast_math")->set(o, std::string("yes")), std::invalid_argument);
}

TEST(CellOptions, KeywordsGiveBackWhatTheMagicLineSet) {
    CellOptions parsed = parse_cell_options(
        "-n mod --arch sm_80 --std c++20 -I /opt/inc -D N=4 --instantiate 'axpy<float>' --fast-math --lineinfo "
        "--fast-compile=mid --no-cache -- -G");
    CellOptions copied;
    for (const auto& option : cell_option_table()) {
        if (!option.keyword.empty()) option.set(copied, option.get(parsed));
    }
    EXPECT_EQ(nvrtc_options(copied), nvrtc_options(parsed));
    EXPECT_EQ(copied.name, "mod");
    EXPECT_EQ(copied.arch, "sm_80");
    EXPECT_EQ(copied.instantiate, parsed.instantiate);
    EXPECT_TRUE(copied.no_cache);
}

TEST(CellOptions, KeywordHelpNamesEachKeywordWithItsMagicSpelling) {
    std::string h = keyword_help();
    for (const char* line : {"  name (%%cuda --name): ", "  defines (%%cuda -D): ", "  options (%%cuda --): ",
                             "  fast_compile (%%cuda --fast-compile): "}) {
        EXPECT_NE(h.find(line), std::string::npos) << line << " missing from:\n" << h;
    }
    EXPECT_EQ(h.find("--ptx"), std::string::npos);
}

TEST(CellOptions, ExerciseNamesWhatToGradeAndIsNoCompileKeyword) {
    const CellOptions o = parse_cell_options("--exercise affine -q");
    EXPECT_EQ(o.exercise, "affine");
    EXPECT_TRUE(o.quiet);
    EXPECT_EQ(find_keyword("exercise"), nullptr);
    EXPECT_EQ(nvrtc_options(o), nvrtc_options(parse_cell_options("-q")));
}

TEST(CellOptions, RelocatableCodeIsAskedForByTheUsualSpellings) {
    for (const char* line : {"-- -G -dc", "-- -rdc=true", "-- --relocatable-device-code=true", "-- --device-c"})
        EXPECT_TRUE(parse_cell_options(line).relocatable) << line;
    EXPECT_FALSE(parse_cell_options("-- -rdc=false").relocatable);
    // only the words after `--` are NVRTC's: a macro or include dir spelled like one is not
    EXPECT_FALSE(parse_cell_options("-D dc -I dc").relocatable);
}

TEST(CellOptions, PchSaysWhoseDirectoryHoldsThePrecompiledHeaders) {
    EXPECT_EQ(parse_cell_options("").pch, PchMode::off);
    EXPECT_EQ(parse_cell_options("-- -pch").pch, PchMode::private_dir);
    EXPECT_EQ(parse_cell_options("-- --pch").pch, PchMode::private_dir);
    EXPECT_EQ(parse_cell_options("-- -pch --pch-dir=/mine").pch, PchMode::named_dir);
    EXPECT_EQ(parse_cell_options("-- --pch-dir /mine -pch").pch, PchMode::named_dir);
    EXPECT_EQ(parse_cell_options("-- --pch-dir=/mine").pch, PchMode::named_dir);
}

TEST(CellOptions, MinimalIsTheCellsOwnRequest) {
    EXPECT_FALSE(parse_cell_options("").minimal);
    EXPECT_TRUE(parse_cell_options("-- -minimal").minimal);
    EXPECT_TRUE(parse_cell_options("-- --minimal").minimal);
}

TEST(CellOptions, TheOptionsKeywordAndSetNvrtcExtraReadTheModesAgain) {
    CellOptions o = parse_cell_options("-- -dc -pch -minimal");
    find_keyword("options")->set(o, std::vector<std::string>{"-G"});
    EXPECT_FALSE(o.relocatable || o.minimal);
    EXPECT_EQ(o.pch, PchMode::off);
    o.set_nvrtc_extra({"-rdc=true", "--pch-dir=/d"});
    EXPECT_TRUE(o.relocatable);
    EXPECT_EQ(o.pch, PchMode::named_dir);
    EXPECT_EQ(o.nvrtc_extra, (std::vector<std::string>{"-rdc=true", "--pch-dir=/d"}));
}
