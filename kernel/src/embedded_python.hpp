#pragma once

#include <pybind11/embed.h>

namespace xcuda::kernel
{
    // Starts the interpreter libxeus-python was built for: program name and home are the
    // build's Python (see build_paths.hpp), so a virtualenv or pyenv python3 first on
    // PATH, whose pyvenv.cfg would otherwise redirect sys.prefix, cannot swap the standard
    // library or site-packages under the kernel. argv becomes sys.argv unparsed.
    pybind11::scoped_interpreter start_embedded_python(int argc, char* argv[]);
}
