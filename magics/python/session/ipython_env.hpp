#pragma once
// The IPython around the binding, where there is one: its shell, its UsageError, and code
// compiled as it compiles a cell. Below every layer that reports a bad request, so that launch
// hooks and profilers can raise what a magic raises.
#include <pybind11/pybind11.h>

#include <string>

namespace xcuda::magics {

pybind11::object ipython_shell();

// The user's Python of a magic (%%cuda_profile's cell, %cuda_timeit's statement) compiled as
// IPython compiles a cell: its text is kept where tracebacks look, so an error in it shows the
// line ("Cell In[7], line 2"), not a bare "<cuda_profile>:2". Without IPython, under `fallback`.
pybind11::object compile_user_code(const std::string& source, const char* fallback);

// IPython's UsageError (a bad magic line: shown without a traceback).
[[noreturn]] void usage_error(const std::string& message);

// IPython's UsageError where IPython is loaded, else ValueError: the profiling functions also
// work in a plain Python.
[[noreturn]] void profiling_usage_error(const std::string& message);

}  // namespace xcuda::magics
