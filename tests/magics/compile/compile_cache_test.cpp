#include "xcuda/compile/compile_cache.hpp"

#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <thread>

using namespace xcuda::compile;
namespace fs = std::filesystem;

namespace {

std::string key_of(char c) { return std::string(64, c); }

std::shared_ptr<const CachePayload> payload(const std::string& tag) {
    auto p = std::make_shared<CachePayload>();
    p->cubin = "cubin-" + tag + std::string(1000, 'x');
    p->ptx = "ptx-" + tag;
    p->log = "log-" + tag;
    p->lowered_names = {{"&k", "_Z1kv-" + tag}};
    return p;
}

mode_t mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

std::string read_bytes(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST(CompileCache, MemoryHitThenMissForOtherKeys) {
    CompileCache c(std::nullopt);
    CacheLevel level;
    EXPECT_FALSE(c.lookup(key_of('a'), &level));
    EXPECT_EQ(level, CacheLevel::none);
    c.store(key_of('a'), payload("a"));
    auto hit = c.lookup(key_of('a'), &level);
    ASSERT_TRUE(hit);
    EXPECT_EQ(level, CacheLevel::memory);
    EXPECT_EQ(hit->ptx, "ptx-a");
    EXPECT_FALSE(c.lookup(key_of('b')));
    EXPECT_FALSE(c.info().disk_enabled);
}

TEST(CompileCache, DiskRoundTripAcrossCacheObjectsWithPrivatePermissions) {
    TempDir tmp;
    fs::path dir = tmp.path() / "xcuda";
    {
        CompileCache writer(dir);
        writer.store(key_of('a'), payload("a"));
    }
    EXPECT_EQ(mode_of(dir), 0700u);
    EXPECT_EQ(mode_of(dir / (key_of('a') + ".xcc")), 0600u);
    CompileCache reader(dir);  // a restarted kernel: empty memory
    CacheLevel level;
    auto hit = reader.lookup(key_of('a'), &level);
    ASSERT_TRUE(hit);
    EXPECT_EQ(level, CacheLevel::disk);
    EXPECT_EQ(*hit, *payload("a"));
    reader.lookup(key_of('a'), &level);
    EXPECT_EQ(level, CacheLevel::memory);  // promoted
    auto info = reader.info();
    EXPECT_EQ(info.disk_entries, 1u);
    EXPECT_GT(info.disk_bytes, 1000u);
    EXPECT_EQ(info.dir, dir.string());
    EXPECT_TRUE(info.disk_enabled);
}

TEST(CompileCache, DamagedEntriesOnDiskAreMisses) {
    TempDir tmp;
    {
        CompileCache w(tmp.path());
        w.store(key_of('a'), payload("a"));
        w.store(key_of('b'), payload("b"));
        w.store(key_of('c'), payload("c"));
    }
    fs::path a = tmp.path() / (key_of('a') + ".xcc");
    fs::path b = tmp.path() / (key_of('b') + ".xcc");
    fs::path c = tmp.path() / (key_of('c') + ".xcc");
    std::string bytes = read_bytes(a);
    write_bytes(a, bytes.substr(0, bytes.size() / 2));  // truncated
    std::string flipped = read_bytes(b);
    flipped[flipped.size() / 2] ^= 0x40;
    write_bytes(b, flipped);
    fs::copy_file(a.parent_path() / (key_of('b') + ".xcc"), c, fs::copy_options::overwrite_existing);  // other key's bytes
    CompileCache r(tmp.path());
    EXPECT_FALSE(r.lookup(key_of('a')));
    EXPECT_FALSE(r.lookup(key_of('b')));
    EXPECT_FALSE(r.lookup(key_of('c')));
    // and a store afterwards repairs the entry
    r.store(key_of('a'), payload("a2"));
    CompileCache r2(tmp.path());
    auto hit = r2.lookup(key_of('a'));
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->ptx, "ptx-a2");
}

TEST(CompileCache, UnusableDirectoryDegradesToMemoryWithOneWarning) {
    TempDir tmp;
    fs::path file = tmp.path() / "not-a-dir";
    write_bytes(file, "x");
    CompileCache c(file / "xcuda");  // cannot be created: its parent is a file
    c.store(key_of('a'), payload("a"));
    CacheLevel level;
    ASSERT_TRUE(c.lookup(key_of('a'), &level));
    EXPECT_EQ(level, CacheLevel::memory);
    std::string w = c.take_warning();
    EXPECT_NE(w.find("not-a-dir"), std::string::npos) << w;
    EXPECT_NE(w.find("memory only"), std::string::npos) << w;
    EXPECT_EQ(c.take_warning(), "");
    EXPECT_FALSE(c.info().disk_enabled);
}

TEST(CompileCache, FailedWriteDegradesToMemory) {
    TempDir tmp;
    CompileCache c(tmp.path());
    fs::create_directory(tmp.path() / (key_of('a') + ".xcc"));  // rename onto a directory fails
    c.store(key_of('a'), payload("a"));
    EXPECT_TRUE(c.lookup(key_of('a')));
    EXPECT_NE(c.take_warning(), "");
    for (const auto& e : fs::directory_iterator(tmp.path()))
        EXPECT_EQ(e.path().extension(), ".xcc") << "temporary left behind: " << e.path();
}

TEST(CompileCache, ReadOnlyDirectoryDegradesToMemory) {
    if (::geteuid() == 0) GTEST_SKIP() << "running as root: permission bits do not stop root from writing";
    TempDir tmp;
    fs::path dir = tmp.path() / "ro";
    fs::create_directory(dir);
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    CompileCache c(dir);
    c.store(key_of('a'), payload("a"));
    EXPECT_TRUE(c.lookup(key_of('a')));
    EXPECT_NE(c.take_warning(), "");
}

TEST(CompileCache, TwoThreadsWritingTheSameEntryLeaveOneIntactEntry) {
    TempDir tmp;
    CompileCache c1(tmp.path()), c2(tmp.path());
    auto p = payload("same");
    auto writer = [&](CompileCache& c) {
        for (int i = 0; i < 50; ++i) c.store(key_of('d'), p);
    };
    std::thread t1(writer, std::ref(c1)), t2(writer, std::ref(c2));
    std::thread reader([&] {
        for (int i = 0; i < 200; ++i) {
            CompileCache fresh(tmp.path());
            auto got = fresh.lookup(key_of('d'));
            if (got) {
                EXPECT_EQ(*got, *p);  // whole or absent, never torn
            }
        }
    });
    t1.join();
    t2.join();
    reader.join();
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(tmp.path())) {
        ++files;
        EXPECT_EQ(e.path().filename().string(), key_of('d') + ".xcc");
    }
    EXPECT_EQ(files, 1u);
    CompileCache fresh(tmp.path());
    auto got = fresh.lookup(key_of('d'));
    ASSERT_TRUE(got);
    EXPECT_EQ(*got, *p);
}

