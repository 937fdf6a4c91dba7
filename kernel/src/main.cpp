#include <unistd.h>

#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include <xeus/xhelper.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <zmq.hpp>

#include "conforming_server.hpp"
#include "build_paths.hpp"
#include "embedded_python.hpp"
#include "execution_history.hpp"
#include "interrupt_router.hpp"
#include "output_capture.hpp"
#include "python_output.hpp"
#include "xcuda_interpreter.hpp"

namespace
{
    int run(int argc, char* argv[])
    {
        using namespace xcuda::kernel;

        if (xeus::should_print_version(argc, argv))
        {
            std::cout << "xcuda " << build::version << std::endl;
            return 0;
        }
        const std::string connection_file = xeus::extract_filename(argc, argv);
        if (connection_file.empty())
        {
            std::cerr << "usage: xcuda -f CONNECTION_FILE\n"
                         "xcuda is a Jupyter kernel: install its kernelspec and start it from Jupyter "
                         "(see README.md)."
                      << std::endl;
            return 2;
        }
        xeus::xconfiguration config = xeus::load_configuration(connection_file);

        // Order matters: signals blocked before any thread exists (all inherit the mask),
        // fd 1/2 captured before Python or xeus write anything, Python before the kernel.
        interrupt_router::block_signals_in_this_thread();
        output_capture capture({STDOUT_FILENO, STDERR_FILENO});
        python_output output(capture);
        pybind11::scoped_interpreter python = start_embedded_python(argc, argv);
        interrupt_router interrupts;
        set_output_barrier([&output] { output.flush_streams(); });

        xeus::xkernel kernel(config,
                             xeus::get_user_name(),
                             xeus::make_context<zmq::context_t>(),
                             std::make_unique<xcuda_interpreter>(output, interrupts),
                             make_conforming_server,
                             std::make_unique<execution_history>());
        kernel.start();
        return 0;
    }
}

int main(int argc, char* argv[])
{
    try
    {
        return run(argc, argv);
    }
    catch (const std::exception& e)
    {
        std::cerr << e.what() << std::endl;
        return 1;
    }
}
