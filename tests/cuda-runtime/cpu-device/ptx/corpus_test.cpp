// Real NVRTC output: each corpus program compiled with -lineinfo for compute_90 and sm_90, its
// PTX parsed, its kernels found with their parameters, and every .loc pointing at a .file.
// PtxCorpusFiles parses a directory of PTX files named by XCUDA_PTX_CORPUS_DIR (the census's
// corpus: bench/cpu-device/ptx_census.py --keep-ptx DIR).
#include "corpus_kernels.hpp"
#include "ptx_test_util.hpp"

#include <xcuda/rt/compiler.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace xcuda::cpu::ptx;
using namespace xcuda::cpu::ptx::test;

namespace {

std::string describe_params(const std::vector<Variable>& params) {
    std::string out;
    for (const Variable& v : params) {
        out += (out.empty() ? "" : " ") + v.type;
        if (!v.dims.empty()) out += "[" + std::to_string(v.dims[0]) + "]";
    }
    return out;
}

std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : " ") + p;
    return out;
}

// The lines around a parse error, for the failure message.
std::string context(const std::string& text, int line) {
    std::istringstream in(text);
    std::string out, l;
    for (int n = 1; std::getline(in, l); ++n) {
        if (n >= line - 3 && n <= line + 1) out += std::to_string(n) + (n == line ? " >> " : "    ") + l + "\n";
    }
    return out;
}

// Every statement's loc names a .file, and a kernel's inlined code leads back to its own file.
void expect_locs_resolve(const Module& m, const std::string& program_file) {
    int program_index = 0;
    for (const auto& [index, name] : m.files) {
        if (name.size() >= program_file.size() &&
            name.compare(name.size() - program_file.size(), std::string::npos, program_file) == 0) {
            program_index = index;
        }
    }
    ASSERT_NE(program_index, 0) << "no .file names " << program_file;
    for (const Function& f : m.functions) {
        for (const Instruction* ins : instructions(f)) {
            if (ins->loc.file == 0) continue;
            EXPECT_EQ(m.files.count(ins->loc.file), 1u) << f.name << " line " << ins->source_line;
            for (const Loc::Site& site : ins->loc.inlined_at) {
                EXPECT_EQ(m.files.count(site.file), 1u) << f.name << " line " << ins->source_line;
            }
            if (f.is_entry && !ins->loc.inlined_at.empty()) {
                EXPECT_EQ(ins->loc.inlined_at.back().file, program_index)
                    << f.name << ": the chain of PTX line " << ins->source_line << " stops outside " << program_file;
            }
        }
    }
}

class PtxCorpus : public ::testing::TestWithParam<std::tuple<std::size_t, std::string>> {};

}  // namespace

TEST_P(PtxCorpus, NvrtcOutputParsesWithItsKernelsAndLines) {
    const auto& [index, arch] = GetParam();
    const CorpusProgram& program = corpus_programs().at(index);
    xcuda::rt::CompileOptions options;
    options.program_name = program.name + ".cu";
    options.arch = arch;
    options.options = {"-lineinfo", "-std=c++17"};
    for (const CorpusKernel& k : program.kernels) {
        if (k.name_expression) options.name_expressions.push_back(k.name);
    }
    const xcuda::rt::CompileResult compiled = xcuda::rt::compile(program.source, options);

    Module m;
    try {
        m = parse(compiled.ptx);
    } catch (const ParseError& e) {
        FAIL() << e.what() << "\n" << context(compiled.ptx, e.line());
    }
    EXPECT_EQ(m.target, "sm_90");
    EXPECT_GE(m.version_major, 8);
    EXPECT_EQ(m.address_size, 64);
    for (const CorpusKernel& k : program.kernels) {
        const std::string name = k.name_expression ? compiled.lowered_names.at(k.name) : k.name;
        const Function* kernel = nullptr;
        for (const Function& f : m.functions) {
            if (f.name == name && f.is_entry) kernel = &f;
        }
        ASSERT_NE(kernel, nullptr) << "no .entry " << name << " (" << k.name << ")";
        EXPECT_TRUE(kernel->has_body) << name;
        // NVRTC makes template instantiations .weak, other kernels .visible.
        EXPECT_TRUE(kernel->is_visible || kernel->is_weak) << name;
        EXPECT_EQ(describe_params(kernel->params), join(k.params)) << name;
        EXPECT_FALSE(instructions(*kernel).empty()) << name;
    }
    for (const Function& f : m.functions) {
        if (f.has_body) {
            EXPECT_FALSE(instructions(f).empty()) << f.name;
        }
    }
    expect_locs_resolve(m, options.program_name);
}

INSTANTIATE_TEST_SUITE_P(Nvrtc, PtxCorpus,
                         ::testing::Combine(::testing::Range<std::size_t>(0, corpus_programs().size()),
                                            ::testing::Values("compute_90", "sm_90")),
                         [](const ::testing::TestParamInfo<PtxCorpus::ParamType>& info) {
                             return corpus_programs().at(std::get<0>(info.param)).name + "_" + std::get<1>(info.param);
                         });

TEST(PtxCorpusFiles, ParsesEveryPtxFileOfXcudaPtxCorpusDir) {
    const char* dir = std::getenv("XCUDA_PTX_CORPUS_DIR");
    if (!dir || !*dir) GTEST_SKIP() << "XCUDA_PTX_CORPUS_DIR is not set";
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        if (entry.path().extension() != ".ptx") continue;
        ++files;
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        try {
            parse(text.str());
        } catch (const ParseError& e) {
            ADD_FAILURE() << entry.path() << ": " << e.what() << "\n" << context(text.str(), e.line());
        }
    }
    EXPECT_GT(files, 0) << "no .ptx files under " << dir;
    RecordProperty("files", files);
}
