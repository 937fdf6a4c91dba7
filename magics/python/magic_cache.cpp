#include "magic_cache.hpp"
#include "kernel_object.hpp"
#include "magic_support.hpp"
#include "rich_output.hpp"

#include <xcuda/report/html.hpp>
#include <xcuda/report/units.hpp>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& spec() {
    static const compile::CommandSpec s = help_only_spec("%cuda_cache",
        "%cuda_cache info|clear",
        "Shows (info) or empties (clear) the compile cache: memory, then disk under "
                        "$XDG_CACHE_HOME/xcuda.",
        compile::Positionals::words,
        "info|clear");
    return s;
}

}  // namespace

void cuda_cache_line_magic(const std::string& line) {
    compile::ParsedArgs args = parse_magic_line(line, spec());
    if (args.has("--help")) {
        py::print(compile::format_help(spec()));
        return;
    }
    const std::string action = args.positionals.empty() ? "info" : args.positionals[0];
    if (args.positionals.size() > 1 || (action != "info" && action != "clear")) {
        usage_error("%cuda_cache takes `info` or `clear`, got `" + line + "`");
    }
    compile::CompileCache* cache = compile_session().cache();
    if (action == "clear") {
        cache->clear();
        py::print("cuda_cache: cleared (memory and disk entries)");
        return;
    }
    const compile::CacheInfo info = cache->info();
    report::Table table({{"cache"}, {"entries", report::Align::right}, {"size", report::Align::right}, {"where"}},
                        "xcuda compile cache");
    table.add_row({"memory", std::to_string(info.memory_entries), "", "this process"});
    table.add_row({"disk", std::to_string(info.disk_entries), report::format_bytes(info.disk_bytes),
                   info.disk_enabled ? info.dir : "off (memory only)"});
    report::Rich r;
    r.plain = table.plain();
    r.html = report::wrap_report(table.html());
    const std::string warning = cache->take_warning();
    if (!warning.empty()) r.plain += "\n" + warning;
    display_rich(r);
}

}  // namespace xcuda::magics
