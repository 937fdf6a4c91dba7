#include "xcuda/compile/compile_cell.hpp"

#include "binding_plan.hpp"
#include "cache_key.hpp"
#include "missing_headers.hpp"
#include "module_build.hpp"
#include "nvrtc_call.hpp"

#include "xcuda/rt/compiler.hpp"
#include "xcuda/rt/toolkit.hpp"

#include <chrono>

namespace xcuda::compile {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

CompileSession::CompileSession(std::shared_ptr<CompileCache> cache, CompilerFn compiler)
    : cache_(std::move(cache)), compiler_(compiler ? std::move(compiler) : CompilerFn(rt::compile)) {}

CompileOutcome CompileSession::compile_cell(std::string_view source, const CellOptions& options,
                                            const HeaderRegistry& headers, const std::string& cell_label) {
    auto t0 = std::chrono::steady_clock::now();
    ArchSource arch_source = ArchSource::option;
    std::string arch = options.arch.empty() ? toolchain_.default_arch(&arch_source) : options.arch;
    const NvrtcFacts& nvrtc = toolchain_.nvrtc();
    if (auto why = unsupported_by_nvrtc(options, nvrtc.major, nvrtc.minor)) throw ParseError("--fast-compile", *why);
    std::vector<std::string> opts = nvrtc_options(options);
    const bool use_cache = cache_ && !options.no_cache;

    // A re-run: the call's own text finds the key, so the cell is not parsed, its #includes not
    // followed and nothing hashed. The memory cache still decides whether the module is there
    // (evicted, cleared), and any change to the header registry sends the call the long way.
    // Relocatable (-dc) calls are never remembered, so they never match.
    std::string call;
    if (use_cache) {
        call = RerunMemo::call_key(source, opts, options.instantiate, arch);
        if (const std::string* key = reruns_.find(call, headers.generation())) {
            if (auto m = detail::memoised_module(*cache_, *key, cell_label))
                return {m, CacheLevel::memory, ms_since(t0), {}};
        }
    }

    ++derivations_;
    const bool relocatable = options.relocatable;  // a linked module depends on other cells: never memoised
    auto used = headers.used_by(source);

    const std::string key = detail::cache_key(source, opts, options.instantiate, used, headers, arch, nvrtc);

    if (use_cache && !relocatable) {
        if (auto m = detail::memoised_module(*cache_, key, cell_label)) {
            reruns_.remember(std::move(call), key, headers.generation());
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
        detail::check_supported_arch(arch, nvrtc);
        rt::CompileOptions co;
        co.program_name = cell_program_name;
        co.arch = arch;
        co.options = opts;
        co.pch_dir = private_pch_dir(options.pch);
        for (auto& [name, text] : detail::nvrtc_headers(used, headers)) co.headers.push_back({name, std::move(text)});
        for (const auto& b : bindings)
            if (!b.name_expression.empty()) co.name_expressions.push_back(b.name_expression);
        for (const auto& g : globals)
            if (!g.name_expression.empty()) co.name_expressions.push_back(g.name_expression);
        co.toolkit_includes = true;
        co.resource_usage = true;  // ptxas -v costs no measurable time (bench/probes/compile_probe.py, H200)
        co.minimal = nvrtc.knows_minimal() && detail::may_compile_minimal(source, options, !used.empty());
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
                                                   nvrtc.major);
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
        reruns_.remember(std::move(call), key, headers.generation());
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
