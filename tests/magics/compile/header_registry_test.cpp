#include "xcuda/compile/header_registry.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace xcuda::compile;

TEST(HeaderRegistry, SetGetListErase) {
    HeaderRegistry r;
    EXPECT_TRUE(r.empty());
    r.set("b.cuh", "B");
    r.set("a.cuh", "A");
    r.set("a.cuh", "A2");
    EXPECT_EQ(r.get("a.cuh"), "A2");
    EXPECT_FALSE(r.get("c.cuh"));
    EXPECT_EQ(r.list(), (std::vector<std::string>{"a.cuh", "b.cuh"}));
    EXPECT_TRUE(r.erase("b.cuh"));
    EXPECT_FALSE(r.erase("b.cuh"));
}

TEST(HeaderRegistry, RejectsNamesThatCannotBeIncluded) {
    HeaderRegistry r;
    for (const char* bad : {"", "a b.h", "a\".h", "<a.h>"}) EXPECT_THROW(r.set(bad, "x"), std::invalid_argument) << bad;
    EXPECT_NO_THROW(r.set("sub/dir.cuh", "x"));
}

TEST(HeaderRegistry, UsedByFollowsIncludesTransitivelyAndIgnoresComments) {
    HeaderRegistry r;
    r.set("a.cuh", "#include \"b.cuh\"\n");
    r.set("b.cuh", "#  include <a.cuh>\n// loops back, once\n");
    r.set("c.cuh", "unrelated");
    r.set("d.cuh", "commented out");
    auto used =
        r.used_by("#include <cuda_fp16.h>\n// #include \"d.cuh\"\n/* #include \"d.cuh\" */\n#include \"a.cuh\"\n");
    ASSERT_EQ(used.size(), 2u);
    EXPECT_EQ(used[0].first, "a.cuh");
    EXPECT_EQ(used[1].first, "b.cuh");
}

TEST(HeaderRegistry, IncludedNames) {
    EXPECT_EQ(included_names("#include \"x.h\"\n  #include<y.h>\nint a; #include \"z.h\"\n#include \"broken\n"),
              (std::vector<std::string>{"x.h", "y.h"}));
}

TEST(HeaderRegistry, IncludedNamesSeeOnlyWhatThePreprocessorSees) {
    EXPECT_EQ(included_names("const char* open = \"/*\";\n#include \"after_string.h\"\n"
                             "const char* raw = R\"(\n#include \"in_raw_string.h\"\n)\";\n"
                             "#if 0\n#include \"disabled.h\"\n#else\n#include \"enabled.h\"\n#endif\n"
                             "#include \"dir//name.h\" // a comment\n"
                             "/* #include \"c.h\" */ #include \"after_comment.h\"\n"),
              (std::vector<std::string>{"after_string.h", "enabled.h", "dir//name.h", "after_comment.h"}));
}
