# Which Python the `xcuda` package is built for, and where its files go.
#
# pip (scikit-build-core) names the Python running it. A plain CMake build takes
# -DPython_EXECUTABLE, else Debian's /usr/bin/python3, where apt's IPython, jupyter_client and
# xeus-python-shell live (the tests need them), not whatever python3 comes first on PATH (pyenv
# here, a 3.12 virtualenv on the GPU machine).
if(NOT Python_EXECUTABLE AND NOT SKBUILD AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python the xcuda package is built for")
endif()
set(_xcuda_python_components Interpreter Development.Module)
if(XCUDA_BUILD_TESTS AND XCUDA_BUILD_KERNEL)
  list(APPEND _xcuda_python_components Development.Embed)  # the interrupt router's unit test
endif()
find_package(Python 3.10 COMPONENTS ${_xcuda_python_components})
if(NOT Python_FOUND)
  message(FATAL_ERROR "xcuda needs CPython 3.10 or newer with its headers (${_xcuda_python_components}); "
                      "found: ${Python_EXECUTABLE} ${Python_VERSION}. Debian/Ubuntu: apt install python3-dev; "
                      "conda: conda install python>=3.10; or pass -DPython_EXECUTABLE=/path/to/python3.")
endif()

# pybind11: a CMake package (Debian's pybind11-dev, conda), else the one pip installed next to
# the Python (`python -m pybind11 --cmakedir`).
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.10 CONFIG QUIET)
if(NOT pybind11_FOUND)
  execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11 --cmakedir
                  OUTPUT_VARIABLE _pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_package(pybind11 2.10 CONFIG QUIET HINTS "${_pybind11_dir}")
endif()
if(NOT pybind11_FOUND)
  message(FATAL_ERROR "pybind11 2.10 or newer not found. Debian/Ubuntu: apt install pybind11-dev; "
                      "pip: pip install pybind11; conda: conda install -c conda-forge pybind11.")
endif()

execute_process(
  COMMAND "${Python_EXECUTABLE}" -c "import sys; print(sys.prefix)"
  OUTPUT_VARIABLE XCUDA_PYTHON_PREFIX OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "xcuda: the package is built for Python ${Python_VERSION} at ${Python_EXECUTABLE} (prefix ${XCUDA_PYTHON_PREFIX})")

# JupyterLab offers its debugger for a kernelspec whose metadata says so: where debugpy imports.
execute_process(
  COMMAND "${Python_EXECUTABLE}" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('debugpy') is None)"
  RESULT_VARIABLE _xcuda_no_debugpy OUTPUT_QUIET ERROR_QUIET)
if(_xcuda_no_debugpy EQUAL 0)
  set(XCUDA_KERNELSPEC_DEBUGGER true)
else()
  set(XCUDA_KERNELSPEC_DEBUGGER false)
  message(STATUS "xcuda: debugpy is not importable in ${Python_EXECUTABLE}: the kernelspec offers no debugger "
                 "(Debian/Ubuntu: apt install python3-debugpy; pip: pip install debugpy)")
endif()

# The package as Python sees it: in the build tree (tests import it from there) and installed.
set(XCUDA_PACKAGE_BUILD_DIR "${CMAKE_BINARY_DIR}/python/xcuda")
if(SKBUILD)
  set(XCUDA_PACKAGE_INSTALL_DIR xcuda)  # relative to the wheel's site-packages
else()
  set(XCUDA_PYTHON_SITE_DIR "lib/python${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}/site-packages"
      CACHE STRING "Where `cmake --install` puts the xcuda package (relative to the prefix)")
  set(XCUDA_PACKAGE_INSTALL_DIR "${XCUDA_PYTHON_SITE_DIR}/xcuda")
endif()

# Copies a layer's Python files (and data) into the build tree's package when they change,
# and installs them with it. xcuda_package_files(TARGET name [SUBDIR dir] FILES f...)
function(xcuda_package_files)
  cmake_parse_arguments(ARG "" "TARGET;SUBDIR" "FILES" ${ARGN})
  set(_outputs "")
  foreach(_file IN LISTS ARG_FILES)
    get_filename_component(_source "${_file}" ABSOLUTE)
    get_filename_component(_name "${_file}" NAME)
    set(_output "${XCUDA_PACKAGE_BUILD_DIR}/${ARG_SUBDIR}/${_name}")
    add_custom_command(OUTPUT "${_output}"
                       COMMAND "${CMAKE_COMMAND}" -E copy "${_source}" "${_output}"
                       DEPENDS "${_source}" VERBATIM)
    list(APPEND _outputs "${_output}")
  endforeach()
  add_custom_target(${ARG_TARGET} ALL DEPENDS ${_outputs})
  install(FILES ${ARG_FILES} DESTINATION "${XCUDA_PACKAGE_INSTALL_DIR}/${ARG_SUBDIR}")
endfunction()

# An extension module of the package: xcuda_package_module(TARGET name MODULE _core SOURCES ...)
function(xcuda_package_module)
  cmake_parse_arguments(ARG "" "TARGET;MODULE" "SOURCES" ${ARGN})
  pybind11_add_module(${ARG_TARGET} ${ARG_SOURCES})
  set_target_properties(${ARG_TARGET} PROPERTIES
    OUTPUT_NAME ${ARG_MODULE}
    LIBRARY_OUTPUT_DIRECTORY "${XCUDA_PACKAGE_BUILD_DIR}")
  install(TARGETS ${ARG_TARGET} LIBRARY DESTINATION "${XCUDA_PACKAGE_INSTALL_DIR}")
endfunction()

# The Python bindings (xcuda-magics, xcuda._kernel) compile for each Python they are built for: in
# a user's `pip install .` and in CI's five builds they are most of the compile time, and most of
# each file's time is pybind11's templates, parsed and instantiated again in every file. Measured
# on one core (magics/python/kernels, four files): 49 s apart, 22 s as one unity file with line
# tables only. So they build as unity batches (-DXCUDA_UNITY_BINDINGS=OFF compiles file by file,
# for quick incremental rebuilds while editing one), and in RelWithDebInfo with line tables only
# (-g1: backtraces still name the file and line) instead of full debug info, which took a third of
# each file's time and which the stripped wheel drops anyway.
option(XCUDA_UNITY_BINDINGS "Compile the Python bindings as unity batches (a faster full build)" ON)
function(xcuda_binding_build target)
  if(XCUDA_UNITY_BINDINGS)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
  target_compile_options(${target} PRIVATE $<$<CONFIG:RelWithDebInfo>:-g1>)
endfunction()
