// The private directory NVRTC's automatic precompiled headers (`-- -pch`) are written to.
// NVRTC removes its files at exit but not the directory, so each kernel session that used -pch
// left an empty `pch-XXXXXX` behind in the cache directory. The directory now names its
// process (`pch-<pid>-XXXXXX`): it is removed when its owner is destroyed, and one whose process
// is gone (the kernel was killed, or ended without destroying its session) is removed by the
// next process that makes one in the same cache directory.
#pragma once

#include <filesystem>
#include <optional>

namespace xcuda::compile {

class PchDir {
public:
    // A fresh 0700 directory under `cache_dir` (created if missing), else under the system's
    // temporary directory; nullopt when neither can be made (NVRTC's default is used then).
    // Before making it, removes the `pch-<pid>-*` directories under `cache_dir` of processes
    // that no longer run.
    static std::optional<PchDir> make(const std::optional<std::filesystem::path>& cache_dir);

    PchDir(PchDir&& other) noexcept;
    PchDir& operator=(PchDir&& other) noexcept;
    PchDir(const PchDir&) = delete;
    PchDir& operator=(const PchDir&) = delete;
    ~PchDir();

    const std::filesystem::path& path() const { return path_; }

private:
    explicit PchDir(std::filesystem::path path) : path_(std::move(path)) {}
    std::filesystem::path path_;  // empty once moved from
};

// Removes the `pch-<pid>-*` directories under `cache_dir` whose process is not running;
// returns how many. Directories of running processes, and anything else there, stay.
int remove_abandoned_pch_dirs(const std::filesystem::path& cache_dir);

}  // namespace xcuda::compile
