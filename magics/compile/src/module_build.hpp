// A compiled payload bound into a CompiledModule: each planned kernel's lowered name,
// resources and parameter layouts, each variable's symbol, the log's warnings and the notes; and
// a module the memory cache kept, under a re-run's new label.
#pragma once

#include "binding_plan.hpp"

#include "xcuda/compile/cache_entry.hpp"
#include "xcuda/compile/compile_cache.hpp"
#include "xcuda/compile/compiled_module.hpp"
#include "xcuda/compile/diagnostics.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcuda::compile::detail {

// The diagnostics of an NVRTC log, the cell's own relabelled from cell_program_name to `label`.
std::vector<Diagnostic> cell_diagnostics(std::string_view log, std::string_view source, const std::string& label);

// The module `payload` makes of `source`: the bindings resolved with the type aliases of the cell
// and of the headers it includes (`used`: name, text; the cell's win), its notes and the names of
// those headers.
std::shared_ptr<CompiledModule> bound_module(std::string_view source, const std::vector<Binding>& bindings,
                                             const std::vector<GlobalBinding>& globals, std::vector<std::string> notes,
                                             const CachePayload& payload, const std::string& label,
                                             const std::vector<std::pair<std::string, std::string>>& used);

// The module the memory cache keeps for `key` (CompileCache::memo), its warnings relabelled for
// `label` when it was compiled under another; null when the cache has none.
std::shared_ptr<const CompiledModule> memoised_module(CompileCache& cache, const std::string& key,
                                                      const std::string& label);

}  // namespace xcuda::compile::detail
