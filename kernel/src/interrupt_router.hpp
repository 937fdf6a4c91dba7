#pragma once

#include <pthread.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace xcuda::kernel
{
    // Owns SIGINT. xeus-python's own main maps SIGINT to exit, and an EINTR inside xeus's
    // zmq::poll throws; so SIGINT stays blocked in every thread and one thread takes it
    // with sigwait. During a cell it forwards the interrupt to the main thread as a
    // real-time signal whose handler calls PyErr_SetInterrupt: a busy loop sees it at its
    // next bytecode, and time.sleep, select or a zmq recv (input()) return EINTR and
    // check Python's pending signals. Outside a cell SIGINT is dropped, like ipykernel,
    // so it cannot hit the next cell.
    //
    // The KeyboardInterrupt is raised only where a policy allows (the kernel's: inside the
    // user's code, xcuda/_interrupt_policy.py says why); landing elsewhere, the handler asks to
    // be tripped again on the next wake, and a cell that ends first drops the interrupt.
    //
    // A forward can land after a blocking call's last signal check and before its syscall
    // (time.sleep checks nothing before it sleeps): Python's flag is set, but nothing
    // breaks the sleep. So Python's SIGINT handler is one that notes the interrupt reached
    // Python, and until it has, the main thread is woken again every wake_again_period
    // (only woken: the flag is not set twice, so a caught KeyboardInterrupt is not raised
    // again) for at most wake_again_for.
    class interrupt_router
    {
    public:
        static constexpr std::chrono::milliseconds wake_again_period{50};
        static constexpr std::chrono::milliseconds wake_again_for{2000};

        // Must run in main() before any other thread starts: threads inherit the mask.
        static void block_signals_in_this_thread();

        // In the main thread, after the interpreter started (takes the GIL): installs the
        // noting SIGINT handler as both signal.getsignal(SIGINT) and
        // signal.default_int_handler, so code that checks for the default (asyncio.run)
        // still finds it. may_raise_at(frame) says whether KeyboardInterrupt may be raised in
        // the Python frame the interrupt reached (the frame is None where no Python code runs):
        // true raises it, false waits for the user's code, None drops it.
        explicit interrupt_router(pybind11::object may_raise_at);
        ~interrupt_router();
        interrupt_router(const interrupt_router&) = delete;
        interrupt_router& operator=(const interrupt_router&) = delete;

        // What SIGINT does; also the control channel's interrupt_request.
        void interrupt();

        // Marks the main thread's run of one cell: only then does an interrupt reach Python.
        class cell_scope
        {
        public:
            explicit cell_scope(interrupt_router& router);
            ~cell_scope();
            cell_scope(const cell_scope&) = delete;
            cell_scope& operator=(const cell_scope&) = delete;

        private:
            interrupt_router& m_router;
        };

    private:
        void wait_for_signals();
        void wake_again_until_landed();

        std::mutex m_mutex;
        bool m_in_cell = false;
        pthread_t m_cell_thread{};
        std::chrono::steady_clock::time_point m_forwarded_at{};
        std::atomic<bool> m_stopping{false};
        std::thread m_waiter;
    };
}
