// Files only their owner may have written: what the disk cache reads and writes. Every open
// refuses symbolic links (one planted in a shared directory would point the reader anywhere)
// and every check is made on the opened descriptor, not on the name (no check-then-use race).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace xcuda::compile::detail {

struct OwnedFile {
    std::optional<std::string> bytes;  // the contents; nullopt when absent, unreadable or untrusted
    std::string untrusted;             // why an existing file was refused ("" otherwise)
};

// Reads `path` when it is a regular file of `owner` with none of the `forbidden_mode` bits
// (e.g. 022: writable by others) and at most `max_bytes` long.
OwnedFile read_owned_file(const std::filesystem::path& path, uid_t owner, mode_t forbidden_mode,
                          std::uint64_t max_bytes);

// Whether a write waits for the disk (fsync) before it returns.
enum class Durability { synced, unsynced };

// Creates `path` (it must not exist) as a 0600 file holding `bytes`, fsync'ed when `durability`
// says so. Returns "" or why not; nothing is left behind on failure.
std::string write_private_file(const std::filesystem::path& path, const std::string& bytes, Durability durability);

// Writes `bytes` to a fresh temporary in `target`'s directory and renames it over `target`, so
// a running reader sees the old file or the whole new one. Not fsync'ed: for files whose readers
// check them (a cache entry's HMAC), where a file a crash left short or empty is only a miss. An
// fsync waits for the filesystem's journal, 0.3 ms on a quiet disk and 20 ms or more while
// other processes write, on every cold compile. Returns "" or why not.
std::string replace_file_atomically(const std::filesystem::path& target, const std::string& bytes);

// Creates `path` with `bytes` unless it exists (then leaves it): two processes racing get one
// file, whole, and fsync'ed with its directory (the cache's key: written once per directory).
// Returns "" (created or already there) or why not.
std::string create_file_once(const std::filesystem::path& path, const std::string& bytes);

// A temporary file name next to entries: ".<stem>.<pid>.<counter>.tmp".
std::string temp_file_name(const std::string& stem);

// `n` bytes from the kernel's CSPRNG, or nullopt.
std::optional<std::string> random_bytes(std::size_t n);

// "0644"
std::string octal_mode(mode_t mode);

}  // namespace xcuda::compile::detail
