#include "profiling/counter_profile.hpp"
#include "kernels/launch_recorder.hpp"
#include "session/device_state.hpp"
#include "session/ipython_env.hpp"

#include <xcuda/report/counters_report.hpp>
#include <xcuda/report/html.hpp>
#include <xcuda/report/occupancy.hpp>
#include <xcuda/rt/counters.hpp>
#include <xcuda/rt/device.hpp>

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

}  // namespace

report::Rich counter_report(LaunchRecorder& recorder, const std::function<void()>& work, const std::string& spec,
                            bool& ran) {
    const std::vector<std::string> names = metric_names(spec);
    const rt::PrimaryContext& context = activate();
    const rt::CounterCollection c = rt::collect_counters(context, names, max_profiled_kernels, [&] {
        ran = true;
        while_collecting_counters(work);
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

std::vector<std::map<std::string, double>> counter_values(const std::function<void()>& work, const std::string& spec) {
    const std::vector<std::string> names = metric_names(spec);
    const rt::CounterCollection c =
        rt::collect_counters(activate(), names, max_profiled_kernels, [&] { while_collecting_counters(work); });
    std::vector<std::map<std::string, double>> out;
    for (const auto& k : c.kernels) {
        auto& v = out.emplace_back();
        for (std::size_t i = 0; i < names.size(); ++i) v[names[i]] = k.values[i];
    }
    return out;
}

std::vector<std::string> profiler_metrics(const std::string& chip) {
    return rt::base_metrics(chip.empty() ? rt::chip_name(activate().device().ordinal()) : chip);
}

std::vector<std::string> profiler_chips() { return rt::supported_chips(); }

}  // namespace xcuda::magics
