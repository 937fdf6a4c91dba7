#include "stdin_wait.hpp"

#include <atomic>

namespace xcuda::kernel
{
    namespace
    {
        std::atomic<std::uint64_t> next_wait{1};
        std::atomic<std::uint64_t> current_wait{0};
    }

    stdin_wait_scope::stdin_wait_scope()
    {
        current_wait = next_wait++;
    }

    stdin_wait_scope::~stdin_wait_scope()
    {
        current_wait = 0;
    }

    std::uint64_t stdin_wait_scope::current()
    {
        return current_wait;
    }
}
