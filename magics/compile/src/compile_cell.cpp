#include "xcuda/compile/compile_cell.hpp"

#include "binding_plan.hpp"
#include "cache_key.hpp"
#include "missing_headers.hpp"
#include "module_build.hpp"
#include "nvrtc_call.hpp"
#include "rerun_memo.hpp"

#include "xcuda/rt/compiler.hpp"
#include "xcuda/rt/driver.hpp"
#include "xcuda/rt/toolkit.hpp"

#include <chrono>

namespace xcuda::compile {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

const CompiledKernel* CompiledModule::find(std::string_view name, std::string_view instantiation) const {
    for (const auto& k : kernels)
        if ((k.decl.name == name || k.decl.qualified_name == name) && k.instantiation == instantiation) return &k;
    return nullptr;
}

CompileSession::CompileSession(std::shared_ptr<CompileCache> cache, CompilerFn compiler)
    : cache_(std::move(cache)), compiler_(compiler ? std::move(compiler) : CompilerFn(rt::compile)) {}

std::string CompileSession::default_arch(ArchSource* source) {
    if (!arch_override_.empty()) {
        if (source) *source = ArchSource::option;
        return arch_override_;
    }
    if (!resolved_arch_) {
        bool device = rt::driver_available();
        resolved_arch_ = {device ? rt::default_arch() : std::string(rt::fallback_arch),
                          device ? ArchSource::device : ArchSource::fallback};
    }
    if (source) *source = resolved_arch_->second;
    return resolved_arch_->first;
}

void CompileSession::set_default_arch(std::string arch) { arch_override_ = std::move(arch); }

CompileOutcome CompileSession::compile_cell(std::string_view source, const CellOptions& options,
                                            const HeaderRegistry& headers, const std::string& cell_label) {
    auto t0 = std::chrono::steady_clock::now();
    ArchSource arch_source = ArchSource::option;
    std::string arch = options.arch.empty() ? default_arch(&arch_source) : options.arch;
    if (!toolkit_dirs_) toolkit_dirs_ = rt::toolkit_include_dirs();
    if (nvrtc_version_.empty()) {
        nvrtc_ = rt::nvrtc_version();
        const auto [major, minor] = nvrtc_;
        nvrtc_version_ = std::to_string(major) + "." + std::to_string(minor);
        minimal_supported_ = major > 12 || (major == 12 && minor >= 4);
    }
    if (auto why = unsupported_by_nvrtc(options, nvrtc_.first, nvrtc_.second)) throw ParseError("--fast-compile", *why);
    std::vector<std::string> opts = nvrtc_options(options);
    const bool use_cache = cache_ && !options.no_cache;

    // A re-run: the call's own text finds the key, so the cell is not parsed, its #includes not
    // followed and nothing hashed. The memory cache still decides whether the module is there
    // (evicted, cleared), and any change to the header registry sends the call the long way.
    // Relocatable (-dc) calls are never remembered, so they never match.
    std::string call;
    if (use_cache) {
        call = detail::rerun_key(source, opts, options.instantiate, arch);
        auto it = reruns_.find(call);
        if (it != reruns_.end() && it->second.headers_generation == headers.generation()) {
            if (auto m = memoised(it->second.key, cell_label)) return {m, CacheLevel::memory, ms_since(t0), {}};
        }
    }

    ++derivations_;
    const bool relocatable = wants_relocatable_code(opts);  // a linked module depends on other cells: never memoised
    auto used = headers.used_by(source);

    const std::string key =
        detail::cache_key(source, opts, options.instantiate, used, headers, arch, nvrtc_version_, *toolkit_dirs_);

    if (use_cache && !relocatable) {
        if (auto m = memoised(key, cell_label)) {
            remember_rerun(std::move(call), key, headers.generation());
            return {m, CacheLevel::memory, ms_since(t0), {}};
        }
    }

    std::vector<std::string> notes;
    std::vector<detail::GlobalBinding> globals;
    std::vector<detail::Binding> bindings =
        detail::plan_bindings(parse_kernels(source), parse_globals(source), options, globals, notes);

    CacheLevel level = CacheLevel::none;
    std::shared_ptr<const CachePayload> payload = use_cache ? cache_->lookup(key, &level) : nullptr;
    if (!payload) {
        if (!supported_archs_) supported_archs_ = rt::supported_archs();
        detail::check_supported_arch(arch, *supported_archs_, nvrtc_version_);
        rt::CompileOptions co;
        co.program_name = cell_program_name;
        co.arch = arch;
        co.options = opts;
        co.pch_dir = private_pch_dir(opts);
        for (auto& [name, text] : detail::nvrtc_headers(used, headers)) co.headers.push_back({name, std::move(text)});
        for (const auto& b : bindings)
            if (!b.name_expression.empty()) co.name_expressions.push_back(b.name_expression);
        for (const auto& g : globals)
            if (!g.name_expression.empty()) co.name_expressions.push_back(g.name_expression);
        co.toolkit_includes = true;
        co.resource_usage = true;  // ptxas -v costs no measurable time (bench/probes/compile_probe.py, H200)
        co.minimal = minimal_supported_ && detail::may_compile_minimal(source, opts, !used.empty());
        auto run_compiler = [&] {
            ++calls_;
            if (!compiler_runner_) return compiler_(source, co);
            rt::CompileResult result;
            compiler_runner_([&] { result = compiler_(source, co); });
            return result;
        };
        rt::CompileResult r;
        try {
            try {
                r = run_compiler();
            } catch (const rt::CompileError&) {
                if (!co.minimal) throw;
                co.minimal = false;  // errors are always the whole language's
                r = run_compiler();
            }
        } catch (const rt::CompileError& e) {
            auto diagnostics = detail::cell_diagnostics(e.log(), source, cell_label);
            std::string hint;
            try {
                const rt::HeadersInUse found = rt::headers_in_use();
                hint = detail::missing_header_hint(diagnostics, !found.cccl_dir.empty(), !found.include_dir.empty(),
                                                   rt::nvrtc_version().first);
            } catch (const rt::CudaError&) {
                // A compiler stand-in without NVRTC: no hint.
            }
            throw CellCompileError(
                e.program_name(), e.options(), e.log(), diagnostics, cell_label,
                hint.empty() ? std::string() : compile_error_text(diagnostics, e.log()) + "\n" + hint);
        }
        auto p = std::make_shared<CachePayload>();
        p->cubin = std::move(r.cubin);
        p->ptx = std::move(r.ptx);
        p->log = std::move(r.log);
        for (const auto& [expr, lowered] : r.lowered_names) p->lowered_names.emplace_back(expr, lowered);
        payload = p;
        if (use_cache) cache_->store(key, payload);
        level = CacheLevel::none;
    }
    std::shared_ptr<const CachePayload> loadable = payload;
    if (relocatable) loadable = device_link(*payload, arch, cell_label, opts);
    auto m = detail::bound_module(source, bindings, globals, std::move(notes), *loadable, cell_label, used);
    m->arch = arch;
    m->arch_source = arch_source;
    m->nvrtc_options = opts;
    m->cache_key = key;
    if (use_cache && !relocatable) {
        // the module holds its own copies of the payload's CUBIN, PTX and log
        cache_->set_memo(key, m, m->cubin.size() + m->ptx.size() + m->log.size());
        remember_rerun(std::move(call), key, headers.generation());
    }
    return {m, level, ms_since(t0), use_cache ? cache_->take_warning() : std::string()};
}

CompileOutcome CompileSession::adopt_cell(std::string_view source, const CellOptions& options,
                                          const HeaderRegistry& headers, const std::string& arch,
                                          const CachePayload& payload, const std::string& cell_label) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> notes;
    std::vector<detail::GlobalBinding> globals;
    std::vector<detail::Binding> bindings =
        detail::plan_bindings(parse_kernels(source), parse_globals(source), options, globals, notes);
    auto m =
        detail::bound_module(source, bindings, globals, std::move(notes), payload, cell_label, headers.used_by(source));
    m->arch = arch;
    m->arch_source = ArchSource::option;
    m->nvrtc_options = nvrtc_options(options);
    return {m, CacheLevel::none, ms_since(t0), {}};
}

}  // namespace xcuda::compile
