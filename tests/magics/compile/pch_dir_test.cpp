// The private directory for NVRTC's precompiled headers: made per process, removed with its
// owner, and swept by the next process when its own process is gone.
#include "xcuda/compile/pch_dir.hpp"

#include "temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

using namespace xcuda::compile;
namespace fs = std::filesystem;

namespace {

// The pid of a process that has ended (a child reaped here).
pid_t ended_pid() {
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
}

fs::path make_dir_with_a_file(const fs::path& dir) {
    fs::create_directories(dir);
    std::ofstream(dir / "header.pch") << "precompiled";
    return dir;
}

}  // namespace

TEST(PchDir, IsAPrivateDirectoryNamingThisProcessRemovedWithItsOwner) {
    TempDir tmp;
    fs::path made;
    {
        auto dir = PchDir::make(tmp.path() / "cache");
        ASSERT_TRUE(dir);
        made = dir->path();
        EXPECT_EQ(made.parent_path(), tmp.path() / "cache");
        EXPECT_EQ(made.filename().string().rfind("pch-" + std::to_string(::getpid()) + "-", 0), 0u) << made;
        EXPECT_EQ(fs::status(made).permissions() & fs::perms::all, fs::perms::owner_all);
        make_dir_with_a_file(made);  // what NVRTC leaves until its exit
        PchDir moved = std::move(*dir);
        EXPECT_TRUE(fs::exists(made)) << "a move must not remove it";
    }
    EXPECT_FALSE(fs::exists(made));
}

TEST(PchDir, WithoutACacheDirectoryItGoesUnderTheTemporaryDirectory) {
    auto dir = PchDir::make(std::nullopt);
    ASSERT_TRUE(dir);
    EXPECT_EQ(dir->path().parent_path(), fs::temp_directory_path());
    EXPECT_EQ(dir->path().filename().string().rfind("xcuda-pch-", 0), 0u) << dir->path();
}

TEST(PchDir, TheDirectoriesOfEndedProcessesAreSweptAndNothingElse) {
    TempDir tmp;
    const fs::path cache = tmp.path();
    const fs::path abandoned = make_dir_with_a_file(cache / ("pch-" + std::to_string(ended_pid()) + "-a1b2c3"));
    const fs::path running = make_dir_with_a_file(cache / ("pch-" + std::to_string(::getppid()) + "-d4e5f6"));
    const fs::path own = make_dir_with_a_file(cache / ("pch-" + std::to_string(::getpid()) + "-g7h8i9"));
    const fs::path older_name = make_dir_with_a_file(cache / "pch-XyZ123");  // no pid: left alone
    const fs::path entry = cache / "0f46.xcc";
    std::ofstream(entry) << "a cache entry";

    EXPECT_EQ(remove_abandoned_pch_dirs(cache), 1);
    EXPECT_FALSE(fs::exists(abandoned));
    EXPECT_TRUE(fs::exists(running / "header.pch"));
    EXPECT_TRUE(fs::exists(own / "header.pch"));
    EXPECT_TRUE(fs::exists(older_name / "header.pch"));
    EXPECT_TRUE(fs::exists(entry));

    const fs::path another = make_dir_with_a_file(cache / ("pch-" + std::to_string(ended_pid()) + "-j0k1l2"));
    auto dir = PchDir::make(cache);  // making one sweeps first
    ASSERT_TRUE(dir);
    EXPECT_FALSE(fs::exists(another));
    EXPECT_TRUE(fs::exists(running));
}

TEST(PchDir, AMissingCacheDirectorySweepsNothing) {
    TempDir tmp;
    EXPECT_EQ(remove_abandoned_pch_dirs(tmp.path() / "not-there"), 0);
}
