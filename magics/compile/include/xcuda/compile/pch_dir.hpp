// The private directory NVRTC's automatic precompiled headers (`-- -pch`) are written to.
// NVRTC removes its files at exit but not the directory, so each kernel session that used -pch
// left an empty `pch-XXXXXX` behind in the cache directory. The directory now names its
// process (`pch-<pid>-XXXXXX`): it is removed when its owner is destroyed, and one whose process
// is gone (the kernel was killed, or ended without destroying its session) is removed by the
// next process that makes one in the same cache directory.
#pragma once

#include "xcuda/rt/handle.hpp"

#include <filesystem>
#include <optional>

namespace xcuda::compile {

namespace detail {
// Removes the directory and what is in it; a destructor cannot report a failure, and the next
// process's sweep retries.
struct RemoveTree {
    void operator()(const std::filesystem::path& dir) const noexcept;
};
}  // namespace detail

class PchDir {
public:
    // A fresh 0700 directory under `cache_dir` (created if missing), else under the system's
    // temporary directory; nullopt when neither can be made (NVRTC's default is used then).
    // Before making it, removes the `pch-<pid>-*` directories under `cache_dir` of processes
    // that no longer run.
    static std::optional<PchDir> make(const std::optional<std::filesystem::path>& cache_dir);

    std::filesystem::path path() const { return dir_.get(); }

private:
    explicit PchDir(std::filesystem::path path) : dir_(std::move(path)) {}
    rt::detail::Handle<std::filesystem::path, detail::RemoveTree> dir_;  // empty once moved from
};

// Removes the `pch-<pid>-*` directories under `cache_dir` whose process is not running;
// returns how many. Directories of running processes, and anything else there, stay.
int remove_abandoned_pch_dirs(const std::filesystem::path& cache_dir);

}  // namespace xcuda::compile
