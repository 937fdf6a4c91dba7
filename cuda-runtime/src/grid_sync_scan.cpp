#include <xcuda/rt/grid_sync_scan.hpp>

#include <map>
#include <set>

namespace xcuda::rt {

namespace {

bool identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '.';
}

// Whether `body` names `callee` as a whole word (a call's target, `call.uni (...), f, (...)`).
bool names(std::string_view body, const std::string& callee) {
    for (std::size_t at = body.find(callee); at != std::string_view::npos; at = body.find(callee, at + 1)) {
        const bool starts = at == 0 || !identifier_char(body[at - 1]);
        const std::size_t end = at + callee.size();
        if (starts && (end == body.size() || !identifier_char(body[end]))) return true;
    }
    return false;
}

struct PtxFunction {
    bool entry = false;
    std::string_view body;
};

// Each .entry and .func with a body: its name and the text between its braces (a function's body
// ends at the first `}` at the start of a line, as NVRTC writes PTX).
std::map<std::string, PtxFunction> functions_of(std::string_view ptx) {
    std::map<std::string, PtxFunction> out;
    for (std::size_t at = 0; at < ptx.size();) {
        const std::size_t entry = ptx.find(".entry ", at), func = ptx.find(".func ", at);
        const std::size_t next = std::min(entry, func);
        if (next == std::string_view::npos) break;
        PtxFunction f;
        f.entry = next == entry;
        std::size_t p = next + (f.entry ? 7 : 6);
        // A .func may return values first: `.func (.param .b32 r) name(...)`.
        while (p < ptx.size() && ptx[p] == ' ') ++p;
        if (p < ptx.size() && ptx[p] == '(') {
            const std::size_t close = ptx.find(')', p);
            if (close == std::string_view::npos) break;
            p = close + 1;
            while (p < ptx.size() && ptx[p] == ' ') ++p;
        }
        std::size_t name_end = p;
        while (name_end < ptx.size() && identifier_char(ptx[name_end])) ++name_end;
        const std::string name(ptx.substr(p, name_end - p));
        const std::size_t semicolon = ptx.find(';', name_end), open = ptx.find('{', name_end);
        at = name_end;
        if (name.empty() || open == std::string_view::npos || (semicolon != std::string_view::npos && semicolon < open))
            continue;  // a declaration without a body
        const std::size_t close = ptx.find("\n}", open);
        const std::size_t end = close == std::string_view::npos ? ptx.size() : close;
        f.body = ptx.substr(open, end - open);
        out[name] = f;
        at = end;
    }
    return out;
}

}  // namespace

std::vector<std::string> kernels_that_sync_the_grid(std::string_view ptx) {
    const std::map<std::string, PtxFunction> functions = functions_of(ptx);
    // cooperative_groups' this_grid() reads the grid workspace from %envreg1 and %envreg2; a
    // function syncs the grid if it reads them or calls one that does.
    std::set<std::string> syncing;
    for (const auto& [name, f] : functions) {
        if (f.body.find("%envreg1") != std::string_view::npos || f.body.find("%envreg2") != std::string_view::npos)
            syncing.insert(name);
    }
    for (bool grew = !syncing.empty(); grew;) {
        grew = false;
        for (const auto& [name, f] : functions) {
            if (syncing.count(name) != 0) continue;
            for (const std::string& callee : syncing) {
                if (names(f.body, callee)) {
                    syncing.insert(name);
                    grew = true;
                    break;
                }
            }
        }
    }
    std::vector<std::string> kernels;
    for (const auto& [name, f] : functions) {
        if (f.entry && syncing.count(name) != 0) kernels.push_back(name);
    }
    return kernels;
}

}  // namespace xcuda::rt
