#pragma once
// `%%cuda -h` alone in a cell prints the help. IPython refuses a cell magic with an empty body
// before the magic runs ("the cell body is empty"), so an input transformer turns such a cell
// into the line magic (`%cuda -h`), which prints the same help.
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

namespace xcuda::magics {

// The line magic a cell of `lines` (as IPython splits it, line ends kept) stands for when it is
// one of our cell magics asking for help (-h or --help before any `--`) with nothing under it.
std::optional<std::string> help_cell_as_line_magic(const std::vector<std::string>& lines);

void register_help_cells(pybind11::object ip);  // idempotent
void unregister_help_cells(pybind11::object ip);

}  // namespace xcuda::magics
