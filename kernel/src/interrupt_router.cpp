#include "interrupt_router.hpp"

#include <Python.h>
#include <signal.h>

#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

#include "stdin_wait.hpp"

namespace xcuda::kernel
{
    namespace
    {
        // A real-time signal nobody else uses: sent to the main thread, it raises
        // KeyboardInterrupt there and makes a blocking call return EINTR.
        int wake_signal()
        {
            return SIGRTMIN + 3;
        }

        // Runs in the main thread: CPython only arms its eval loop's signal check when
        // the signal is received by the thread that handles signals, so
        // PyErr_SetInterrupt from the sigwait thread would stop time.sleep but not a busy
        // loop. PyErr_SetInterrupt is async-signal-safe.
        void interrupt_python(int)
        {
            PyErr_SetInterrupt();
        }

        // Wakes left pending from an interrupt that came as the previous cell ended.
        void discard_pending_wakes()
        {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, wake_signal());
            const timespec no_wait{0, 0};
            while (sigtimedwait(&set, nullptr, &no_wait) > 0)
            {
            }
        }

        sigset_t owned_signals()
        {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGINT);
            sigaddset(&set, wake_signal());
            return set;
        }

        void set_wake_blocked(bool blocked)
        {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, wake_signal());
            pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
        }
    }

    void interrupt_router::block_signals_in_this_thread()
    {
        sigset_t set = owned_signals();
        if (int rc = pthread_sigmask(SIG_BLOCK, &set, nullptr); rc != 0)
        {
            throw std::runtime_error(std::string("xcuda: cannot block SIGINT: ") + std::strerror(rc));
        }
        // SA_RESTART: plain read/write in the main thread carry on; sleeps and polls,
        // which the kernel never restarts, return EINTR as wanted.
        struct sigaction action{};
        action.sa_handler = interrupt_python;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        sigaction(wake_signal(), &action, nullptr);
    }

    interrupt_router::interrupt_router()
        : m_waiter([this] { wait_for_signals(); })
    {
    }

    interrupt_router::~interrupt_router()
    {
        m_stopping = true;
        m_waiter.join();
    }

    void interrupt_router::wait_for_signals()
    {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        const timespec poll_period{0, 100'000'000};
        while (!m_stopping)
        {
            if (sigtimedwait(&set, nullptr, &poll_period) == SIGINT)
            {
                interrupt();
                continue;
            }
            // An input() interrupted just before its recv started is still waiting:
            // wake it again (the interrupt is already tripped, this only breaks the recv).
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_in_cell && m_interrupted_stdin_wait != 0
                && m_interrupted_stdin_wait == stdin_wait_scope::current())
            {
                pthread_kill(m_cell_thread, wake_signal());
            }
        }
    }

    void interrupt_router::interrupt()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_in_cell)
        {
            return;
        }
        m_interrupted_stdin_wait = stdin_wait_scope::current();
        pthread_kill(m_cell_thread, wake_signal());
    }

    interrupt_router::cell_scope::cell_scope(interrupt_router& router)
        : m_router(router)
    {
        std::lock_guard<std::mutex> lock(m_router.m_mutex);
        m_router.m_in_cell = true;
        m_router.m_cell_thread = pthread_self();
        discard_pending_wakes();
        set_wake_blocked(false);
    }

    interrupt_router::cell_scope::~cell_scope()
    {
        // Blocked again before the thread goes back to xeus's zmq::poll, which throws on
        // EINTR; a wake still pending is discarded when the next cell starts.
        set_wake_blocked(true);
        std::lock_guard<std::mutex> lock(m_router.m_mutex);
        m_router.m_in_cell = false;
        m_router.m_interrupted_stdin_wait = 0;
    }
}
