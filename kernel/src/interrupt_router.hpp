#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
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
    // so it cannot hit the next cell. An input() wait the interrupt reached is woken
    // again every 100 ms until it ends (see stdin_wait.hpp).
    class interrupt_router
    {
    public:
        // Must run in main() before any other thread starts: threads inherit the mask.
        static void block_signals_in_this_thread();

        interrupt_router();
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

        std::mutex m_mutex;
        bool m_in_cell = false;
        std::uint64_t m_interrupted_stdin_wait = 0;
        pthread_t m_cell_thread{};
        std::atomic<bool> m_stopping{false};
        std::thread m_waiter;
    };
}
