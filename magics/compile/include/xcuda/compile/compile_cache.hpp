// The compile cache: memory first, then disk ($XDG_CACHE_HOME/xcuda, else ~/.cache/xcuda).
//
// Memory: least-recently-used entries are dropped once the payloads and what the pipeline
// derived from them pass a byte limit (XCUDA_CACHE_MEMORY, default 256 MiB).
//
// Disk, trusting only its owner: the directory must belong to this user (made 0700 when it is
// open to others); each entry is opened without following links and must be a regular file of
// this user that nobody else can write; each carries an HMAC under a per-user secret kept in
// the directory (`.hmac-key`, 0600, 32 random bytes), so an entry planted, forged or copied
// from another cache is a miss. Entries are written to a temporary file and renamed into place,
// so readers see a whole entry or none; not fsync'ed (a cold compile would wait for the disk's
// journal): one that a crash left damaged fails its HMAC, a miss. The secret is fsync'ed.
//
// Nothing here fails a compile: an untrusted directory turns the disk off, a failed write stops
// writing (a read-only cache is still read), and each kind of problem is said once, through
// take_warning(), for the cell that met it.
#pragma once

#include "xcuda/compile/cache_entry.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xcuda::compile {

// $XDG_CACHE_HOME/xcuda when XDG_CACHE_HOME is set and absolute, else $HOME/.cache/xcuda;
// nullopt when neither can be determined.
std::optional<std::filesystem::path> default_cache_dir();

inline constexpr std::uint64_t default_memory_limit_bytes = std::uint64_t(256) << 20;

// "268435456", "512K", "256M", "1G", "64MiB", "0" -> bytes; nullopt for anything else.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

struct CacheInfo {
    std::size_t memory_entries = 0;
    std::uint64_t memory_bytes = 0;
    std::uint64_t memory_limit_bytes = 0;
    std::size_t disk_entries = 0;
    std::uint64_t disk_bytes = 0;
    std::string dir;             // "" when memory-only
    bool disk_enabled = false;   // entries are read
    bool disk_writable = false;  // and written
};

enum class CacheLevel { none, memory, disk };

struct CacheSettings {
    std::optional<std::filesystem::path> dir = default_cache_dir();  // nullopt: memory only
    std::uint64_t memory_limit_bytes = default_memory_limit_bytes;   // 0: no memory cache
    uid_t owner = ::geteuid();  // whose files are trusted (tests stand in for another user)
    std::string problem;        // a setting that could not be used, said with the first warning
};

// The settings from the environment: default_cache_dir() and XCUDA_CACHE_MEMORY (a bad value
// keeps the default and is reported by the cache's first warning).
CacheSettings cache_settings_from_environment();

class CompileCache {
public:
    // The directory is checked, created and keyed lazily, at the first lookup or store.
    explicit CompileCache(CacheSettings settings = cache_settings_from_environment());
    explicit CompileCache(std::optional<std::filesystem::path> dir);

    // Memory, then disk (a disk hit is promoted to memory). `level` says where it was found.
    std::shared_ptr<const CachePayload> lookup(const std::string& key, CacheLevel* level = nullptr);
    // Stores in memory and (best effort) on disk; never throws for disk problems.
    void store(const std::string& key, std::shared_ptr<const CachePayload> payload);

    // A memory slot for whatever the caller derives from a stored payload (the pipeline keeps
    // its parsed module here so a memory hit does no work at all); `bytes` is what it holds,
    // counted against the limit. Dropped with its payload.
    std::shared_ptr<const void> memo(const std::string& key);
    void set_memo(const std::string& key, std::shared_ptr<const void> value, std::uint64_t bytes);

    CacheInfo info();  // checks (and creates) the directory like a first lookup
    // Empties memory and deletes this cache's entry files (only files named like entries;
    // the secret key stays, so other kernels' entries written later still load).
    void clear();
    // Drops least-recently-used entries until the memory holds at most `bytes`.
    void set_memory_limit(std::uint64_t bytes);

    // What the cell should be told about the cache since the last call, each kind of problem
    // once per cache ("" when nothing new).
    std::string take_warning();
    const std::optional<std::filesystem::path>& dir() const { return settings_.dir; }

    std::filesystem::path entry_path(const std::string& key) const;

private:
    struct Slot {
        std::string key;
        std::shared_ptr<const CachePayload> payload;
        std::shared_ptr<const void> memo;
        std::uint64_t payload_bytes = 0;
        std::uint64_t memo_bytes = 0;
    };
    using Lru = std::list<Slot>;  // most recently used first

    // All with mu_ held.
    bool prepare_disk();
    bool check_directory();
    bool load_or_create_secret();
    std::optional<CachePayload> read_entry(const std::string& key);
    void remember(const std::string& key, std::shared_ptr<const CachePayload> payload);
    Lru::iterator touch(const std::string& key);
    void evict_to(std::uint64_t limit);
    void warn(const std::string& kind, const std::string& text);
    void turn_disk_off(const std::string& why);

    mutable std::mutex mu_;
    CacheSettings settings_;
    enum class Disk { unchecked, on, off } disk_ = Disk::unchecked;
    bool writable_ = true;
    std::string secret_;

    Lru lru_;
    std::unordered_map<std::string, Lru::iterator> slots_;
    std::uint64_t memory_bytes_ = 0;

    std::vector<std::string> pending_warnings_;
    std::set<std::string> warned_kinds_;
};

}  // namespace xcuda::compile
