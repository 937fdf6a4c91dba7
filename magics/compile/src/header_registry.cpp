#include "xcuda/compile/header_registry.hpp"

#include "cpp_tokens.hpp"

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
    for (const auto& d : detail::preprocessor_directives(text)) {
        const std::string& arg = d.argument;
        if (d.name != "include" || arg.empty() || (arg[0] != '"' && arg[0] != '<')) continue;
        const std::size_t close = arg.find(arg[0] == '"' ? '"' : '>', 1);
        if (close != std::string::npos) names.push_back(arg.substr(1, close - 1));
    }
    return names;
}

}  // namespace xcuda::compile
