#include "hardware_profile.hpp"
#include "device_state.hpp"
#include "kernel_object.hpp"
#include "launch_recorder.hpp"
#include "magic_support.hpp"

#include <xcuda/report/counters_report.hpp>
#include <xcuda/report/html.hpp>
#include <xcuda/report/occupancy.hpp>
#include <xcuda/report/source_lines_report.hpp>
#include <xcuda/rt/counters.hpp>
#include <xcuda/rt/cubin.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/pc_sampling.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace xcuda::magics {
namespace {

// Nsight Compute's names (checked against ncu on the H200). The peaks make the roofline: a
// unit's peak per cycle times the clock it ran at during the launch.
const std::vector<std::string> speed_of_light = {
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
};
const std::vector<std::string> flop_counts = {
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
};
const std::vector<std::string> peaks = {
    "dram__bytes.sum.peak_sustained",
    "dram__cycles_elapsed.avg.per_second",
    "sm__cycles_elapsed.avg.per_second",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
};
const std::vector<std::string> memory_detail = {
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
};
const std::vector<std::string> compute_detail = {
    "sm__inst_executed.avg.per_cycle_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
};

struct MetricSet {
    const char* name;
    const char* what;
    std::vector<const std::vector<std::string>*> parts;
};

const std::vector<MetricSet>& metric_sets() {
    static const std::vector<MetricSet> sets = {
        {"basic", "speed of light, DRAM bytes, FLOPs and the roofline", {&speed_of_light, &flop_counts, &peaks}},
        {"memory", "speed of light, DRAM bytes, L1/L2 hit rates and throughputs", {&speed_of_light, &memory_detail}},
        {"compute",
         "speed of light, FLOPs, the roofline, IPC and FMA pipe use",
         {&speed_of_light, &flop_counts, &peaks, &compute_detail}},
        {"all", "all of the above", {&speed_of_light, &flop_counts, &peaks, &memory_detail, &compute_detail}},
    };
    return sets;
}

using Values = std::map<std::string, double>;

std::optional<double> value(const Values& v, const std::string& name) {
    const auto it = v.find(name);
    return it == v.end() ? std::nullopt : std::optional<double>(it->second);
}

// add + mul + 2 fma of one precision ('f', 'd' or 'h'), when all three were collected.
std::optional<double> flops(const Values& v, char precision) {
    const std::string base = "smsp__sass_thread_inst_executed_op_";
    const auto add = value(v, base + precision + "add_pred_on.sum");
    const auto mul = value(v, base + precision + "mul_pred_on.sum");
    const auto fma = value(v, base + precision + "fma_pred_on.sum");
    if (!add || !mul || !fma) return std::nullopt;
    return *add + *mul + 2 * *fma;
}

std::optional<report::Roofline> roofline(const Values& v, const std::string& device) {
    const auto dram_peak = value(v, "dram__bytes.sum.peak_sustained");
    const auto dram_clock = value(v, "dram__cycles_elapsed.avg.per_second");
    const auto sm_clock = value(v, "sm__cycles_elapsed.avg.per_second");
    if (!dram_peak || !dram_clock || !sm_clock) return std::nullopt;
    report::Roofline r;
    r.device = device;
    r.dram_bytes_per_second = *dram_peak * *dram_clock;
    const std::string base = "sm__sass_thread_inst_executed_op_";
    for (const auto& [name, op] : {std::pair{"FP64", "dfma"}, std::pair{"FP32", "ffma"}, std::pair{"FP16", "hfma"}}) {
        if (auto peak = value(v, base + op + "_pred_on.sum.peak_sustained")) {
            r.compute_roofs.push_back({name, 2 * *peak * *sm_clock});  // an FMA is 2 operations
        }
    }
    return r;
}

report::CounterLaunch counter_row(const Values& v, const std::vector<rt::MetricDescription>& described) {
    report::CounterLaunch row;
    row.duration_ns = value(v, "gpu__time_duration.sum");
    row.sm_throughput_pct = value(v, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    row.memory_throughput_pct = value(v, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    row.dram_throughput_pct = value(v, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    row.achieved_occupancy_pct = value(v, "sm__warps_active.avg.pct_of_peak_sustained_active");
    row.l1_hit_rate_pct = value(v, "l1tex__t_sector_hit_rate.pct");
    row.l2_hit_rate_pct = value(v, "lts__t_sector_hit_rate.pct");
    row.dram_bytes_read = value(v, "dram__bytes_read.sum");
    row.dram_bytes_write = value(v, "dram__bytes_write.sum");
    row.flops_fp16 = flops(v, 'h');
    row.flops_fp32 = flops(v, 'f');
    row.flops_fp64 = flops(v, 'd');
    for (const auto& d : described) row.metrics.push_back({d.name, v.at(d.name), d.unit});
    return row;
}

// Names and shapes the rows from the launches xcuda recorded. CUPTI numbers its ranges only,
// so they pair with xcuda's launches by order, which holds when every kernel of the code was
// an xcuda launch; otherwise (CuPy or PyTorch kernels too) they keep their numbers.
std::string name_rows(std::vector<report::CounterLaunch>& rows, const std::vector<RecordedLaunch>& recorded) {
    std::vector<const RecordedLaunch*> launches;
    for (const RecordedLaunch& r : recorded) launches.push_back(&r);
    if (rows.size() == launches.size()) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const RecordedLaunch& r = *launches[i];
            rows[i].kernel = r.kernel;
            rows[i].grid = {r.grid.x, r.grid.y, r.grid.z};
            rows[i].block = {r.block.x, r.block.y, r.block.z};
            const auto& props = rt::Device(r.device).properties();
            if (auto limits = report::limits_for_cc(props.major, props.minor)) {
                rows[i].theoretical_occupancy_pct =
                    100 * report::occupancy(*limits, r.registers, r.static_shared, static_cast<int>(r.block.volume()),
                                            r.dynamic_shared)
                              .fraction;
            }
        }
        return {};
    }
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i].kernel = "kernel #" + std::to_string(i + 1);
    return std::to_string(rows.size()) + " kernels were measured and the code made " + std::to_string(launches.size()) +
           " xcuda launches: CUPTI numbers kernels without naming them, so they are shown by number (CuPy and "
           "PyTorch kernels the code launched are measured too).";
}

constexpr std::size_t max_profiled_kernels = 64;

thread_local bool collecting = false;

// Runs `work` with collecting_counters() true.
void while_collecting(const std::function<void()>& work) {
    struct Flag {
        Flag() { collecting = true; }
        ~Flag() { collecting = false; }
    } flag;
    work();
}

report::Rich counters(LaunchRecorder& recorder, const std::function<void()>& work, const std::string& spec, bool& ran) {
    const std::vector<std::string> names = metric_names(spec);
    const rt::PrimaryContext& context = activate();
    const rt::CounterCollection c = rt::collect_counters(context, names, max_profiled_kernels, [&] {
        ran = true;
        while_collecting(work);
    });
    const std::vector<rt::MetricDescription>& described = c.descriptions;
    std::vector<report::CounterLaunch> rows;
    std::optional<report::Roofline> roofs;
    for (const auto& k : c.kernels) {
        Values v;
        for (std::size_t i = 0; i < names.size(); ++i) v[names[i]] = k.values[i];
        rows.push_back(counter_row(v, described));
        if (!roofs) roofs = roofline(v, context.device().name());
    }
    std::string note = name_rows(rows, recorder.launches());
    if (rows.size() == max_profiled_kernels && recorder.launches().size() > rows.size()) {
        note += (note.empty() ? "" : " ") + std::string("Launches after the first ") +
                std::to_string(max_profiled_kernels) + " were not measured.";
    }
    note += (note.empty() ? "" : " ") + std::string("CUPTI ran each kernel ") + std::to_string(c.passes) +
            (c.passes == 1 ? " time" : " times") + " to read these counters on " + c.chip +
            " (its memory restored between runs).";
    return report::counters_report(rows, roofs, note);
}

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

report::Rich sampled_lines(LaunchRecorder& recorder, const std::function<void()>& work, bool& ran) {
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

report::Rich with_cause(std::optional<report::Rich> timing, const std::string& cause) {
    report::Rich r = timing ? *timing : report::Rich{};
    const std::string line = "No hardware counters: " + cause;
    r.plain = line + (r.plain.empty() ? "" : "\n" + r.plain);
    r.html = report::wrap_report(report::paragraph(line, "xcuda-warn")) + r.html;
    return r;
}

}  // namespace

std::vector<std::string> metric_names(const std::string& spec) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    const auto add = [&](const std::string& n) {
        if (seen.insert(n).second) out.push_back(n);
    };
    std::istringstream in(spec);
    for (std::string word; std::getline(in, word, ',');) {
        word.erase(0, word.find_first_not_of(" \t"));
        word.erase(word.find_last_not_of(" \t") + 1);
        if (word.empty()) continue;
        const auto set = std::find_if(metric_sets().begin(), metric_sets().end(),
                                      [&](const MetricSet& s) { return word == s.name; });
        if (set != metric_sets().end()) {
            for (const auto* part : set->parts)
                for (const auto& n : *part) add(n);
        } else if (word.find("__") != std::string::npos) {
            add(word);
        } else {
            profiling_usage_error(
                "--metrics " + word +
                ": not a metric set (basic, memory, compute, all) nor a metric name; "
                "metric names are Nsight Compute's, like dram__bytes_read.sum (xcuda.profiler_metrics() "
                "lists them)");
        }
    }
    if (out.empty()) profiling_usage_error("--metrics needs a set (basic, memory, compute, all) or metric names");
    return out;
}

