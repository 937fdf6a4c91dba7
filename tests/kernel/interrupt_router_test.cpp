// interrupt_router against the embedded interpreter, without xeus: SIGINT sent to this
// process must raise KeyboardInterrupt in a cell exactly once, even when it lands in the
// gap between a blocking call's last signal check and its syscall.
#include <gtest/gtest.h>
#include <pybind11/embed.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "interrupt_router.hpp"

namespace py = pybind11;
using xcuda::kernel::interrupt_router;
using clock_type = std::chrono::steady_clock;

namespace
{
    interrupt_router* router = nullptr;

    // The router's policy here: the kernel's asks whether the frame runs the user's code.
    bool in_users_code = true;

    struct outside_users_code
    {
        outside_users_code() { in_users_code = false; }
        ~outside_users_code() { in_users_code = true; }
    };

    // Spins without a syscall or a Python bytecode: a forwarded interrupt arriving now
    // trips Python's flag, and nothing consumes it.
    void spin_for(std::chrono::milliseconds span)
    {
        const auto until = clock_type::now() + span;
        while (clock_type::now() < until)
        {}
    }

    bool raises_keyboard_interrupt(const py::object& call)
    {
        try
        {
            call();
        }
        catch (py::error_already_set& e)
        {
            return e.matches(PyExc_KeyboardInterrupt);
        }
        return false;
    }

    double seconds_since(clock_type::time_point start)
    {
        return std::chrono::duration<double>(clock_type::now() - start).count();
    }

    py::object sleep_for(double seconds)
    {
        return py::cpp_function([seconds] { py::module_::import("time").attr("sleep")(seconds); });
    }
}

TEST(InterruptRouter, AnInterruptTrippedJustBeforeASleepStillEndsIt)
{
    // The sleep is called from C++, so no bytecode runs between the trip and its
    // clock_nanosleep: exactly the race that lost an interrupt in CI. Only waking the
    // cell again ends the sleep.
    interrupt_router::cell_scope cell(*router);
    ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
    spin_for(std::chrono::milliseconds(300));
    const auto start = clock_type::now();
    EXPECT_TRUE(raises_keyboard_interrupt(sleep_for(20)));
    EXPECT_LT(seconds_since(start), 1.0);
}

TEST(InterruptRouter, AnInterruptDuringASleepEndsItWithinASecond)
{
    interrupt_router::cell_scope cell(*router);
    std::thread sender([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ::kill(::getpid(), SIGINT);
    });
    const auto start = clock_type::now();
    EXPECT_TRUE(raises_keyboard_interrupt(sleep_for(20)));
    sender.join();
    EXPECT_LT(seconds_since(start), 1.0);
}

TEST(InterruptRouter, ACaughtInterruptIsNotRaisedAgain)
{
    // Once KeyboardInterrupt reached Python, the cell is left alone: code that catches it
    // and sleeps again must sleep in peace.
    interrupt_router::cell_scope cell(*router);
    ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
    spin_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(raises_keyboard_interrupt(sleep_for(20)));
    const auto start = clock_type::now();
    EXPECT_FALSE(raises_keyboard_interrupt(sleep_for(0.5)));
    EXPECT_GE(seconds_since(start), 0.5);
}

TEST(InterruptRouter, AnInterruptBetweenCellsIsDropped)
{
    ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    interrupt_router::cell_scope cell(*router);
    EXPECT_FALSE(raises_keyboard_interrupt(sleep_for(0.3)));
}

TEST(InterruptRouter, RepeatedInterruptsEachLandOnce)
{
    for (int round = 0; round < 20; ++round)
    {
        interrupt_router::cell_scope cell(*router);
        ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
        // Alternate the two orders: the interrupt before the sleep starts, and during it.
        spin_for(std::chrono::milliseconds(round % 2 == 0 ? 0 : 60));
        const auto start = clock_type::now();
        EXPECT_TRUE(raises_keyboard_interrupt(sleep_for(20))) << "round " << round;
        EXPECT_LT(seconds_since(start), 1.0) << "round " << round;
    }
}

TEST(InterruptRouter, AnInterruptOutsideTheUsersCodeWaitsUntilTheCellReachesIt)
{
    interrupt_router::cell_scope cell(*router);
    {
        outside_users_code bookkeeping;
        ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
        const auto start = clock_type::now();
        EXPECT_FALSE(raises_keyboard_interrupt(sleep_for(0.3)));
        EXPECT_GE(seconds_since(start), 0.3);
    }
    const auto start = clock_type::now();
    EXPECT_TRUE(raises_keyboard_interrupt(sleep_for(20)));
    EXPECT_LT(seconds_since(start), 1.0);
}

TEST(InterruptRouter, AnInterruptThatNeverReachedTheUsersCodeEndsWithItsCell)
{
    {
        interrupt_router::cell_scope cell(*router);
        outside_users_code bookkeeping;
        ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
        EXPECT_FALSE(raises_keyboard_interrupt(sleep_for(0.3)));
    }
    interrupt_router::cell_scope next_cell(*router);
    EXPECT_FALSE(raises_keyboard_interrupt(sleep_for(0.3)));
}

TEST(InterruptRouter, PythonSeesTheHandlerAsTheDefaultOne)
{
    // asyncio.run installs its own SIGINT handling only where it finds the default.
    py::module_ signal_module = py::module_::import("signal");
    EXPECT_TRUE(signal_module.attr("getsignal")(SIGINT).is(signal_module.attr("default_int_handler")));
}

int main(int argc, char** argv)
{
    // As in the kernel's main: signals blocked before any thread exists.
    interrupt_router::block_signals_in_this_thread();
    ::testing::InitGoogleTest(&argc, argv);
    py::scoped_interpreter python;
    interrupt_router routing(py::cpp_function([](py::object /*frame*/) { return in_users_code; }));
    router = &routing;
    return RUN_ALL_TESTS();
}
