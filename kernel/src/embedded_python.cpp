#include "embedded_python.hpp"

#include <stdexcept>
#include <string>

#include "build_paths.hpp"

namespace xcuda::kernel
{
    namespace
    {
        void check(PyStatus status, PyConfig& config, const char* what)
        {
            if (PyStatus_Exception(status))
            {
                std::string message = std::string("xcuda: cannot ") + what + ": "
                                      + (status.err_msg ? status.err_msg : "unknown error");
                PyConfig_Clear(&config);
                throw std::runtime_error(message);
            }
        }
    }

    pybind11::scoped_interpreter start_embedded_python(int argc, char* argv[])
    {
        PyConfig config;
        PyConfig_InitPythonConfig(&config);
        // The kernel's own command line (-f connection_file) is not Python's.
        config.parse_argv = 0;
        check(PyConfig_SetBytesString(&config, &config.program_name, build::python_executable),
              config, "set the embedded Python's program name");
        check(PyConfig_SetBytesString(&config, &config.home, build::python_prefix),
              config, "set the embedded Python's home");
        // sys.argv is the executable alone: IPython's application parses sys.argv and
        // would warn about the kernel's -f. Not adding xcuda's bin/ to sys.path.
        return pybind11::scoped_interpreter(&config, argc > 0 ? 1 : 0, argv, false);
    }
}
