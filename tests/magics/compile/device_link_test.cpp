// Relocatable device code across cells, linked with the real nvJitLink (no GPU needed: the
// linker works offline for sm_90).
#include "xcuda/compile/compile_cell.hpp"
#include "xcuda/compile/device_link.hpp"

#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>

using namespace xcuda::compile;

namespace {

const char* defines_twice = R"(
__device__ int twice(int x) { return 2 * x; }
extern "C" __global__ void child(int* out) { out[threadIdx.x] = twice(threadIdx.x); }
extern "C" __global__ void parent(int* out) { child<<<1, 4>>>(out); }
)";
const char* uses_twice = R"(
__device__ int twice(int x);
extern "C" __global__ void user(int* out) { out[threadIdx.x] = twice(threadIdx.x) + 1; }
)";

struct Session {
    CompileSession session{std::make_shared<CompileCache>(std::nullopt)};
    HeaderRegistry headers;
    CompileOutcome compile(const char* src, const std::string& label, const std::string& line = "-- -dc") {
        CellOptions o = parse_cell_options(line);
        o.arch = "sm_90";
        return session.compile_cell(src, o, headers, label);
    }
};

std::uint16_t elf_type(const std::string& cubin) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, cubin.data(), sizeof eh);
    return eh.e_type;
}

}  // namespace

TEST(DeviceLink, ElfSymbolsOfARelocatableCellListDefinitionsAndNeeds) {
    xcuda::rt::CompileOptions co;
    co.arch = "sm_90";
    co.options = {"-dc"};
    auto rel = xcuda::rt::compile(uses_twice, co);
    auto symbols = elf_symbols(rel.cubin);
    ASSERT_TRUE(symbols);
    EXPECT_TRUE(symbols->defined.count("user"));
    EXPECT_TRUE(symbols->undefined.count("_Z5twicei"));
    EXPECT_FALSE(elf_symbols("not an ELF"));
    for (std::size_t n = 0; n < rel.cubin.size(); n += 97) elf_symbols(std::string_view(rel.cubin).substr(0, n));
}

TEST(DeviceLink, ACellCallsADeviceFunctionDefinedInAnEarlierCell) {
    Session s;
    auto first = s.compile(defines_twice, "cell_1");
    EXPECT_EQ(elf_type(first.module->cubin), ET_EXEC);  // linked, with the device runtime for child<<<>>>
    auto second = s.compile(uses_twice, "cell_2");
    EXPECT_EQ(elf_type(second.module->cubin), ET_EXEC);
    auto symbols = elf_symbols(second.module->cubin);
    ASSERT_TRUE(symbols);
    EXPECT_TRUE(symbols->defined.count("_Z5twicei"));
    EXPECT_TRUE(symbols->defined.count("user"));
}

TEST(DeviceLink, AMissingDefinitionNamesTheFunctionAndTheFix) {
    Session s;
    try {
        s.compile(uses_twice, "cell_4");
        FAIL() << "linked without a definition of twice";
    } catch (const CellCompileError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("cell_4 uses `twice(int)` (_Z5twicei), which no earlier %%cuda -dc cell defines"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("-dc"), std::string::npos);
    }
}

TEST(DeviceLink, TheNewestDefinitionWinsAndEachProviderIsLinkedOnce) {
    DeviceObjects objects;
    xcuda::rt::CompileOptions co;
    co.arch = "sm_90";
    co.options = {"-dc"};
    const std::string old_twice = xcuda::rt::compile("__device__ int twice(int x) { return 2 * x; }", co).cubin;
    const std::string new_twice = xcuda::rt::compile(
                                      "__device__ int twice(int x) { return x + x; }\n"
                                      "__device__ int four(int x) { return twice(twice(x)); }",
                                      co)
                                      .cubin;
    objects.add("cell_1", old_twice, *elf_symbols(old_twice));
    objects.add("cell_2", new_twice, *elf_symbols(new_twice));
    objects.add("cell_3", old_twice, *elf_symbols(old_twice));  // cell_1 re-run: replaces it
    EXPECT_EQ(objects.size(), 2u);
    objects.add("cell_4", new_twice, *elf_symbols(new_twice));  // cell_2 re-run: newest again
    ElfSymbols needs;
    needs.undefined = {"_Z5twicei", "_Z4fouri", "cudaSomethingElse"};
    std::set<std::string> unresolved;
    auto inputs = objects.providers_for(needs, &unresolved);
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(inputs[0].name, "cell_4");
    EXPECT_EQ(unresolved, std::set<std::string>{"cudaSomethingElse"});
}

TEST(DeviceLink, ARerunOfARelocatableCellIsLinkedAgainNotMemoised) {
    Session s;
    s.compile(defines_twice, "cell_1");
    auto a = s.compile(uses_twice, "cell_2");
    auto b = s.compile(uses_twice, "cell_3");
    EXPECT_NE(a.module.get(), b.module.get());
    EXPECT_EQ(s.session.compiler_calls(), 2u);  // the relocatable object itself came from the cache
}
