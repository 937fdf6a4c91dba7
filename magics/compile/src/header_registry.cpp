#include "xcuda/compile/header_registry.hpp"

#include <atomic>
#include <cctype>
#include <set>
#include <stdexcept>

namespace xcuda::compile {

void HeaderRegistry::set(const std::string& name, std::string text) {
    bool ok = !name.empty();
    for (char c : name)
        if (std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '<' || c == '>' || c == '\0') ok = false;
    if (!ok)
        throw std::invalid_argument("header name '" + name +
                                    "' cannot be #included; use a name like my_utils.cuh (no spaces, quotes or <>)");
    headers_[name] = std::move(text);
    generation_ = next_generation();
}

std::optional<std::string> HeaderRegistry::get(const std::string& name) const {
    auto it = headers_.find(name);
    if (it == headers_.end()) return std::nullopt;
    return it->second;
}

bool HeaderRegistry::erase(const std::string& name) {
    if (headers_.erase(name) == 0) return false;
    generation_ = next_generation();
    return true;
}

std::uint64_t HeaderRegistry::next_generation() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
}

std::vector<std::string> HeaderRegistry::list() const {
    std::vector<std::string> names;
    for (const auto& [name, text] : headers_) names.push_back(name);
    return names;
}

std::vector<std::pair<std::string, std::string>> HeaderRegistry::used_by(std::string_view source) const {
    std::set<std::string> seen;
    std::vector<std::string> todo = included_names(source);
    while (!todo.empty()) {
        std::string name = std::move(todo.back());
        todo.pop_back();
        auto it = headers_.find(name);
        if (it == headers_.end() || !seen.insert(name).second) continue;
        for (auto& inner : included_names(it->second)) todo.push_back(std::move(inner));
    }
    std::vector<std::pair<std::string, std::string>> used;
    for (const auto& name : seen) used.emplace_back(name, headers_.at(name));
    return used;
}

std::vector<std::string> included_names(std::string_view text) {
    std::vector<std::string> names;
    std::size_t i = 0, n = text.size();
    bool line_start = true;
    while (i < n) {
        char c = text[i];
        if (c == '\n') {
            line_start = true;
            ++i;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            std::size_t e = text.find("*/", i + 2);
            i = e == std::string_view::npos ? n : e + 2;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n') ++i;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
        } else if (c == '#' && line_start) {
            ++i;
            while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
            if (text.substr(i, 7) == "include") {
                i += 7;
                while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
                if (i < n && (text[i] == '"' || text[i] == '<')) {
                    char close = text[i] == '"' ? '"' : '>';
                    std::size_t e = text.find(close, i + 1);
                    std::size_t eol = text.find('\n', i + 1);
                    if (e != std::string_view::npos && (eol == std::string_view::npos || e < eol))
                        names.emplace_back(text.substr(i + 1, e - i - 1));
                }
            }
            line_start = false;
        } else {
            line_start = false;
            ++i;
        }
    }
    return names;
}

}  // namespace xcuda::compile
