#include "xcuda/compile/compile_cell.hpp"

#include "cpp_tokens.hpp"

#include "xcuda/compile/builtin_headers.hpp"
#include "xcuda/compile/sha256.hpp"
#include "xcuda/rt/driver.hpp"
#include "xcuda/rt/ptxas_info.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>

namespace xcuda::compile {
namespace {

constexpr const char* program_name = cell_program_name;

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

std::vector<Diagnostic> cell_diagnostics(std::string_view log, std::string_view source, const std::string& label) {
    auto ds = parse_nvrtc_log(log, source);
    for (auto& d : ds)
        if (d.file == program_name) d.file = label;
    return ds;
}

// What to bind, and the NVRTC name expression that finds each C++ kernel's mangled name.
struct Binding {
    KernelDecl decl;
    std::string name_expression;
    std::string instantiation;
};

// A variable to find in the module, and the name expression that lowers it.
struct GlobalBinding {
    GlobalDecl decl;
    std::string name_expression;
};

// NVRTC refuses the address of a __managed__ variable as a name expression (it is not a
// constant): those are found by their Itanium-mangled name, computed below.
std::string name_expression_of(const GlobalDecl& g) {
    return g.space == MemorySpace::managed ? std::string() : "&" + g.key();
}

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

// The template of `name` among `candidates` (qualified names), matched in full or as the
// trailing part after "::" (an --instantiate may leave out the namespaces).
template <class Decl>
const Decl* find_template(const std::vector<Decl>& candidates, const std::string& name,
                          std::vector<std::string>& templates) {
    const Decl* match = nullptr;
    for (const auto& d : candidates) {
        if (!d.is_template) continue;
        templates.push_back(d.qualified_name);
        const std::string& q = d.qualified_name;
        const bool suffix = q.size() > name.size() + 2 && q.compare(q.size() - name.size(), name.size(), name) == 0 &&
                            q.compare(q.size() - name.size() - 2, 2, "::") == 0;
        if (!match && (q == name || suffix)) match = &d;
    }
    return match;
}

std::vector<Binding> plan_bindings(const std::vector<KernelDecl>& decls, const std::vector<GlobalDecl>& variables,
                                   const CellOptions& options, std::vector<GlobalBinding>& globals,
                                   std::vector<std::string>& notes) {
    std::vector<Binding> out;
    for (const auto& g : variables)
        if (!g.is_template) globals.push_back({g, name_expression_of(g)});
    std::map<std::string, int> same_name;  // overloads need a cast in their name expression
    for (const auto& d : decls) same_name[d.qualified_name] += !d.is_template;
    for (const auto& d : decls) {
        if (d.is_template) continue;
        if (!d.is_definition) {
            notes.push_back("__global__ " + d.qualified_name +
                            " is declared but not defined in this cell; "
                            "it is not bound");
            continue;
        }
        Binding b{d, "", ""};
        if (!d.is_extern_c) {
            if (same_name[d.qualified_name] > 1) {
                std::vector<std::string> types;
                for (const auto& p : d.params) types.push_back(p.type);
                b.name_expression = "static_cast<void(*)(" + join(types, ", ") + ")>(&" + d.qualified_name + ")";
            } else {
                b.name_expression = "&" + d.qualified_name;
            }
        }
        out.push_back(std::move(b));
    }
    for (const auto& expr : options.instantiate) {
        std::string name;
        std::vector<std::string> args;
        if (!split_template_expr(expr, name, args))
            throw ParseError(expr, "--instantiate " + expr +
                                       " is not a template instantiation; write it like "
                                       "'axpy<float>' (quoted)");
        std::vector<std::string> templates, template_variables;
        const KernelDecl* match = find_template(decls, name, templates);
        if (!match) {
            if (const GlobalDecl* variable = find_template(variables, name, template_variables)) {
                GlobalDecl inst = instantiate_global(*variable, args);
                globals.push_back({inst, name_expression_of(inst)});
                continue;
            }
            throw ParseError(expr, "--instantiate " + expr +
                                       ": this cell has no __global__ template or template "
                                       "variable named " +
                                       name +
                                       (templates.empty() ? " (it has no template kernels"
                                                          : " (its template kernels: " + join(templates, ", ")) +
                                       (template_variables.empty()
                                            ? ")"
                                            : "; template variables: " + join(template_variables, ", ") + ")"));
        }
        KernelDecl inst = instantiate(*match, args);
        // NVRTC is given the arguments as written: it fills in defaults as C++ does, where a
        // default naming an earlier parameter (enable_if<is_integral<T>>) has no text of its own.
        std::string key = join(args, ", ");
        out.push_back({std::move(inst), "&" + match->qualified_name + "<" + key + ">", key});
    }
    std::set<std::string> instantiated;
    for (const auto& b : out)
        if (b.decl.is_template) instantiated.insert(b.decl.qualified_name);
    for (const auto& d : decls) {
        if (!d.is_template) continue;
        if (!instantiated.count(d.qualified_name))
            notes.push_back("template kernel " + d.qualified_name + " is not bound: add --instantiate '" +
                            d.qualified_name + "<" + example_template_args(d) + ">' (once per instantiation)");
    }
    for (const auto& g : variables) {
        if (!g.is_template) continue;
        const bool bound = std::any_of(globals.begin(), globals.end(), [&](const GlobalBinding& b) {
            return b.decl.is_template && b.decl.qualified_name == g.qualified_name;
        });
        if (!bound)
            notes.push_back("template variable " + g.qualified_name +
                            " has no address until instantiated: add "
                            "--instantiate '" +
                            g.qualified_name + "<" +
                            (g.template_params.empty() || g.template_params[0].is_type() ? "float" : "256") +
                            ">' to reach it with get_global");
    }
    if (decls.empty() && variables.empty()) notes.push_back("the cell defines no __global__ function; nothing to bind");
    return out;
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

// The module `payload` makes of `source`: build_module with the type aliases of the cell and of
// the headers it includes (the cell's win), its notes and the names of those headers.
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

// The machine architecture an arch names: "compute_90" -> "sm_90" ("sm_90a" stays).
std::string machine_arch(const std::string& arch) {
    return arch.rfind("compute_", 0) == 0 ? "sm_" + arch.substr(8) : arch;
}

// What a call was given that its result depends on, as given: the cell's text, its NVRTC
// options, instantiations and arch; length-prefixed fields, so no two different calls write the
// same string. Headers are not in it: their registry's generation is checked beside it.
std::string rerun_key(std::string_view source, const std::vector<std::string>& opts,
                      const std::vector<std::string>& instantiate, const std::string& arch) {
    std::string k;
    k.reserve(source.size() + arch.size() + 64);
    auto field = [&k](std::string_view s) {
        const auto n = static_cast<std::uint32_t>(s.size());
        k.append(reinterpret_cast<const char*>(&n), sizeof n).append(s);
    };
    field(arch);
    for (const auto* list : {&opts, &instantiate}) {
        field(std::to_string(list->size()));
        for (const auto& o : *list) field(o);
    }
    field(source);
    return k;
}

// What the re-run memo may hold: it keeps each cell's text once more, so a session that
// compiles many large distinct cells starts it afresh past this.
constexpr std::size_t rerun_memo_limit_bytes = std::size_t(16) << 20;

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

namespace {

// NVRTC's -minimal (12.4+) leaves out texture and surface functions, the device runtime
// (cudaMalloc & co.), launches from device code and the runtime API's types; in exchange a small
// cell compiles faster (saxpy to sm_90 cubin: 21.7 -> 18.6 ms here, the front end's share). It is
// tried for cells that include nothing (a header may need what it leaves out) and name none of
// it; a cell that then fails is compiled again without, so the user only sees errors of the
// whole language. False positives here only cost the speed-up.
bool may_compile_minimal(std::string_view source, const std::vector<std::string>& opts, bool uses_headers) {
    if (uses_headers) return false;
    for (const auto& o : opts) {
        if (o == "-minimal" || o == "--minimal") return false;
    }
    for (const auto& d : detail::preprocessor_directives(source)) {
        if (d.name == "include") return false;
    }
    for (const char* omitted : {"<<<", "tex", "surf"}) {
        if (source.find(omitted) != std::string_view::npos) return false;
    }
    // cudaMalloc, cudaStream_t, cudaTextureObject_t, ...
    for (std::size_t p = source.find("cuda"); p != std::string_view::npos; p = source.find("cuda", p + 1)) {
        if (p + 4 < source.size() && std::isupper(static_cast<unsigned char>(source[p + 4]))) return false;
    }
    return true;
}

// The built-in standard headers go to every compile, not only to cells that include one: NVRTC
// then also finds them for headers it reads from -I dirs, which the registry cannot scan, and
// handing NVRTC all of them costs nothing measurable (saxpy to sm_90, NVRTC 13.0 called directly,
// 30 alternating runs: 25.4 ms median without, 25.2 ms with). A registered header of the same
// name replaces the built-in one.
std::vector<std::pair<std::string, std::string>> nvrtc_headers(
    const std::vector<std::pair<std::string, std::string>>& used, const HeaderRegistry& registry) {
    std::vector<std::pair<std::string, std::string>> all = used;
    for (const auto& [name, text] : builtin_headers()) {
        auto own = registry.get(name);
        bool reached = std::any_of(used.begin(), used.end(), [&](const auto& u) { return u.first == name; });
        if (!reached) all.emplace_back(name, own ? *own : text);
    }
    return all;
}

// Stands for the built-in headers' texts in the cache key: hashed once, not on every re-run.
const std::string& builtin_headers_digest() {
    static const std::string digest = [] {
        Sha256 h;
        h.field("xcuda-builtin-headers");
        for (const auto& [name, text] : builtin_headers()) h.field(name).field(text);
        return to_hex(h.finish());
    }();
    return digest;
}

}  // namespace

// NVRTC's automatic precompiled headers (`-- -pch`: a cell including CCCL's <cuda/std/cmath>
// recompiles in ~0.1 s instead of ~1 s) are written by default to /tmp/__nvrtc_auto_pch_<pid>_0,
// a name any local user can create first and fill. Unless the cell names a directory, they go
// to a private one (PchDir: this process's own under the cache directory, 0700, else a fresh
// mkdtemp), removed with the session. Not part of the cache key (it names the process).
void CompileSession::add_private_pch_dir(std::vector<std::string>& options) {
    bool pch = false;
    for (const auto& o : options) {
        if (o.rfind("--pch-dir", 0) == 0 || o.rfind("-pch-dir", 0) == 0) return;
        if (o == "-pch" || o == "--pch") pch = true;
    }
    if (!pch) return;
    if (!pch_dir_tried_) {
        pch_dir_tried_ = true;
        pch_dir_ = PchDir::make(cache_ ? cache_->dir() : std::optional<std::filesystem::path>{});
    }
    if (!pch_dir_) return;  // NVRTC's default then; the compile still works
    options.push_back("--pch-dir=" + pch_dir_->path().string());
    options.push_back("--pch-messages=false");  // "creating/using precompiled header" on every compile
}

std::shared_ptr<const CachePayload> CompileSession::device_link(const CachePayload& relocatable,
                                                                const std::string& arch, const std::string& cell_label,
                                                                const std::vector<std::string>& opts) {
    auto symbols = elf_symbols(relocatable.cubin);
    std::vector<rt::LinkInput> inputs{{cell_label, relocatable.cubin}};
    std::set<std::string> unresolved;
    if (symbols) {
        for (auto& in : device_objects_.providers_for(*symbols, &unresolved)) inputs.push_back(std::move(in));
    }
    // The device runtime (about 200 KB of CUBIN) only when something is left for it to define:
    // launches from the device (cudaLaunchDevice, cudaGetParameterBufferV2, ...). What it does
    // not define either, the linker reports.
    const bool device_runtime = !symbols || !unresolved.empty();
    rt::LinkResult linked;
    try {
        linked = rt::link(machine_arch(arch), inputs, device_runtime);
    } catch (const rt::LinkError& e) {
        throw CellCompileError(program_name, opts, e.log(), {}, cell_label, explain_link_log(e.log(), cell_label));
    }
    if (symbols) device_objects_.add(cell_label, relocatable.cubin, std::move(*symbols));
    auto out = std::make_shared<CachePayload>(relocatable);
    out->cubin = std::move(linked.cubin);
    return out;
}

std::shared_ptr<const CompiledModule> CompileSession::memoised(const std::string& key, const std::string& cell_label) {
    auto memo = cache_->memo(key);
    if (!memo) return nullptr;
    auto m = std::static_pointer_cast<const CompiledModule>(memo);
    if (m->cell_label != cell_label && !m->warnings.empty()) {
        auto relabelled = std::make_shared<CompiledModule>(*m);
        for (auto& d : relabelled->warnings)
            if (d.file == m->cell_label) d.file = cell_label;
        relabelled->cell_label = cell_label;
        m = relabelled;
    }
    return m;
}

void CompileSession::remember_rerun(std::string call, const std::string& key, std::uint64_t headers_generation) {
    if (rerun_bytes_ + call.size() > rerun_memo_limit_bytes) {
        reruns_.clear();
        rerun_bytes_ = 0;
    }
    auto [it, added] = reruns_.try_emplace(std::move(call));
    if (added) rerun_bytes_ += it->first.size();
    it->second = {key, headers_generation};
}

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
        call = rerun_key(source, opts, options.instantiate, arch);
        auto it = reruns_.find(call);
        if (it != reruns_.end() && it->second.headers_generation == headers.generation()) {
            if (auto m = memoised(it->second.key, cell_label)) return {m, CacheLevel::memory, ms_since(t0), {}};
        }
    }

