// What NVRTC is called with for a cell besides the cell's own options: the headers it is
// handed, whether -minimal is tried, and the arch checked against the ones this NVRTC knows.
#pragma once

#include "xcuda/compile/cell_options.hpp"
#include "xcuda/compile/header_registry.hpp"
#include "xcuda/compile/toolchain_facts.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcuda::compile::detail {

// The machine architecture an arch names: "compute_90" -> "sm_90" ("sm_90a" stays).
std::string machine_arch(const std::string& arch);

// Throws ParseError naming the archs `nvrtc` supports (none known: nothing checked) when `arch`
// is none of them; an arch-specific suffix (sm_90a, sm_100f) is supported with its base arch.
void check_supported_arch(const std::string& arch, const NvrtcFacts& nvrtc);

// NVRTC's -minimal (12.4+) leaves out texture and surface functions, the device runtime
// (cudaMalloc & co.), launches from device code and the runtime API's types; in exchange a small
// cell compiles faster (saxpy to sm_90 cubin: 21.7 -> 18.6 ms here, the front end's share). It is
// tried for cells that include nothing (a header may need what it leaves out), name none of it and
// do not ask for it themselves (`options`); a cell that then fails is compiled again without, so
// the user only sees errors of the whole language. False positives here only cost the speed-up.
bool may_compile_minimal(std::string_view source, const CellOptions& options, bool uses_headers);

// The built-in standard headers go to every compile, not only to cells that include one: NVRTC
// then also finds them for headers it reads from -I dirs, which the registry cannot scan, and
// handing NVRTC all of them costs nothing measurable (saxpy to sm_90, NVRTC 13.0 called directly,
// 30 alternating runs: 25.4 ms median without, 25.2 ms with). A registered header of the same
// name replaces the built-in one.
std::vector<std::pair<std::string, std::string>> nvrtc_headers(
    const std::vector<std::pair<std::string, std::string>>& used, const HeaderRegistry& registry);

}  // namespace xcuda::compile::detail
