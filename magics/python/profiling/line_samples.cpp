#include "profiling/line_samples.hpp"
#include "kernels/launch_recorder.hpp"
#include "kernels/module_object.hpp"
#include "session/device_state.hpp"

#include <xcuda/compile/compile_cell.hpp>
#include <xcuda/report/html.hpp>
#include <xcuda/report/source_lines_report.hpp>
#include <xcuda/rt/cubin.hpp>
#include <xcuda/rt/pc_sampling.hpp>

#include <map>
#include <set>
#include <sstream>

namespace xcuda::magics {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// Where a module's sampled PCs are looked up: its own CUBIN when built with -lineinfo, else
// the same cell built with -lineinfo, used only for kernels whose machine code is identical.
struct LineSource {
    std::string cubin;        // the CUBIN that ran
    std::string lines_cubin;  // the CUBIN with line information
    std::vector<std::string> cell_lines;
};

LineSource line_source(const ModuleImpl& module) {
    LineSource s;
    s.cubin = module.compiled().cubin;
    s.cell_lines = split_lines(module.source());
    if (module.recipe().options.lineinfo) {
        s.lines_cubin = s.cubin;
    } else {
        compile::CellOptions with_lines = module.recipe().options;
        with_lines.lineinfo = true;
        s.lines_cubin = compile_to_module(module.source(), with_lines, module.label()).impl->compiled().cubin;
    }
    return s;
}

}  // namespace

report::Rich line_samples_report(LaunchRecorder& recorder, const std::function<void()>& work, bool& ran) {
    const rt::PrimaryContext& context = activate();
    const rt::PcSamples samples = rt::sample_pcs(context, [&] {
        ran = true;
        work();
    });
    // The kernels xcuda launched, by the CRC CUPTI gives their CUBIN.
    std::map<std::uint64_t, std::pair<const ModuleImpl*, LineSource>> modules;
    std::map<std::string, std::string> source_names;  // mangled -> as launched ("axpy<float>")
    std::set<const ModuleImpl*> seen;                 // a loop of launches: each module's CRC and -lineinfo build once
    for (const RecordedLaunch& r : recorder.launches()) {
        if (!r.module) continue;
        source_names[r.lowered_name] = r.kernel;
        if (!seen.insert(r.module.get()).second) continue;
        const std::uint64_t crc = rt::cubin_crc(r.module->compiled().cubin);
        if (!modules.count(crc)) modules.emplace(crc, std::make_pair(r.module.get(), line_source(*r.module)));
    }
    std::map<std::string, report::SourceSamples> by_kernel;
    std::map<std::pair<std::uint64_t, std::string>, bool> same_code;  // -lineinfo build has the same machine code
    std::uint64_t elsewhere = 0;
    for (const rt::SampledPc& pc : samples.pcs) {
        const auto m = modules.find(pc.cubin_crc);
        if (m == modules.end()) {
            elsewhere += pc.samples();
            continue;
        }
        const LineSource& src = m->second.second;
        const auto name = source_names.count(pc.function) ? source_names[pc.function] : pc.function;
        report::SourceSamples& k = by_kernel[name];
        if (k.kernel.empty()) {
            k.kernel = name;
            k.cell_lines = src.cell_lines;
        }
        k.total_samples += pc.samples();
        const auto checked = same_code.try_emplace({pc.cubin_crc, pc.function}, false);
        if (checked.second) {  // first PC of this kernel: compare its code in the two builds once
            const auto ran_code = rt::function_machine_code(src.cubin, pc.function);
            checked.first->second = ran_code && ran_code == rt::function_machine_code(src.lines_cubin, pc.function);
        }
        const bool same = checked.first->second;
        const auto line = same ? rt::source_line(src.lines_cubin, pc.function, pc.pc_offset) : std::nullopt;
        if (!line || line->file.find(compile::cell_program_name) == std::string::npos) {
            k.unattributed_samples += pc.samples();
            continue;
        }
        report::SampledLine sl;
        sl.line = static_cast<int>(line->line);
        sl.samples = pc.samples();
        for (const auto& s : pc.stalls) sl.stalls.push_back({s.reason, s.samples});
        k.lines.push_back(std::move(sl));
    }
    std::vector<report::SourceSamples> kernels;
    for (auto& [name, k] : by_kernel) kernels.push_back(std::move(k));
    report::Rich shown = report::source_lines_report(kernels);
    if (elsewhere > 0 || samples.dropped_samples > 0) {
        std::string note;
        if (elsewhere > 0) note += std::to_string(elsewhere) + " samples fell in kernels xcuda did not compile. ";
        if (samples.dropped_samples > 0) {
            note += std::to_string(samples.dropped_samples) + " samples were lost to a full hardware buffer.";
        }
        shown.plain = note + "\n" + shown.plain;
        shown.html = report::wrap_report(report::paragraph(note, "xcuda-note")) + shown.html;
    }
    return shown;
}

}  // namespace xcuda::magics