    ++derivations_;
    const bool relocatable = wants_relocatable_code(opts);  // a linked module depends on other cells: never memoised
    auto used = headers.used_by(source);

    Sha256 h;
    h.field("xcuda-compile").field(std::to_string(cache_format_version)).field(nvrtc_version_).field(arch);
    // What the payload's lowered names cover: since "kernels+variables", the cell's
    // __constant__/__device__ variables too (an older entry lacks theirs).
    h.field("kernels+variables");
    h.field(std::to_string(opts.size()));
    for (const auto& o : opts) h.field(o);
    h.field(std::to_string(toolkit_dirs_->size()));
    for (const auto& d : *toolkit_dirs_) h.field(d);
    h.field(std::to_string(options.instantiate.size()));
    for (const auto& e : options.instantiate) h.field(e);
    h.field(std::to_string(used.size()));
    for (const auto& [name, text] : used) h.field(name).field(text);
    h.field(builtin_headers_digest());
    for (const auto& [name, text] : builtin_headers()) {
        if (auto own = headers.get(name)) h.field(name).field(*own);  // registered in a built-in's place
    }
    h.field(source);
    std::string key = to_hex(h.finish());

    if (use_cache && !relocatable) {
        if (auto m = memoised(key, cell_label)) {
            remember_rerun(std::move(call), key, headers.generation());
            return {m, CacheLevel::memory, ms_since(t0), {}};
        }
    }

