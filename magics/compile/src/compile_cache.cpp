#include "xcuda/compile/compile_cache.hpp"

#include "private_files.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace xcuda::compile {
namespace fs = std::filesystem;
using detail::octal_mode;
namespace {

constexpr const char* entry_suffix = ".xcc";
constexpr const char* secret_file_name = ".hmac-key";
constexpr std::size_t secret_bytes = 32;
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

std::uint64_t payload_bytes(const CachePayload& p) {
    std::uint64_t n = p.cubin.size() + p.ptx.size() + p.log.size();
    for (const auto& [expr, lowered] : p.lowered_names) n += expr.size() + lowered.size();
    return n;
}

const char* fix_directory = " Point XDG_CACHE_HOME at a directory of your own to cache across restarts.";

}  // namespace

std::optional<fs::path> default_cache_dir() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') return fs::path(xdg) / "xcuda";
    const char* home = std::getenv("HOME");
    if (home && home[0] == '/') return fs::path(home) / ".cache" / "xcuda";
    return std::nullopt;
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 15) return std::nullopt;
    std::uint64_t value = std::stoull(std::string(text.substr(0, digits)));
    std::string unit(text.substr(digits));
    for (auto& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();  // "MB"
    if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();  // "MiB" (binary either way)
    int shift;
    if (unit.empty() || unit == "B")
        shift = 0;
    else if (unit == "K")
        shift = 10;
    else if (unit == "M")
        shift = 20;
    else if (unit == "G")
        shift = 30;
    else
        return std::nullopt;
    return value << shift;
}

CacheSettings cache_settings_from_environment() {
    CacheSettings s;
    if (const char* limit = std::getenv("XCUDA_CACHE_MEMORY"); limit && *limit) {
        if (auto bytes = parse_byte_size(limit)) {
            s.memory_limit_bytes = *bytes;
        } else {
            s.problem = std::string("xcuda: XCUDA_CACHE_MEMORY=") + limit +
                        " is not a size; using 256M. Write bytes or a size such as 512M or 2G.";
        }
    }
    return s;
}

CompileCache::CompileCache(CacheSettings settings) : settings_(std::move(settings)) {
    if (!settings_.dir) disk_ = Disk::off;
    if (!settings_.problem.empty()) warn("setting", settings_.problem);
}

CompileCache::CompileCache(std::optional<fs::path> dir)
    : CompileCache([&] {
          CacheSettings s;
          s.dir = std::move(dir);
          return s;
      }()) {}

fs::path CompileCache::entry_path(const std::string& key) const {
    return settings_.dir ? *settings_.dir / (key + entry_suffix) : fs::path();
}

void CompileCache::warn(const std::string& kind, const std::string& text) {
    if (!warned_kinds_.insert(kind).second) return;
    pending_warnings_.push_back(text);
}

void CompileCache::turn_disk_off(const std::string& why) {
    disk_ = Disk::off;
    warn("disk", "xcuda: the compile cache directory " + settings_.dir->string() + " is not used (" + why +
                     "); compiled cells are cached in memory only for this session." + fix_directory);
}

// The directory must be ours; one open to others is closed (0700) first, since a file they
// planted meanwhile is refused anyway (not ours, or not tagged with our key).
bool CompileCache::check_directory() {
    const fs::path& dir = *settings_.dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        turn_disk_off(ec ? ec.message() : std::strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        turn_disk_off("not a directory");
        return false;
    }
    if (st.st_uid != settings_.owner) {
        turn_disk_off("it belongs to uid " + std::to_string(st.st_uid) +
                      ", not you, who could put compiled code there for your kernels to run");
        return false;
    }
    if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0 && (st.st_mode & 022) != 0) {
        turn_disk_off("mode " + octal_mode(st.st_mode) +
                      ": others can write to it, and chmod 0700 failed: " + std::strerror(errno));
        return false;
    }
    return true;
}

// The secret that tags entries: read when it is ours and private, else made once (two kernels
// starting together agree on the first one written).
bool CompileCache::load_or_create_secret() {
    const fs::path path = *settings_.dir / secret_file_name;
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto file = detail::read_owned_file(path, settings_.owner, 077, secret_bytes);
        if (!file.untrusted.empty()) {
            turn_disk_off("its key " + path.string() + " is " + file.untrusted +
                          "; delete that file and xcuda makes a new one");
            return false;
        }
        if (file.bytes) {
            if (file.bytes->size() != secret_bytes) {
                turn_disk_off("its key " + path.string() + " holds " + std::to_string(file.bytes->size()) +
                              " bytes, not " + std::to_string(secret_bytes) + "; delete it and xcuda makes a new one");
                return false;
            }
            secret_ = std::move(*file.bytes);
            return true;
        }
        auto fresh = detail::random_bytes(secret_bytes);
        if (!fresh) {
            turn_disk_off("no random bytes for its key: " + std::string(std::strerror(errno)));
            return false;
        }
        std::string err = detail::create_file_once(path, *fresh);
        if (!err.empty()) {
            turn_disk_off("cannot create its key " + path.string() + ": " + err);
            return false;
        }
    }
    turn_disk_off("its key " + path.string() + " cannot be read");
    return false;
}

