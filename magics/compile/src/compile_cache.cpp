#include "xcuda/compile/compile_cache.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

namespace xcuda::compile {
namespace fs = std::filesystem;
namespace {

constexpr const char* entry_suffix = ".xcc";
// Larger files are not ours (an entry holds one cell's CUBIN and PTX).
constexpr std::uint64_t max_entry_bytes = std::uint64_t(1) << 30;

bool valid_key(const std::string& key) {
    if (key.size() != 64) return false;
    for (char c : key)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

bool is_entry_name(const std::string& name) {
    return name.size() == 64 + std::strlen(entry_suffix) && valid_key(name.substr(0, 64)) &&
           name.compare(64, std::string::npos, entry_suffix) == 0;
}

bool is_temp_name(const std::string& name) {
    return name.size() > 70 && name[0] == '.' && valid_key(name.substr(1, 64)) &&
           name.compare(name.size() - 4, 4, ".tmp") == 0;
}

std::optional<std::string> read_file(const fs::path& p) {
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    std::optional<std::string> out;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && std::uint64_t(st.st_size) <= max_entry_bytes) {
        std::string bytes(std::size_t(st.st_size), '\0');
        std::size_t got = 0;
        while (got < bytes.size()) {
            ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += std::size_t(r);
        }
        bytes.resize(got);
        out = std::move(bytes);
    }
    ::close(fd);
    return out;
}

// Writes to a unique temporary in `dir`, fsyncs and renames over `target`. Returns "" or why not.
std::string write_atomically(const fs::path& dir, const std::string& key, const fs::path& target,
                             const std::string& bytes) {
    static std::atomic<unsigned> counter{0};
    fs::path tmp = dir / ("." + key + "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp");
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return std::strerror(errno);
    std::string err;
    if (::fchmod(fd, 0600) != 0) err = std::strerror(errno);
    std::size_t done = 0;
    while (err.empty() && done < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) err = w < 0 ? std::strerror(errno) : "short write";
        else done += std::size_t(w);
    }
    if (err.empty() && ::fsync(fd) != 0) err = std::strerror(errno);
    if (::close(fd) != 0 && err.empty()) err = std::strerror(errno);
    if (err.empty() && ::rename(tmp.c_str(), target.c_str()) != 0) err = std::strerror(errno);
    if (!err.empty()) {
        ::unlink(tmp.c_str());
        return err;
    }
    // make the rename itself durable
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    return {};
}

}  // namespace

std::optional<fs::path> default_cache_dir() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') return fs::path(xdg) / "xcuda";
    const char* home = std::getenv("HOME");
    if (home && home[0] == '/') return fs::path(home) / ".cache" / "xcuda";
    return std::nullopt;
}

CompileCache::CompileCache(std::optional<fs::path> dir) : dir_(std::move(dir)) {
    if (!dir_) disk_ok_ = false;
}

fs::path CompileCache::entry_path(const std::string& key) const {
    return dir_ ? *dir_ / (key + entry_suffix) : fs::path();
}

void CompileCache::disable_disk(const std::string& why) {
    if (!disk_ok_) return;
    disk_ok_ = false;
    warning_ = "xcuda: the compile cache directory " + (dir_ ? dir_->string() : std::string("(none)")) +
               " cannot be used (" + why + "); compiled cells are cached in memory only for this session. "
               "Set XDG_CACHE_HOME to a writable directory to keep them across restarts.";
}

bool CompileCache::ensure_dir() {
    if (!disk_ok_) return false;
    if (dir_checked_) return true;
    std::error_code ec;
    fs::create_directories(*dir_, ec);
    if (ec) {
        disable_disk(ec.message());
        return false;
    }
    if (!fs::is_directory(*dir_, ec)) {
        disable_disk("not a directory");
        return false;
    }
    if (::chmod(dir_->c_str(), 0700) != 0) {
        disable_disk(std::string("chmod 0700: ") + std::strerror(errno));
        return false;
    }
    dir_checked_ = true;
    return true;
}

std::shared_ptr<const CachePayload> CompileCache::lookup(const std::string& key, CacheLevel* level) {
    if (level) *level = CacheLevel::none;
    std::unique_lock lock(mu_);
    auto it = memory_.find(key);
    if (it != memory_.end()) {
        if (level) *level = CacheLevel::memory;
        return it->second;
    }
    if (!dir_ || !disk_ok_ || !valid_key(key)) return nullptr;
    fs::path path = entry_path(key);
    lock.unlock();  // disk reads need no lock; entries are immutable once renamed in
    auto bytes = read_file(path);
    if (!bytes) return nullptr;
    auto payload = parse_cache_entry(*bytes, key);
    if (!payload) return nullptr;
    auto shared = std::make_shared<const CachePayload>(std::move(*payload));
    lock.lock();
    memory_.emplace(key, shared);
    if (level) *level = CacheLevel::disk;
    return shared;
}

void CompileCache::store(const std::string& key, std::shared_ptr<const CachePayload> payload) {
    std::lock_guard lock(mu_);
    memory_[key] = payload;
    if (!dir_ || !valid_key(key) || !ensure_dir()) return;
    std::string err = write_atomically(*dir_, key, entry_path(key), serialize_cache_entry(key, *payload));
    if (!err.empty()) disable_disk(err);
}

std::shared_ptr<const void> CompileCache::memo(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = memos_.find(key);
    return it == memos_.end() ? nullptr : it->second;
}

void CompileCache::set_memo(const std::string& key, std::shared_ptr<const void> value) {
    std::lock_guard lock(mu_);
    memos_[key] = std::move(value);
}

CacheInfo CompileCache::info() const {
    std::lock_guard lock(mu_);
    CacheInfo info;
    info.memory_entries = memory_.size();
    info.disk_enabled = dir_.has_value() && disk_ok_;
    if (!dir_) return info;
    info.dir = dir_->string();
    std::error_code ec;
    for (fs::directory_iterator it(*dir_, ec), end; !ec && it != end; it.increment(ec)) {
        if (!is_entry_name(it->path().filename().string())) continue;
        std::error_code sec;
        auto size = it->file_size(sec);
        if (sec) continue;
        ++info.disk_entries;
        info.disk_bytes += size;
    }
    return info;
}

void CompileCache::clear() {
    std::lock_guard lock(mu_);
    memory_.clear();
    memos_.clear();
    if (!dir_) return;
    std::error_code ec;
    std::vector<fs::path> doomed;
    for (fs::directory_iterator it(*dir_, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (is_entry_name(name) || is_temp_name(name)) doomed.push_back(it->path());
    }
    for (const auto& p : doomed) fs::remove(p, ec);
}

std::string CompileCache::take_warning() {
    std::lock_guard lock(mu_);
    if (warning_taken_ || warning_.empty()) return {};
    warning_taken_ = true;
    return warning_;
}

}  // namespace xcuda::compile
