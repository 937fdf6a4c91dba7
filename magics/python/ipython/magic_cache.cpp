#include "ipython/magic_cache.hpp"
#include "display/rich_output.hpp"
#include "ipython/magic_support.hpp"
#include "session/session.hpp"

#include <xcuda/report/html.hpp>
#include <xcuda/report/units.hpp>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& cache_spec() {
    static const compile::CommandSpec s =
        help_only_spec("%cuda_cache", "%cuda_cache info|clear|limit SIZE",
                       "Shows (info) or empties (clear) the compile cache: memory, then disk under "
                       "$XDG_CACHE_HOME/xcuda (else ~/.cache/xcuda), read only when that directory, its entries "
                       "and its key (.hmac-key) are yours alone. `limit 512M` bounds the memory part (least "
                       "recently used cells go first; 0 keeps nothing in memory); XCUDA_CACHE_MEMORY sets it "
                       "at start (default 256M).",
                       compile::Positionals::words, "info|clear|limit SIZE");
    return s;
}

}  // namespace

void cuda_cache_line_magic(const std::string& line) {
    const auto parsed = parse_magic_line(line, cache_spec());
    if (!parsed) return;
    const compile::ParsedArgs& args = *parsed;
    const std::string action = args.positionals.empty() ? "info" : args.positionals[0];
    const std::size_t wanted = action == "limit" ? 2 : 1;
    if (args.positionals.size() > wanted || (action != "info" && action != "clear" && action != "limit")) {
        usage_error("%cuda_cache takes `info`, `clear` or `limit SIZE`, got `" + line + "`");
    }
    compile::CompileCache* cache = session().compiler().cache();
    if (action == "clear") {
        cache->clear();
        py::print("cuda_cache: cleared (memory and disk entries)");
        return;
    }
    if (action == "limit") {
        auto bytes = args.positionals.size() == 2 ? compile::parse_byte_size(args.positionals[1]) : std::nullopt;
        if (!bytes) {
            usage_error("%cuda_cache limit takes a size such as 512M, 2G or 0 (bytes without a unit), got `" + line +
                        "`");
        }
        cache->set_memory_limit(*bytes);
        py::print("cuda_cache: memory limit " + report::format_bytes(*bytes));
        return;
    }
    const compile::CacheInfo info = cache->info();
    report::Table table({{"cache"}, {"entries", report::Align::right}, {"size", report::Align::right}, {"where"}},
                        "xcuda compile cache");
    table.add_row({"memory", std::to_string(info.memory_entries),
                   report::format_bytes(info.memory_bytes) + " of " + report::format_bytes(info.memory_limit_bytes),
                   "this process"});
    std::string where = "off (memory only)";
    if (info.disk_enabled) where = info.disk_writable ? info.dir : info.dir + " (read only)";
    table.add_row({"disk", std::to_string(info.disk_entries), report::format_bytes(info.disk_bytes), where});
    report::Rich r;
    r.plain = table.plain();
    r.html = report::wrap_report(table.html());
    const std::string warning = cache->take_warning();
    if (!warning.empty()) r.plain += "\n" + warning;
    display_rich(r);
}

std::string cuda_cache_help() { return compile::format_help(cache_spec()); }

}  // namespace xcuda::magics
