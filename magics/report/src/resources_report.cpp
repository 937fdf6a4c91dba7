#include "xcuda/report/resources_report.hpp"

#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {
namespace {

std::string limiters_text(const Occupancy& o) {
    if (o.active_blocks == 0) return "cannot launch";
    if (o.active_warps >= o.max_warps) return "(full)";
    std::string out;
    for (const auto lim : o.limiters) {
        if (!out.empty()) out += ", ";
        out += limiter_name(lim);
    }
    return out;
}

std::string known_list() {
    std::string out;
    for (const auto& a : known_archs()) out += (out.empty() ? "" : ", ") + a;
    return out;
}

}  // namespace

Rich resources_report(const std::vector<KernelResources>& kernels, const ResourcesOptions& options) {
    const std::string at = std::to_string(options.block_size);
    Table table({{"Kernel"},
                 {"Arch"},
                 {"Registers", Align::right},
                 {"Spill stores", Align::right},
                 {"Spill loads", Align::right},
                 {"Stack", Align::right},
                 {"Shared", Align::right},
                 {"Constant", Align::right},
                 {"Occupancy @" + at, Align::right},
                 {"Limited by"},
                 {"Best block", Align::right}},
                "Resource usage per kernel (per thread: registers, spills, stack; per block: shared)");

    struct Line {
        std::string kernel;
        std::string text;
        bool warn;
    };
    std::vector<Line> lines;

    for (const auto& k : kernels) {
        std::optional<DeviceLimits> limits = options.limits ? options.limits : limits_for_arch(k.arch);
        std::vector<std::string> row = {k.name,
                                        k.arch,
                                        std::to_string(k.registers),
                                        format_bytes(k.spill_store_bytes),
                                        format_bytes(k.spill_load_bytes),
                                        format_bytes(k.stack_bytes),
                                        format_bytes(k.shared_bytes),
                                        format_bytes(k.constant_bytes)};
        if (limits) {
            Occupancy o = occupancy(*limits, k.registers, k.shared_bytes, options.block_size, options.dynamic_shared);
            Occupancy best = best_block_size(*limits, k.registers, k.shared_bytes, options.dynamic_shared);
            row.push_back(o.active_blocks > 0 ? format_percent(o.fraction) : "0%");
            row.push_back(limiters_text(o));
            row.push_back(best.active_blocks > 0
                              ? std::to_string(best.block_size) + " (" + format_percent(best.fraction) + ")"
                              : "none fits");
            lines.push_back({k.name, occupancy_advice(*limits, k.registers, o, best), o.active_blocks == 0});
        } else {
            row.insert(row.end(), {"?", "?", "?"});
            lines.push_back({k.name,
                             "No occupancy: architecture \"" + k.arch + "\" is not in the built-in table (" +
                                 known_list() + "); run on a GPU to use its own limits.",
                             true});
        }
        if (k.spill_store_bytes > 0 || k.spill_load_bytes > 0) {
            lines.push_back({k.name,
                             "Spills " + format_bytes(k.spill_store_bytes) + " stored / " +
                                 format_bytes(k.spill_load_bytes) +
                                 " loaded per thread to local memory, which is slow; keep fewer values live (smaller "
                                 "local arrays, less unrolling) or allow more registers (no -maxrregcount, or "
                                 "__launch_bounds__ with fewer threads per block).",
                             true});
        }
        table.add_row(std::move(row));
    }

    if (kernels.empty()) return one_line_report("The cell defines no kernels, so there is no resource usage to show.");
    Rich r;
    std::string note;
    if (options.limits)
        note = "Limits of the current device (" + options.limits->arch + ")";
    else
        note = "Limits from the built-in table for each kernel's arch (no device consulted)";
    note += "; dynamic shared memory " + format_bytes(options.dynamic_shared) + " per block.";

    r.plain = table.plain();
    std::string body = table.html();
    for (const auto& line : lines) {
        r.plain += line.kernel + ": " + line.text + "\n";
        body += std::string("<p class=\"xcuda-line") + (line.warn ? " xcuda-warn" : "") + "\"><code>" +
                html_escape(line.kernel) + "</code>: " + html_escape(line.text) + "</p>";
    }
    r.plain += note + "\n";
    body += "<p class=\"xcuda-line xcuda-note\">" + html_escape(note) + "</p>";
    r.html = wrap_report(body);
    return r;
}

}  // namespace xcuda::report
