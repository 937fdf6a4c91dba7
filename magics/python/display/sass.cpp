#include "display/sass.hpp"

#include <xcuda/report/sass_view.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace xcuda::magics {
namespace {

std::vector<std::string> search_dirs() {
    std::vector<std::string> dirs;
    if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/bin");
    dirs.push_back("/usr/local/cuda/bin");
    if (const char* path = std::getenv("PATH")) {
        std::string p = path;
        std::size_t start = 0;
        while (start <= p.size()) {
            std::size_t end = p.find(':', start);
            if (end == std::string::npos) end = p.size();
            if (end > start) dirs.push_back(p.substr(start, end - start));
            start = end + 1;
        }
    }
    return dirs;
}

std::string find_tool(const std::string& name) {
    for (const auto& dir : search_dirs()) {
        const std::string candidate = dir + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return {};
}

// A cubin file only this process can read, removed on destruction.
class TempFile {
public:
    explicit TempFile(const std::string& bytes) {
        const char* tmp = std::getenv("TMPDIR");
        path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/xcuda-XXXXXX.cubin";
        int fd = mkstemps(path_.data(), 6);
        if (fd < 0) throw std::runtime_error("cannot create a temporary file for the CUBIN in " + path_);
        std::size_t done = 0;
        while (done < bytes.size()) {
            ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                close(fd);
                unlink(path_.c_str());
                throw std::runtime_error("cannot write the CUBIN to " + path_);
            }
            done += static_cast<std::size_t>(n);
        }
        close(fd);
    }
    ~TempFile() { unlink(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Runs argv[0] with stdout and stderr captured; returns the exit status.
int run(const std::vector<std::string>& args, std::string& output) {
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("pipe() failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        throw std::runtime_error("cannot run " + args[0]);
    }
    char buf[65536];
    for (;;) {
        ssize_t n = read(pipefd[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        output.append(buf, static_cast<std::size_t>(n));
    }
    close(pipefd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

report::Rich sass_report(const std::string& cubin) {
    std::vector<std::string> args;
    if (std::string tool = find_tool("cuobjdump"); !tool.empty()) {
        args = {tool, "-sass"};
    } else if (std::string nvdisasm = find_tool("nvdisasm"); !nvdisasm.empty()) {
        args = {nvdisasm};
    } else {
        return report::tool_missing("cuobjdump or nvdisasm", {"$CUDA_HOME/bin", "/usr/local/cuda/bin", "PATH"},
                                    "cuda-cuobjdump (or cuda-nvdisasm)", "to see SASS", "PTX is available with --ptx");
    }
    TempFile file(cubin);
    args.push_back(file.path());
    std::string output;
    const int status = run(args, output);
    if (status != 0) {
        report::Rich r;
        r.plain = args[0] + " failed (exit status " + std::to_string(status) + "):\n" + output;
        return r;
    }
    return report::sass_view(output);
}

}  // namespace xcuda::magics
