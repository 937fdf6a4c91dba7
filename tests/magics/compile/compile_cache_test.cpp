#include "xcuda/compile/compile_cache.hpp"

#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <unistd.h>
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
    fs::copy_file(a.parent_path() / (key_of('b') + ".xcc"), c,
                  fs::copy_options::overwrite_existing);  // other key's bytes
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
        EXPECT_TRUE(e.path().extension() == ".xcc" || e.path().filename() == ".hmac-key")
            << "temporary left behind: " << e.path();
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
        if (e.path().filename() == ".hmac-key") continue;
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
    c.set_memo(key_of('a'), std::make_shared<int>(1), 10);
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

namespace {

CacheSettings settings_for(const fs::path& dir, uid_t owner = ::geteuid()) {
    CacheSettings s;
    s.dir = dir;
    s.owner = owner;
    return s;
}

std::size_t entry_files(const fs::path& dir) {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".xcc";
    return n;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(CompileCacheTrust, EntriesAreTaggedUnderAPrivateKeyMadeOnce) {
    TempDir tmp;
    CompileCache(tmp.path()).store(key_of('a'), payload("a"));
    const fs::path key = tmp.path() / ".hmac-key";
    ASSERT_TRUE(fs::exists(key));
    EXPECT_EQ(mode_of(key), 0600u);
    EXPECT_EQ(fs::file_size(key), 32u);
    const std::string secret = read_bytes(key);
    CompileCache(tmp.path()).store(key_of('b'), payload("b"));
    EXPECT_EQ(read_bytes(key), secret);  // the second kernel reuses it
    EXPECT_TRUE(CompileCache(tmp.path()).lookup(key_of('b')));
}

TEST(CompileCacheTrust, AnEntryCopiedFromAnotherUsersCacheIsAMiss) {
    TempDir mine, theirs;
    CompileCache(theirs.path()).store(key_of('a'), payload("planted"));
    CompileCache(mine.path()).store(key_of('b'), payload("b"));  // my key exists
    fs::copy_file(theirs.path() / (key_of('a') + ".xcc"), mine.path() / (key_of('a') + ".xcc"));
    CompileCache c(mine.path());
    EXPECT_FALSE(c.lookup(key_of('a')));
    EXPECT_TRUE(c.lookup(key_of('b')));
}

TEST(CompileCacheTrust, AnEntryWithARecomputedChecksumButNoKeyIsAMiss) {
    TempDir tmp;
    CompileCache(tmp.path()).store(key_of('b'), payload("b"));
    // what the attacker of a keyless format would write: a well-formed entry under a guessed key
    write_bytes(tmp.path() / (key_of('a') + ".xcc"), serialize_cache_entry(key_of('a'), *payload("x"), ""));
    fs::permissions(tmp.path() / (key_of('a') + ".xcc"), fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_FALSE(CompileCache(tmp.path()).lookup(key_of('a')));
}

TEST(CompileCacheTrust, ADirectoryOfAnotherUserIsNeitherReadNorWritten) {
    TempDir tmp;
    CompileCache(tmp.path()).store(key_of('a'), payload("a"));
    CompileCache c(settings_for(tmp.path(), ::geteuid() + 1));  // as if someone else owned it
    EXPECT_FALSE(c.lookup(key_of('a')));
    const std::string w = c.take_warning();
    EXPECT_TRUE(contains(w, "not you")) << w;
    EXPECT_TRUE(contains(w, "memory only")) << w;
    EXPECT_TRUE(contains(w, "XDG_CACHE_HOME")) << w;
    c.store(key_of('b'), payload("b"));
    EXPECT_EQ(entry_files(tmp.path()), 1u);
    EXPECT_TRUE(c.lookup(key_of('b')));  // memory still works
    EXPECT_EQ(c.take_warning(), "");     // said once
    EXPECT_FALSE(c.info().disk_enabled);
}

TEST(CompileCacheTrust, AnEntryOthersCanWriteIsIgnoredWithOneWarning) {
    TempDir tmp;
    {
        CompileCache w(tmp.path());
        w.store(key_of('a'), payload("a"));
        w.store(key_of('b'), payload("b"));
    }
    for (char k : {'a', 'b'}) fs::permissions(tmp.path() / (std::string(64, k) + ".xcc"), fs::perms::all);
    CompileCache c(tmp.path());
    EXPECT_FALSE(c.lookup(key_of('a')));
    const std::string w = c.take_warning();
    EXPECT_TRUE(contains(w, "others can write")) << w;
    EXPECT_TRUE(contains(w, key_of('a'))) << w;
    EXPECT_FALSE(c.lookup(key_of('b')));
    EXPECT_EQ(c.take_warning(), "");
    c.store(key_of('a'), payload("a2"));  // the store replaces it with a private entry
    EXPECT_EQ(mode_of(tmp.path() / (key_of('a') + ".xcc")), 0600u);
    EXPECT_TRUE(CompileCache(tmp.path()).lookup(key_of('a')));
}

TEST(CompileCacheTrust, ALinkPlantedUnderAnEntrysNameIsNotFollowed) {
    TempDir tmp, elsewhere;
    CompileCache(elsewhere.path()).store(key_of('a'), payload("a"));
    fs::copy_file(elsewhere.path() / ".hmac-key", tmp.path() / ".hmac-key");  // even with the right key
    fs::permissions(tmp.path() / ".hmac-key", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_symlink(elsewhere.path() / (key_of('a') + ".xcc"), tmp.path() / (key_of('a') + ".xcc"));
    CompileCache c(tmp.path());
    EXPECT_FALSE(c.lookup(key_of('a')));
    EXPECT_TRUE(contains(c.take_warning(), "symbolic link"));
}

TEST(CompileCacheTrust, ADirectoryOpenToOthersIsClosedBeforeUse) {
    TempDir tmp;
    fs::path dir = tmp.path() / "xcuda";
    fs::create_directory(dir);
    fs::permissions(dir, fs::perms::all);
    CompileCache c(dir);
    EXPECT_FALSE(c.lookup(key_of('a')));
    EXPECT_EQ(mode_of(dir), 0700u);
}

TEST(CompileCacheTrust, AKeyOthersCanReadTurnsTheDiskOffAndSaysHowToFixIt) {
    TempDir tmp;
    CompileCache(tmp.path()).store(key_of('a'), payload("a"));
    fs::permissions(tmp.path() / ".hmac-key", fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
    CompileCache c(tmp.path());
    EXPECT_FALSE(c.lookup(key_of('a')));
    const std::string w = c.take_warning();
    EXPECT_TRUE(contains(w, ".hmac-key")) << w;
    EXPECT_TRUE(contains(w, "others can read")) << w;
    EXPECT_TRUE(contains(w, "delete")) << w;
}

TEST(CompileCacheTrust, AReadOnlyCacheIsStillReadAndAFailedWriteIsSaidOnce) {
    if (::geteuid() == 0) GTEST_SKIP() << "running as root: permission bits do not stop root from writing";
    TempDir tmp;
    fs::path dir = tmp.path() / "ro";
    CompileCache(dir).store(key_of('a'), payload("a"));
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    CompileCache c(dir);
    CacheLevel level;
    ASSERT_TRUE(c.lookup(key_of('a'), &level));
    EXPECT_EQ(level, CacheLevel::disk);
    c.store(key_of('b'), payload("b"));
    const std::string w = c.take_warning();
    EXPECT_TRUE(contains(w, "cannot write")) << w;
    EXPECT_TRUE(contains(w, "still used")) << w;
    c.store(key_of('c'), payload("c"));
    EXPECT_EQ(c.take_warning(), "");
    EXPECT_TRUE(c.lookup(key_of('b')));  // from memory
    auto info = c.info();
    EXPECT_TRUE(info.disk_enabled);
    EXPECT_FALSE(info.disk_writable);
}

TEST(CompileCacheMemory, LeastRecentlyUsedEntriesGoFirstOnceOverTheLimit) {
    CacheSettings s;
    s.dir = std::nullopt;
    const std::uint64_t one = 1000 + 20;  // payload("x"): 1006 + 4 + 4 + names
    s.memory_limit_bytes = 2 * one + 100;
    CompileCache c(s);
    c.store(key_of('a'), payload("a"));
    c.store(key_of('b'), payload("b"));
    ASSERT_TRUE(c.lookup(key_of('a')));  // a is now the most recent
    c.store(key_of('c'), payload("c"));
    EXPECT_TRUE(c.lookup(key_of('a')));
    EXPECT_FALSE(c.lookup(key_of('b')));
    EXPECT_TRUE(c.lookup(key_of('c')));
    auto info = c.info();
    EXPECT_EQ(info.memory_entries, 2u);
    EXPECT_LE(info.memory_bytes, s.memory_limit_bytes);
    EXPECT_EQ(info.memory_limit_bytes, s.memory_limit_bytes);
}

TEST(CompileCacheMemory, MemosCountAgainstTheLimitAndGoWithTheirPayload) {
    CacheSettings s;
    s.dir = std::nullopt;
    s.memory_limit_bytes = 5000;
    CompileCache c(s);
    c.store(key_of('a'), payload("a"));
    c.store(key_of('b'), payload("b"));
    c.set_memo(key_of('a'), std::make_shared<int>(1), 3000);  // a: ~4000, b: ~1000 -> over
    EXPECT_TRUE(c.memo(key_of('a')));
    EXPECT_FALSE(c.lookup(key_of('b')));
    c.set_memo(key_of('a'), std::make_shared<int>(2), 4500);  // a alone is now over the limit
    EXPECT_FALSE(c.memo(key_of('a')));
    EXPECT_FALSE(c.lookup(key_of('a')));
    EXPECT_EQ(c.info().memory_bytes, 0u);
    c.set_memo(key_of('z'), std::make_shared<int>(3), 10);  // no payload: nothing to hang it on
    EXPECT_FALSE(c.memo(key_of('z')));
}

TEST(CompileCacheMemory, AnEntryLargerThanTheLimitStaysOnDiskOnly) {
    TempDir tmp;
    CacheSettings s = settings_for(tmp.path());
    s.memory_limit_bytes = 100;
    CompileCache c(s);
    c.store(key_of('a'), payload("a"));
    CacheLevel level;
    ASSERT_TRUE(c.lookup(key_of('a'), &level));
    EXPECT_EQ(level, CacheLevel::disk);
    EXPECT_EQ(c.info().memory_entries, 0u);
}

TEST(CompileCacheMemory, ClearAndALowerLimitFreeThePayloads) {
    CompileCache c(std::nullopt);
    std::weak_ptr<const CachePayload> a, b;
    {
        auto pa = payload("a"), pb = payload("b");
        a = pa;
        b = pb;
        c.store(key_of('a'), pa);
        c.store(key_of('b'), pb);
    }
    EXPECT_FALSE(a.expired());
    c.set_memory_limit(1500);  // room for one: the older goes
    EXPECT_TRUE(a.expired());
    EXPECT_FALSE(b.expired());
    c.clear();
    EXPECT_TRUE(b.expired());
    EXPECT_EQ(c.info().memory_bytes, 0u);
}

TEST(CompileCacheMemory, SizesParseWithBinaryUnits) {
    EXPECT_EQ(parse_byte_size("0"), 0u);
    EXPECT_EQ(parse_byte_size("4096"), 4096u);
    EXPECT_EQ(parse_byte_size("512K"), 512u << 10);
    EXPECT_EQ(parse_byte_size("256M"), 256u << 20);
    EXPECT_EQ(parse_byte_size("256mb"), 256u << 20);
    EXPECT_EQ(parse_byte_size("64MiB"), 64u << 20);
    EXPECT_EQ(parse_byte_size("2G"), std::uint64_t(2) << 30);
    EXPECT_FALSE(parse_byte_size(""));
    EXPECT_FALSE(parse_byte_size("M"));
    EXPECT_FALSE(parse_byte_size("12T"));
    EXPECT_FALSE(parse_byte_size("-1"));
    EXPECT_FALSE(parse_byte_size("1.5G"));
}

TEST(CompileCacheMemory, ABadEnvironmentLimitKeepsTheDefaultAndSaysSo) {
    ::setenv("XCUDA_CACHE_MEMORY", "lots", 1);
    CacheSettings s = cache_settings_from_environment();
    ::unsetenv("XCUDA_CACHE_MEMORY");
    EXPECT_EQ(s.memory_limit_bytes, default_memory_limit_bytes);
    s.dir = std::nullopt;
    CompileCache c(s);
    EXPECT_TRUE(contains(c.take_warning(), "XCUDA_CACHE_MEMORY=lots"));
    ::setenv("XCUDA_CACHE_MEMORY", "1G", 1);
    EXPECT_EQ(cache_settings_from_environment().memory_limit_bytes, std::uint64_t(1) << 30);
    ::unsetenv("XCUDA_CACHE_MEMORY");
}
