#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace nl = nlohmann;

// What the debugger answers about a cell stopped at a breakpoint, worked out without Python.
// While debugpy holds the cells' thread at a stop, the control thread must run no Python: on
// Python 3.12 debugpy's sys.monitoring suspends every thread that runs Python then, and the
// request it was answering is never answered.
namespace xcuda::kernel
{
    // IPython's and the kernel's own names (In, Out, get_ipython, _i1, _3, ...), which the
    // variables panel leaves out, as xeus-python's variable explorer does.
    bool is_kernel_variable_name(const std::string& name);

    // debugpy's `variables` reply for a stopped frame, less the kernel's own names.
    nl::json without_kernel_names(const nl::json& request, const nl::json& reply);

    // Whether `name` can only be a Python name (ASCII letters, digits, underscores, not starting
    // with a digit; other UTF-8 letters pass too: at worst Python refuses them as a syntax error).
    // richInspectVariables evaluates nothing else in a stopped frame: anything else would run.
    bool is_python_name(const std::string& name);

    // The `evaluate` debugpy runs in the stopped frame to render `name` as the notebook would
    // (xcuda._python_debugger.display_json: [data, metadata] as JSON text).
    nl::json rendering_request(const std::string& name, const nl::json& frame_id, int seq);

    // The [data, metadata] that request's reply carries, or why there is none. debugpy returns the
    // string as is (rawString) or as its repr, depending on its version: both are read.
    struct rendering
    {
        nl::json data;
        nl::json metadata;
        std::string problem;  // empty when data and metadata are set
    };
    rendering read_rendering(const std::string& name, const nl::json& evaluate_reply);
}
