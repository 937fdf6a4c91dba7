// The compile cache: memory first, then disk ($XDG_CACHE_HOME/xcuda, else ~/.cache/xcuda).
// The directory is 0700 and entries 0600; entries are written to a temporary file in the same
// directory, fsync'ed and renamed into place, so readers see a whole entry or none. A damaged
// entry is a miss. When the directory cannot be created or written (read-only, full), caching
// degrades to memory only and compiles keep working; warning() says why, once.
#pragma once

#include "xcuda/compile/cache_entry.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace xcuda::compile {

// $XDG_CACHE_HOME/xcuda when XDG_CACHE_HOME is set and absolute, else $HOME/.cache/xcuda;
// nullopt when neither can be determined.
std::optional<std::filesystem::path> default_cache_dir();

struct CacheInfo {
    std::size_t memory_entries = 0;
    std::size_t disk_entries = 0;
    std::uint64_t disk_bytes = 0;
    std::string dir;        // "" when memory-only
    bool disk_enabled = false;
};

enum class CacheLevel { none, memory, disk };

class CompileCache {
public:
    // `dir` nullopt: memory only. The directory is created lazily on the first store.
    explicit CompileCache(std::optional<std::filesystem::path> dir = default_cache_dir());

    // Memory, then disk (a disk hit is promoted to memory). `level` says where it was found.
    std::shared_ptr<const CachePayload> lookup(const std::string& key, CacheLevel* level = nullptr);
    // Stores in memory and (best effort) on disk; never throws for disk problems.
    void store(const std::string& key, std::shared_ptr<const CachePayload> payload);

    // A memory slot for whatever the caller derives from a payload (the pipeline keeps its
    // parsed module here so a memory hit does no work at all). Cleared with the payloads.
    std::shared_ptr<const void> memo(const std::string& key) const;
    void set_memo(const std::string& key, std::shared_ptr<const void> value);

    CacheInfo info() const;
    // Empties memory and deletes this cache's entry files (only files named like entries).
    void clear();

    // A one-line reason why the disk cache is off, the first time only (then "").
    std::string take_warning();
    const std::optional<std::filesystem::path>& dir() const { return dir_; }

    std::filesystem::path entry_path(const std::string& key) const;

private:
    bool ensure_dir();                      // with mu_ held
    void disable_disk(const std::string& why);

    mutable std::mutex mu_;
    std::optional<std::filesystem::path> dir_;
    bool disk_ok_ = true;
    bool dir_checked_ = false;
    std::string warning_;
    bool warning_taken_ = false;
    std::map<std::string, std::shared_ptr<const CachePayload>> memory_;
    std::map<std::string, std::shared_ptr<const void>> memos_;
};

}  // namespace xcuda::compile
