#include <xcuda/rt/ptxas_info.hpp>

#include <cctype>
#include <cstdlib>

namespace xcuda::rt {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Text between the first pair of single quotes, or empty.
std::string_view quoted(std::string_view s) {
    auto a = s.find('\'');
    if (a == std::string_view::npos) return {};
    auto b = s.find('\'', a + 1);
    if (b == std::string_view::npos) return {};
    return s.substr(a + 1, b - a - 1);
}

// Saturating decimal: a hostile log cannot overflow us.
std::size_t number(std::string_view digits) {
    std::size_t v = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') break;
        std::size_t d = static_cast<std::size_t>(c - '0');
        v = v > (static_cast<std::size_t>(-1) - d) / 10 ? static_cast<std::size_t>(-1) : v * 10 + d;
    }
    return v;
}

// Calls f(value, unit) for each comma-separated "<number> <unit words>" item of `s`,
// e.g. "Used 38 registers, used 0 barriers, 360 bytes cmem[0]".
template <class F>
void for_each_item(std::string_view s, F f) {
    while (!s.empty()) {
        auto comma = s.find(',');
        std::string_view item = trim(s.substr(0, comma));
        s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
        auto digit = item.find_first_of("0123456789");
        if (digit == std::string_view::npos) continue;
        auto end = item.find_first_not_of("0123456789", digit);
        std::size_t value =
            number(item.substr(digit, end == std::string_view::npos ? item.size() - digit : end - digit));
        f(value, end == std::string_view::npos ? std::string_view() : trim(item.substr(end)));
    }
}

std::size_t saturating_add(std::size_t a, std::size_t b) {
    return a > static_cast<std::size_t>(-1) - b ? static_cast<std::size_t>(-1) : a + b;
}

int to_int(std::size_t v) { return v > 0x7fffffff ? 0x7fffffff : static_cast<int>(v); }

}  // namespace

std::map<std::string, KernelResources> parse_ptxas_info(std::string_view log) {
    std::map<std::string, KernelResources> kernels;
    KernelResources* entry = nullptr;  // the entry function whose lines follow
    bool properties_of_entry = false;  // "Function properties for" names the current entry
    while (!log.empty()) {
        auto nl = log.find('\n');
        std::string_view line = log.substr(0, nl);
        log = nl == std::string_view::npos ? std::string_view() : log.substr(nl + 1);
        if (!starts_with(line, "ptxas")) continue;
        auto colon = line.find(':');
        std::string_view body = colon == std::string_view::npos ? std::string_view() : trim(line.substr(colon + 1));

        if (starts_with(body, "Compiling entry function")) {
            std::string name(quoted(body));
            if (name.empty()) {
                entry = nullptr;
                continue;
            }
            entry = &kernels[name];
            auto for_pos = body.rfind("for '");
            if (for_pos != std::string_view::npos) entry->arch = std::string(quoted(body.substr(for_pos)));
            properties_of_entry = false;
        } else if (starts_with(body, "Function properties for")) {
            std::string_view name = trim(body.substr(sizeof("Function properties for") - 1));
            properties_of_entry =
                entry != nullptr && kernels.count(std::string(name)) != 0 && &kernels[std::string(name)] == entry;
        } else if (colon == std::string_view::npos && entry != nullptr && properties_of_entry) {
            // "ptxas         .     2400 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
            for_each_item(line.substr(5), [&](std::size_t v, std::string_view unit) {
                if (unit == "bytes stack frame")
                    entry->stack_frame_bytes = v;
                else if (unit == "bytes spill stores")
                    entry->spill_store_bytes = v;
                else if (unit == "bytes spill loads")
                    entry->spill_load_bytes = v;
            });
        } else if (starts_with(body, "Used ") && entry != nullptr) {
            std::size_t cmem = 0;
            bool has_cmem = false;
            for_each_item(body, [&](std::size_t v, std::string_view unit) {
                if (unit == "registers")
                    entry->registers = to_int(v);
                else if (unit == "barriers")
                    entry->barriers = to_int(v);
                else if (unit == "bytes cumulative stack size")
                    entry->cumulative_stack_bytes = v;
                else if (unit == "bytes smem")
                    entry->shared_bytes = v;
                else if (starts_with(unit, "bytes cmem[")) {
                    cmem = saturating_add(cmem, v);
                    has_cmem = true;
                }
            });
            if (has_cmem) entry->constant_bytes = cmem;
            properties_of_entry = false;
        }
    }
    return kernels;
}

}  // namespace xcuda::rt
