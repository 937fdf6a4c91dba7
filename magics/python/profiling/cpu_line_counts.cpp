#include "profiling/cpu_line_counts.hpp"
#include "display/kernel_check_report.hpp"
#include "kernels/kernel_object.hpp"
#include "kernels/module_object.hpp"
#include "session/device_state.hpp"
#include "session/session.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/report/line_counts_report.hpp>

#include <map>
#include <sstream>

namespace xcuda::magics {
namespace {

std::vector<std::string> lines_of(const std::string& source) {
    std::vector<std::string> lines;
    std::istringstream in(source);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

CpuLineCounting::CpuLineCounting() {
    cpu::set_profiling(true);
    (void)cpu::take_profiles();
}

CpuLineCounting::~CpuLineCounting() { cpu::set_profiling(false); }

report::Rich CpuLineCounting::report() {
    synchronize_current();
    std::map<std::string, report::KernelLineCounts> kernels;  // by mangled name
    std::vector<std::string> order;
    for (const auto& profile : cpu::take_profiles()) {
        auto [it, added] = kernels.try_emplace(profile->kernel);
        report::KernelLineCounts& k = it->second;
        if (added) {
            order.push_back(profile->kernel);
            k.kernel = profile->kernel;
            const auto& launched = session().cpu_launched;
            if (auto found = launched.find(profile->kernel); found != launched.end()) {
                k.kernel = found->second.binding->kernel.decl.name;
                if (auto module = found->second.module.lock()) k.cell_lines = lines_of(module->source());
            }
        }
        ++k.launches;
        for (const auto& row : profile->rows) {
            report::LineCounts c;
            c.line = cell_line_of(row.where);
            c.instructions = row.counts.executed;
            c.thread_instructions = row.counts.lanes;
            c.divergent = row.counts.divergent;
            c.requests = row.counts.requests;
            c.sectors = row.counts.sectors;
            c.bank_conflicts = row.counts.bank_conflicts;
            k.lines.push_back(c);
        }
    }
    std::vector<report::KernelLineCounts> ordered;
    for (const auto& name : order) ordered.push_back(std::move(kernels[name]));
    return report::line_counts_report(ordered);
}

}  // namespace xcuda::magics