    std::vector<std::string> notes;
    std::vector<GlobalBinding> globals;
    std::vector<Binding> bindings =
        plan_bindings(parse_kernels(source), parse_globals(source), options, globals, notes);

    CacheLevel level = CacheLevel::none;
    std::shared_ptr<const CachePayload> payload = use_cache ? cache_->lookup(key, &level) : nullptr;
    if (!payload) {
        if (!supported_archs_) supported_archs_ = rt::supported_archs();
        std::string real = machine_arch(arch);
        if (!real.empty() && (real.back() == 'a' || real.back() == 'f')) real.pop_back();
        if (!supported_archs_->empty() &&
            std::find(supported_archs_->begin(), supported_archs_->end(), real) == supported_archs_->end())
            throw ParseError(arch, "--arch " + arch + " is not supported by NVRTC " + nvrtc_version_ + "; use one of " +
                                       join(*supported_archs_, " "));
        rt::CompileOptions co;
        co.program_name = program_name;
        co.arch = arch;
        co.options = opts;
        add_private_pch_dir(co.options);
        for (auto& [name, text] : nvrtc_headers(used, headers)) co.headers.push_back({name, std::move(text)});
        for (const auto& b : bindings)
            if (!b.name_expression.empty()) co.name_expressions.push_back(b.name_expression);
        for (const auto& g : globals)
            if (!g.name_expression.empty()) co.name_expressions.push_back(g.name_expression);
        co.toolkit_includes = true;
        co.resource_usage = true;  // ptxas -v costs no measurable time (bench/probes/compile_probe.py, H200)
        const bool minimal = minimal_supported_ && may_compile_minimal(source, opts, !used.empty());
        if (minimal) co.options.push_back("-minimal");
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
                if (!minimal) throw;
                co.options.pop_back();  // errors are always the whole language's
                r = run_compiler();
            }
        } catch (const rt::CompileError& e) {
            throw CellCompileError(e.program_name(), e.options(), e.log(),
                                   cell_diagnostics(e.log(), source, cell_label), cell_label);
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
    auto m = bound_module(source, bindings, globals, std::move(notes), *loadable, cell_label, used);
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
    std::vector<GlobalBinding> globals;
    std::vector<Binding> bindings =
        plan_bindings(parse_kernels(source), parse_globals(source), options, globals, notes);
    auto m = bound_module(source, bindings, globals, std::move(notes), payload, cell_label, headers.used_by(source));
    m->arch = arch;
    m->arch_source = ArchSource::option;
    m->nvrtc_options = nvrtc_options(options);
    return {m, CacheLevel::none, ms_since(t0), {}};
}

}  // namespace xcuda::compile
