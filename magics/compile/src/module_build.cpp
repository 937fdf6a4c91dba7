#include "module_build.hpp"

#include "xcuda/compile/param_layout.hpp"
#include "xcuda/rt/ptxas_info.hpp"

#include <map>

namespace xcuda::compile {

const CompiledKernel* CompiledModule::find(std::string_view name, std::string_view instantiation) const {
    for (const auto& k : kernels)
        if ((k.decl.name == name || k.decl.qualified_name == name) && k.instantiation == instantiation) return &k;
    return nullptr;
}

}  // namespace xcuda::compile

namespace xcuda::compile::detail {
namespace {

// The symbol of a variable NVRTC was not asked to lower: its name at global scope (C++ does
// not mangle those), _ZN<len><part>...E inside named namespaces.
std::string mangled_variable_name(const std::string& qualified) {
    if (qualified.find("::") == std::string::npos) return qualified;
    std::string out = "_ZN";
    std::size_t start = 0;
    while (start <= qualified.size()) {
        std::size_t end = qualified.find("::", start);
        if (end == std::string::npos) end = qualified.size();
        out += std::to_string(end - start) + qualified.substr(start, end - start);
        start = end + 2;
    }
    return out + "E";
}

std::shared_ptr<CompiledModule> build_module(std::string_view source, const std::vector<Binding>& bindings,
                                             const std::vector<GlobalBinding>& globals, const CachePayload& payload,
                                             const std::string& label,
                                             const std::map<std::string, std::string>& type_aliases) {
    auto m = std::make_shared<CompiledModule>();
    m->cubin = payload.cubin;
    m->ptx = payload.ptx;
    m->log = payload.log;
    m->cell_label = label;
    m->warnings = cell_diagnostics(payload.log, source, label);
    auto resources = rt::parse_ptxas_info(payload.log);
    std::map<std::string, std::string> lowered(payload.lowered_names.begin(), payload.lowered_names.end());
    for (const auto& b : bindings) {
        CompiledKernel k;
        k.decl = b.decl;
        k.name_expression = b.name_expression;
        k.instantiation = b.instantiation;
        if (b.name_expression.empty()) {
            k.lowered_name = b.decl.name;
        } else if (auto it = lowered.find(b.name_expression); it != lowered.end()) {
            k.lowered_name = it->second;
        }
        auto r = resources.find(k.lowered_name);
        if (r != resources.end()) k.resources = r->second;
        resolve_type_aliases(k.decl, type_aliases);
        k.layouts = value_layouts(k.decl, ptx_entry_params(payload.ptx, k.lowered_name));
        m->kernels.push_back(std::move(k));
    }
    for (const auto& g : globals) {
        auto it = g.name_expression.empty() ? lowered.end() : lowered.find(g.name_expression);
        m->globals.push_back({g.decl, g.name_expression,
                              it != lowered.end() ? it->second : mangled_variable_name(g.decl.qualified_name)});
    }
    return m;
}

}  // namespace

std::vector<Diagnostic> cell_diagnostics(std::string_view log, std::string_view source, const std::string& label) {
    auto ds = parse_nvrtc_log(log, source);
    relabel(ds, cell_program_name, label);
    return ds;
}

std::shared_ptr<CompiledModule> bound_module(std::string_view source, const std::vector<Binding>& bindings,
                                             const std::vector<GlobalBinding>& globals, std::vector<std::string> notes,
                                             const CachePayload& payload, const std::string& label,
                                             const std::vector<std::pair<std::string, std::string>>& used) {
    auto aliases = parse_type_aliases(source);
    for (const auto& [name, text] : used) {
        for (auto& [alias, type] : parse_type_aliases(text)) aliases.emplace(alias, type);
    }
    auto m = build_module(source, bindings, globals, payload, label, aliases);
    m->notes = std::move(notes);
    for (const auto& [name, text] : used) m->headers_used.push_back(name);
    return m;
}

std::shared_ptr<const CompiledModule> memoised_module(CompileCache& cache, const std::string& key,
                                                      const std::string& label) {
    auto memo = cache.memo(key);
    if (!memo) return nullptr;
    auto m = std::static_pointer_cast<const CompiledModule>(memo);
    if (m->cell_label != label && !m->warnings.empty()) {
        auto relabelled = std::make_shared<CompiledModule>(*m);
        relabel(relabelled->warnings, m->cell_label, label);
        relabelled->cell_label = label;
        m = relabelled;
    }
    return m;
}

}  // namespace xcuda::compile::detail