bool CompileCache::prepare_disk() {
    if (disk_ == Disk::unchecked) disk_ = check_directory() && load_or_create_secret() ? Disk::on : Disk::off;
    return disk_ == Disk::on;
}

std::optional<CachePayload> CompileCache::read_entry(const std::string& key) {
    const fs::path path = entry_path(key);
    auto file = detail::read_owned_file(path, settings_.owner, 022, max_entry_bytes);
    if (!file.untrusted.empty()) {
        warn("entry", "xcuda: ignored the compile cache entry " + path.string() + " (" + file.untrusted +
                          ") and compiled the cell instead; `%cuda_cache clear` removes such entries.");
    }
    if (!file.bytes) return std::nullopt;
    return parse_cache_entry(*file.bytes, key, secret_);  // forged, copied or damaged: a miss
}

CompileCache::Lru::iterator CompileCache::touch(const std::string& key) {
    auto it = slots_.find(key);
    if (it == slots_.end()) return lru_.end();
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second;
}

void CompileCache::evict_to(std::uint64_t limit) {
    while (memory_bytes_ > limit && !lru_.empty()) {
        const Slot& last = lru_.back();
        memory_bytes_ -= last.payload_bytes + last.memo_bytes;
        slots_.erase(last.key);
        lru_.pop_back();
    }
}

void CompileCache::remember(const std::string& key, std::shared_ptr<const CachePayload> payload) {
    const std::uint64_t bytes = payload_bytes(*payload);
    auto it = touch(key);
    if (it == lru_.end()) {
        lru_.push_front(Slot{key, std::move(payload), nullptr, bytes, 0});
        slots_.emplace(key, lru_.begin());
    } else {
        memory_bytes_ -= it->payload_bytes + it->memo_bytes;
        *it = Slot{key, std::move(payload), nullptr, bytes, 0};
    }
    memory_bytes_ += bytes;
    evict_to(settings_.memory_limit_bytes);  // one entry over the limit is not kept at all
}

std::shared_ptr<const CachePayload> CompileCache::lookup(const std::string& key, CacheLevel* level) {
    if (level) *level = CacheLevel::none;
    std::lock_guard lock(mu_);
    if (auto it = touch(key); it != lru_.end()) {
        if (level) *level = CacheLevel::memory;
        return it->payload;
    }
    if (!valid_key(key) || !prepare_disk()) return nullptr;
    auto payload = read_entry(key);
    if (!payload) return nullptr;
    auto shared = std::make_shared<const CachePayload>(std::move(*payload));
    remember(key, shared);
    if (level) *level = CacheLevel::disk;
    return shared;
}

void CompileCache::store(const std::string& key, std::shared_ptr<const CachePayload> payload) {
    std::lock_guard lock(mu_);
    remember(key, payload);
    if (!valid_key(key) || !prepare_disk() || !writable_) return;
    std::string err = detail::replace_file_atomically(entry_path(key), serialize_cache_entry(key, *payload, secret_));
    if (!err.empty()) {
        writable_ = false;
        warn("write", "xcuda: cannot write to the compile cache " + settings_.dir->string() + " (" + err +
                          "); cells compiled from now on are cached in memory only for this session, and "
                          "entries already there are still used.");
    }
}

std::shared_ptr<const void> CompileCache::memo(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = touch(key);
    return it == lru_.end() ? nullptr : it->memo;
}

void CompileCache::set_memo(const std::string& key, std::shared_ptr<const void> value, std::uint64_t bytes) {
    std::lock_guard lock(mu_);
    auto it = touch(key);
    if (it == lru_.end()) return;  // its payload was not kept (over the limit)
    memory_bytes_ += bytes - it->memo_bytes;
    it->memo = std::move(value);
    it->memo_bytes = bytes;
    evict_to(settings_.memory_limit_bytes);
}

void CompileCache::set_memory_limit(std::uint64_t bytes) {
    std::lock_guard lock(mu_);
    settings_.memory_limit_bytes = bytes;
    evict_to(bytes);
}

CacheInfo CompileCache::info() {
    std::lock_guard lock(mu_);
    CacheInfo info;
    info.memory_entries = lru_.size();
    info.memory_bytes = memory_bytes_;
    info.memory_limit_bytes = settings_.memory_limit_bytes;
    if (!settings_.dir) return info;
    info.dir = settings_.dir->string();
    info.disk_enabled = prepare_disk();
    info.disk_writable = info.disk_enabled && writable_;
    if (!info.disk_enabled) return info;
    std::error_code ec;
    for (fs::directory_iterator it(*settings_.dir, ec), end; !ec && it != end; it.increment(ec)) {
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
    lru_.clear();
    slots_.clear();
    memory_bytes_ = 0;
    if (!settings_.dir) return;
    std::error_code ec;
    std::vector<fs::path> doomed;
    for (fs::directory_iterator it(*settings_.dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (is_entry_name(name) || is_temp_name(name)) doomed.push_back(it->path());
    }
    for (const auto& p : doomed) fs::remove(p, ec);
}

std::string CompileCache::take_warning() {
    std::lock_guard lock(mu_);
    std::string text;
    for (const auto& w : pending_warnings_) text += (text.empty() ? "" : "\n") + w;
    pending_warnings_.clear();
    return text;
}

}  // namespace xcuda::compile
