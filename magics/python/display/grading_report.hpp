#pragma once
// The exercise grader's reports (xcuda's Python side grades; these lay it out as the other
// reports are): xcuda._core._rubric_report(dict) -> Report and _access_map_svg(dict) -> str, from
// dicts whose keys are the fields of report::Rubric and report::AccessMap.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

void define_grading_report(pybind11::module_& m);

}  // namespace xcuda::magics