std::string metric_sets_help() {
    std::string out;
    for (const auto& s : metric_sets()) out += std::string(out.empty() ? "" : "; ") + s.name + ": " + s.what;
    return out;
}

void check_request(const HardwareProfileRequest& request) {
    if (request.metrics && request.lines) {
        profiling_usage_error(
            "--metrics and --lines each run the code under a different profiler, and the code runs "
            "once: give one of them, and profile again with the other");
    }
    if (request.metrics) metric_names(*request.metrics);
}

report::Rich hardware_profile(LaunchRecorder& recorder, const std::function<void()>& work,
                              const HardwareProfileRequest& request,
                              const std::function<std::optional<report::Rich>()>& timing) {
    check_request(request);
    bool ran = false;
    try {
        return request.metrics ? counters(recorder, work, *request.metrics, ran) : sampled_lines(recorder, work, ran);
    } catch (const rt::ProfilerUnavailable& e) {
        if (!ran) work();
        return with_cause(timing(), e.what());
    } catch (const rt::NoDeviceError& e) {
        if (!ran) work();
        return with_cause(timing(), std::string("they need a GPU: ") + e.what());
    }
}

std::vector<std::map<std::string, double>> counter_values(const std::function<void()>& work, const std::string& spec) {
    const std::vector<std::string> names = metric_names(spec);
    const rt::CounterCollection c =
        rt::collect_counters(activate(), names, max_profiled_kernels, [&] { while_collecting(work); });
    std::vector<std::map<std::string, double>> out;
    for (const auto& k : c.kernels) {
        auto& v = out.emplace_back();
        for (std::size_t i = 0; i < names.size(); ++i) v[names[i]] = k.values[i];
    }
    return out;
}

bool collecting_counters() noexcept { return collecting; }

std::vector<std::string> profiler_metrics(const std::string& chip) {
    return rt::base_metrics(chip.empty() ? rt::chip_name(activate().device().ordinal()) : chip);
}

std::vector<std::string> profiler_chips() { return rt::supported_chips(); }

}  // namespace xcuda::magics