TEST(CompileCache, ClearEmptiesMemoryAndOnlyItsOwnFiles) {
    TempDir tmp;
    CompileCache c(tmp.path());
    c.store(key_of('a'), payload("a"));
    c.store(key_of('b'), payload("b"));
    c.set_memo(key_of('a'), std::make_shared<int>(1));
    write_bytes(tmp.path() / "keep.txt", "user file");
    EXPECT_EQ(c.info().disk_entries, 2u);
    c.clear();
    EXPECT_FALSE(c.lookup(key_of('a')));
    EXPECT_FALSE(c.memo(key_of('a')));
    auto info = c.info();
    EXPECT_EQ(info.memory_entries, 0u);
    EXPECT_EQ(info.disk_entries, 0u);
    EXPECT_TRUE(fs::exists(tmp.path() / "keep.txt"));
}

TEST(CompileCache, KeysThatAreNotDigestsNeverTouchTheDisk) {
    TempDir tmp;
    CompileCache c(tmp.path());
    c.store("../escape", payload("x"));
    EXPECT_TRUE(c.lookup("../escape"));
    EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(CompileCache, DefaultDirFollowsXdgThenHome) {
    const char* old_xdg = std::getenv("XDG_CACHE_HOME");
    const char* old_home = std::getenv("HOME");
    std::string saved_xdg = old_xdg ? old_xdg : "", saved_home = old_home ? old_home : "";
    ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    EXPECT_EQ(default_cache_dir(), fs::path("/tmp/xdg/xcuda"));
    ::setenv("XDG_CACHE_HOME", "relative", 1);  // the spec says to ignore relative paths
    ::setenv("HOME", "/home/u", 1);
    EXPECT_EQ(default_cache_dir(), fs::path("/home/u/.cache/xcuda"));
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("HOME");
    EXPECT_FALSE(default_cache_dir());
    if (old_xdg) ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
    if (old_home) ::setenv("HOME", saved_home.c_str(), 1);
}
