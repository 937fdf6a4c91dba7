# Which Python this build embeds (the kernel) or extends (the module).
#
# The kernel embeds the interpreter that libxeus-python was built for. Debian's
# libxeus-python does not link libpython, so that interpreter is the one installed in the
# same prefix as xeus-python (/usr/bin/python3 on Debian 12), not whatever python3 comes
# first on PATH (a pyenv or virtualenv python3.11 has the same version but not Debian's
# dist-packages, where IPython and xeus_python_shell live).
#
# The extension module builds for whatever Python_EXECUTABLE names (default: the first
# python3 on PATH), so the GPU machine can build it for its own Python 3.12.
if(XCUDA_BUILD_KERNEL)
  # Located before find_package(xeus-python): that package finds pybind11, and pybind11
  # searches for a Python of its own (the first python3 on PATH) unless Python_EXECUTABLE
  # and PYBIND11_FINDPYTHON are already set.
  if(NOT Python_EXECUTABLE)
    find_library(_xpyt_lib NAMES xeus-python)
    if(NOT _xpyt_lib)
      message(FATAL_ERROR "libxeus-python not found: install xeus-python-dev (.ci/install-deps).")
    endif()
    get_filename_component(_xpyt_lib "${_xpyt_lib}" REALPATH)
    get_filename_component(_xpyt_libdir "${_xpyt_lib}" DIRECTORY)
    # <prefix>/lib/<multiarch>/libxeus-python.so or <prefix>/lib/libxeus-python.so
    string(REGEX REPLACE "/lib(/[^/]+-linux-gnu)?$" "" _xpyt_prefix "${_xpyt_libdir}")
    find_program(_xpyt_python NAMES python3 PATHS "${_xpyt_prefix}/bin" NO_DEFAULT_PATH)
    if(NOT _xpyt_python)
      message(FATAL_ERROR "No python3 next to xeus-python in ${_xpyt_prefix}/bin. "
                          "Pass -DPython_EXECUTABLE=<the Python libxeus-python was built for>.")
    endif()
    set(Python_EXECUTABLE "${_xpyt_python}" CACHE FILEPATH "Python embedded by the xcuda kernel")
  endif()
  set(PYBIND11_FINDPYTHON ON)
  find_package(xeus 2.4 REQUIRED)
  find_package(xeus-python 0.14 REQUIRED)
  find_package(Python 3.8 REQUIRED COMPONENTS Interpreter Development.Embed Development.Module)
else()
  find_package(Python 3.8 REQUIRED COMPONENTS Interpreter Development.Module)
endif()
# pybind11 then uses this same Python instead of searching again.
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.6 CONFIG REQUIRED)

execute_process(
  COMMAND "${Python_EXECUTABLE}" -c "import sys; print(sys.prefix)"
  OUTPUT_VARIABLE XCUDA_PYTHON_PREFIX OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "xcuda: Python ${Python_VERSION} at ${Python_EXECUTABLE} (prefix ${XCUDA_PYTHON_PREFIX})")
