#include "private_files.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace xcuda::compile::detail {
namespace fs = std::filesystem;
namespace {

std::string why_untrusted(const struct stat& st, uid_t owner, mode_t forbidden_mode) {
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    if (st.st_uid != owner) return "owned by uid " + std::to_string(st.st_uid) + ", not you";
    if (st.st_mode & forbidden_mode) {
        const bool writable = st.st_mode & forbidden_mode & 022;
        return "mode " + octal_mode(st.st_mode) + (writable ? ": others can write it" : ": others can read it");
    }
    return {};
}

void sync_directory(const fs::path& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace

std::string octal_mode(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
    return text;
}

std::string temp_file_name(const std::string& stem) {
    static std::atomic<unsigned> counter{0};
    return "." + stem + "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp";
}

OwnedFile read_owned_file(const fs::path& path, uid_t owner, mode_t forbidden_mode, std::uint64_t max_bytes) {
    OwnedFile out;
    // O_NONBLOCK: a FIFO planted under an entry's name must not hang the kernel in open()
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP) out.untrusted = "a symbolic link";
        return out;
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0) {
        out.untrusted = why_untrusted(st, owner, forbidden_mode);
        if (out.untrusted.empty() && std::uint64_t(st.st_size) <= max_bytes) {
            std::string bytes(std::size_t(st.st_size), '\0');
            std::size_t got = 0;
            while (got < bytes.size()) {
                ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
                if (r < 0 && errno == EINTR) continue;
                if (r <= 0) break;
                got += std::size_t(r);
            }
            bytes.resize(got);
            out.bytes = std::move(bytes);
        }
    }
    ::close(fd);
    return out;
}

std::string write_private_file(const fs::path& path, const std::string& bytes, Durability durability) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return std::strerror(errno);
    std::string err;
    if (::fchmod(fd, 0600) != 0) err = std::strerror(errno);  // whatever the umask
    std::size_t done = 0;
    while (err.empty() && done < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            err = w < 0 ? std::strerror(errno) : "short write";
        else
            done += std::size_t(w);
    }
    if (err.empty() && durability == Durability::synced && ::fsync(fd) != 0) err = std::strerror(errno);
    if (::close(fd) != 0 && err.empty()) err = std::strerror(errno);
    if (!err.empty()) ::unlink(path.c_str());
    return err;
}

std::string replace_file_atomically(const fs::path& target, const std::string& bytes) {
    const fs::path tmp = target.parent_path() / temp_file_name(target.stem().string());
    std::string err = write_private_file(tmp, bytes, Durability::unsynced);
    if (!err.empty()) return err;
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
        err = std::strerror(errno);
        ::unlink(tmp.c_str());
        return err;
    }
    return {};
}

std::string create_file_once(const fs::path& path, const std::string& bytes) {
    const fs::path tmp = path.parent_path() / temp_file_name(path.filename().string());
    std::string err = write_private_file(tmp, bytes, Durability::synced);
    if (!err.empty()) return err;
    // link() fails with EEXIST instead of replacing: the first process's file stays, whole
    const int linked = ::link(tmp.c_str(), path.c_str());
    const int link_errno = errno;
    ::unlink(tmp.c_str());
    if (linked != 0 && link_errno != EEXIST) return std::strerror(link_errno);
    sync_directory(path.parent_path());
    return {};
}

std::optional<std::string> random_bytes(std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        ssize_t r = ::getrandom(out.data() + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return std::nullopt;
        got += std::size_t(r);
    }
    return out;
}

}  // namespace xcuda::compile::detail
