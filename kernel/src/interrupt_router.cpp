#include "interrupt_router.hpp"

#include <pybind11/pybind11.h>
#include <signal.h>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

namespace py = pybind11;

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

        // Shared with the two handlers below, which cannot reach the router object.
        // Only the forwarding wake trips Python's flag; the later ones only break a wait.
        std::atomic<bool> trip_on_next_wake{false};
        // Interrupts forwarded during the current cell, and how many of them had reached
        // Python's SIGINT handler when it last ran.
        std::atomic<std::uint64_t> forwarded{0};
        std::atomic<std::uint64_t> landed{0};

        // Runs in the main thread: CPython only arms its eval loop's signal check when
        // the signal is received by the thread that handles signals, so
        // PyErr_SetInterrupt from the sigwait thread would stop time.sleep but not a busy
        // loop. PyErr_SetInterrupt and lock-free atomics are async-signal-safe.
        void on_wake(int)
        {
            if (trip_on_next_wake.exchange(false))
            {
                PyErr_SetInterrupt();
            }
        }

        // The router's policy (in the kernel, xcuda._interrupt_policy.may_raise_at), kept for
        // the process: the handler can run until the interpreter ends.
        PyObject* may_raise_at = nullptr;

        // Python's SIGINT handler: signal.default_int_handler's KeyboardInterrupt, raised only
        // inside the user's code (see _interrupt_policy for why), noting that the interrupts
        // forwarded so far reached it. Elsewhere it asks to be tripped again on the next wake,
        // or, where the policy says None (the cell's code has ended), drops them.
        PyObject* raise_keyboard_interrupt_in_user_code(PyObject*, PyObject* args)
        {
            PyObject* frame = PyTuple_GET_SIZE(args) >= 2 ? PyTuple_GET_ITEM(args, 1) : Py_None;
            PyObject* verdict = PyObject_CallOneArg(may_raise_at, frame);
            if (verdict == nullptr)
            {
                return nullptr;
            }
            if (verdict == Py_None)
            {
                // Dropped (the cell's code has ended): counted as landed, so nothing wakes the
                // cell again to raise it in what follows.
                Py_DECREF(verdict);
                landed = forwarded.load();
                Py_RETURN_NONE;
            }
            const int in_user_code = PyObject_IsTrue(verdict);
            Py_DECREF(verdict);
            if (in_user_code < 0)
            {
                return nullptr;
            }
            if (in_user_code == 0)
            {
                trip_on_next_wake = true;
                Py_RETURN_NONE;
            }
            landed = forwarded.load();
            PyErr_SetNone(PyExc_KeyboardInterrupt);
            return nullptr;
        }

        PyMethodDef keyboard_interrupt_handler{
            "default_int_handler", raise_keyboard_interrupt_in_user_code, METH_VARARGS,
            "Raises KeyboardInterrupt, like signal.default_int_handler, once the cell runs the\n"
            "user's code; the xcuda kernel also notes that the interrupt reached Python, so it\n"
            "stops waking the cell."};

        void install_keyboard_interrupt_handler(py::object policy)
        {
            py::gil_scoped_acquire gil;
            may_raise_at = policy.release().ptr();
            auto handler = py::reinterpret_steal<py::object>(PyCFunction_New(&keyboard_interrupt_handler, nullptr));
            if (!handler)
            {
                throw py::error_already_set();
            }
            py::module_ signal_module = py::module_::import("signal");
            signal_module.attr("signal")(SIGINT, handler);
            signal_module.attr("default_int_handler") = handler;
        }

        // Wakes left pending from an interrupt that came as the previous cell ended.
        void discard_pending_wakes()
        {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, wake_signal());
            const timespec no_wait{0, 0};
            while (sigtimedwait(&set, nullptr, &no_wait) > 0)
            {}
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
        struct sigaction action
        {};
        action.sa_handler = on_wake;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        sigaction(wake_signal(), &action, nullptr);
    }

    interrupt_router::interrupt_router(py::object may_raise_at)
    {
        install_keyboard_interrupt_handler(std::move(may_raise_at));
        m_waiter = std::thread([this] { wait_for_signals(); });
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
        const timespec poll_period{0, std::chrono::nanoseconds(wake_again_period).count()};
        while (!m_stopping)
        {
            if (sigtimedwait(&set, nullptr, &poll_period) == SIGINT)
            {
                interrupt();
                continue;
            }
            wake_again_until_landed();
        }
    }

    void interrupt_router::wake_again_until_landed()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_in_cell && landed < forwarded && std::chrono::steady_clock::now() - m_forwarded_at < wake_again_for)
        {
            pthread_kill(m_cell_thread, wake_signal());
        }
    }

    void interrupt_router::interrupt()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_in_cell)
        {
            return;
        }
        ++forwarded;
        m_forwarded_at = std::chrono::steady_clock::now();
        trip_on_next_wake = true;
        pthread_kill(m_cell_thread, wake_signal());
    }

    interrupt_router::cell_scope::cell_scope(interrupt_router& router)
        : m_router(router)
    {
        std::lock_guard<std::mutex> lock(m_router.m_mutex);
        m_router.m_in_cell = true;
        m_router.m_cell_thread = pthread_self();
        forwarded = 0;
        landed = 0;
        trip_on_next_wake = false;
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
    }
}
