#include "process_replacement.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace xcuda::kernel
{
    namespace
    {
        std::vector<std::string> own_command_line()
        {
            std::ifstream in("/proc/self/cmdline", std::ios::binary);
            const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            std::vector<std::string> args;
            std::string::size_type start = 0;
            while (start < all.size())
            {
                const auto end = all.find('\0', start);
                args.push_back(all.substr(start, end == std::string::npos ? std::string::npos : end - start));
                if (end == std::string::npos)
                {
                    break;
                }
                start = end + 1;
            }
            return args;
        }

        // Marks every descriptor above 2 close-on-exec (libzmq's and the driver's usually are;
        // a pipe or a file a library opened without the flag would keep a port or a device busy).
        void close_on_exec_above_stderr()
        {
            DIR* dir = ::opendir("/proc/self/fd");
            if (dir == nullptr)
            {
                return;
            }
            const int own = ::dirfd(dir);
            while (const dirent* entry = ::readdir(dir))
            {
                const int fd = std::atoi(entry->d_name);
                if (fd > 2 && fd != own)
                {
                    const int flags = ::fcntl(fd, F_GETFD);
                    if (flags >= 0)
                    {
                        ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
                    }
                }
            }
            ::closedir(dir);
        }
    }

    std::string replace_this_process(const std::function<void()>& before)
    {
        const std::vector<std::string> args = own_command_line();
        if (args.empty())
        {
            return "this process's command line could not be read from /proc/self/cmdline";
        }
        std::vector<char*> argv;
        for (const std::string& a : args)
        {
            argv.push_back(const_cast<char*>(a.c_str()));
        }
        argv.push_back(nullptr);
        close_on_exec_above_stderr();
        if (before)
        {
            before();
        }
        // The command as it was given, not /proc/self/exe: a venv's bin/python is a link to the
        // interpreter, and only through the link does Python find the venv (its pyvenv.cfg).
        if (args[0].find('/') != std::string::npos)
        {
            ::execv(args[0].c_str(), argv.data());
        }
        else
        {
            ::execvp(args[0].c_str(), argv.data());
        }
        const std::string first = std::strerror(errno);
        ::execv("/proc/self/exe", argv.data());
        return "exec of " + args[0] + " failed (" + first + "), and of /proc/self/exe (" + std::strerror(errno) + ")";
    }
}
