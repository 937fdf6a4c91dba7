#include "xcuda/report/timing_report.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {

TimingSummary summarize_timing(const std::vector<double>& per_launch_seconds, int number) {
    if (per_launch_seconds.empty())
        throw std::invalid_argument("summarize_timing needs at least one run; got none (pass repeat >= 1)");
    if (number < 1)
        throw std::invalid_argument("summarize_timing: number of launches per run is " + std::to_string(number) +
                                    "; pass number >= 1");
    TimingSummary s;
    s.repeats = static_cast<int>(per_launch_seconds.size());
    s.number = number;
    std::vector<double> v = per_launch_seconds;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    s.min = v.front();
    s.max = v.back();
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
    if (n > 1) {
        double sq = 0.0;
        for (double x : v) sq += (x - s.mean) * (x - s.mean);
        s.stdev = std::sqrt(sq / static_cast<double>(n - 1));
    }
    return s;
}

std::string timeit_line(const TimingSummary& s, const std::string& per) {
    const std::string plural = per.empty() ? per : (per.back() == 'h' ? per + "es" : per + "s");
    return format_duration(s.median) + " ± " + format_duration_as(s.stdev, s.median) + " per " + per + " (median of " +
           std::to_string(s.repeats) + (s.repeats == 1 ? " run, " : " runs, ") + std::to_string(s.number) + " " +
           (s.number == 1 ? per : plural) + " each; " +
           (s.emulated ? "device time (emulated) on the CPU device)" : "CUDA events)");
}

Rich timing_report(const TimingSummary& s, const std::string& label, const std::string& per) {
    const std::string line = timeit_line(s, per);
    Table table({{"median", Align::right},
                 {"min", Align::right},
                 {"max", Align::right},
                 {"mean", Align::right},
                 {"stdev", Align::right}});
    table.add_row({format_duration(s.median), format_duration(s.min), format_duration(s.max), format_duration(s.mean),
                   format_duration_as(s.stdev, s.median)});
    Rich r;
    r.plain = line + "\n";
    std::string body;
    if (!label.empty()) body += "<p class=\"xcuda-line xcuda-note\"><code>" + html_escape(label) + "</code></p>";
    body += "<p class=\"xcuda-line\"><b>" + html_escape(line) + "</b></p>";
    body += table.html();
    r.html = wrap_report(body);
    return r;
}

}  // namespace xcuda::report
