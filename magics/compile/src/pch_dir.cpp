#include "xcuda/compile/pch_dir.hpp"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>
#include <utility>

namespace xcuda::compile {

namespace {

const std::string prefix = "pch-";

// The process a `pch-<pid>-XXXXXX` name says made it, or 0 for any other name.
pid_t owner_of(const std::string& name) {
    if (name.rfind(prefix, 0) != 0) return 0;
    const char* digits = name.data() + prefix.size();
    const char* end = name.data() + name.size();
    pid_t pid = 0;
    auto [after, error] = std::from_chars(digits, end, pid);
    if (error != std::errc() || after == digits || after == end || *after != '-') return 0;
    return pid;
}

bool is_running(pid_t pid) {
    // EPERM: it runs, as another user.
    return ::kill(pid, 0) == 0 || errno == EPERM;
}

std::optional<std::filesystem::path> made_from(std::filesystem::path pattern) {
    std::string text = pattern.string();
    if (::mkdtemp(text.data()) == nullptr) return std::nullopt;
    return std::filesystem::path(text);
}

}  // namespace

int remove_abandoned_pch_dirs(const std::filesystem::path& cache_dir) {
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(cache_dir, ec)) {
        pid_t pid = owner_of(entry.path().filename().string());
        std::error_code is_dir_ec;
        if (pid <= 0 || pid == ::getpid() || is_running(pid) || !entry.is_directory(is_dir_ec)) continue;
        std::error_code remove_ec;  // a directory that cannot go now is tried again next time
        if (std::filesystem::remove_all(entry.path(), remove_ec) != static_cast<std::uintmax_t>(-1) && !remove_ec)
            ++removed;
    }
    return removed;
}

std::optional<PchDir> PchDir::make(const std::optional<std::filesystem::path>& cache_dir) {
    const std::string name = prefix + std::to_string(::getpid()) + "-XXXXXX";
    if (cache_dir) {
        std::error_code ec;
        std::filesystem::create_directories(*cache_dir, ec);
        remove_abandoned_pch_dirs(*cache_dir);
        if (auto made = made_from(*cache_dir / name)) return PchDir(std::move(*made));
    }
    // Not swept: other users' directories live there too.
    std::error_code ec;
    auto tmp = std::filesystem::temp_directory_path(ec);
    if (ec) return std::nullopt;
    if (auto made = made_from(tmp / ("xcuda-" + name))) return PchDir(std::move(*made));
    return std::nullopt;
}

void detail::RemoveTree::operator()(const std::filesystem::path& dir) const noexcept {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

}  // namespace xcuda::compile
