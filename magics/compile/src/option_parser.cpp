#include "xcuda/compile/option_parser.hpp"

#include <algorithm>
#include <utility>

namespace xcuda::compile {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

std::vector<Token> split_words(std::string_view line) {
    std::vector<Token> words;
    std::size_t i = 0, n = line.size();
    while (i < n) {
        while (i < n && is_space(line[i])) ++i;
        if (i >= n) break;
        Token t;
        t.offset = i;
        while (i < n && !is_space(line[i])) {
            char c = line[i];
            if (c == '\'') {
                std::size_t close = line.find('\'', i + 1);
                if (close == std::string_view::npos)
                    throw ParseError(
                        std::string(line.substr(t.offset)),
                        "unterminated ' quote in " + quoted(std::string(line.substr(t.offset))) + "; close it with '");
                t.text.append(line.substr(i + 1, close - i - 1));
                i = close + 1;
            } else if (c == '"') {
                std::size_t j = i + 1;
                for (;; ++j) {
                    if (j >= n)
                        throw ParseError(std::string(line.substr(t.offset)),
                                         "unterminated \" quote in " + quoted(std::string(line.substr(t.offset))) +
                                             "; close it with \"");
                    if (line[j] == '"') break;
                    if (line[j] == '\\' && j + 1 < n && (line[j + 1] == '"' || line[j + 1] == '\\')) ++j;
                    t.text += line[j];
                }
                i = j + 1;
            } else if (c == '\\') {
                if (i + 1 >= n)
                    throw ParseError("\\", "the line ends with a lone backslash; remove it or quote it as '\\'");
                t.text += line[i + 1];
                i += 2;
            } else {
                t.text += c;
                ++i;
            }
        }
        words.push_back(std::move(t));
    }
    return words;
}

std::string ParsedArgs::value(const std::string& key, const std::string& fallback) const {
    auto it = values.find(key);
    return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

std::vector<std::string> ParsedArgs::all(const std::string& key) const {
    auto it = values.find(key);
    return it == values.end() ? std::vector<std::string>{} : it->second;
}

ParsedArgs parse_args(std::string_view line, const CommandSpec& spec) {
    const std::string help_hint = "; run " + spec.magic + " -h for the options";
    std::vector<Token> words = split_words(line);
    ParsedArgs out;

    auto find_long = [&](const std::string& name) -> const OptionSpec* {
        for (const auto& o : spec.options)
            if (!o.long_name.empty() && o.long_name == name) return &o;
        return nullptr;
    };
    auto find_short = [&](char c) -> const OptionSpec* {
        for (const auto& o : spec.options)
            if (o.short_name.size() == 2 && o.short_name[1] == c) return &o;
        return nullptr;
    };
    auto display = [](const OptionSpec& o) { return o.long_name.empty() ? o.short_name : o.long_name; };
    auto record = [&](const OptionSpec& o, const std::string& written, std::string value) {
        auto& slot = out.values[o.key()];
        if (!slot.empty() && !o.repeatable) throw ParseError(written, display(o) + " given twice; give it once");
        if (o.takes_value() && o.check) {
            if (auto err = o.check(value)) throw ParseError(value, *err);
        }
        slot.push_back(std::move(value));
    };
    auto needs_value = [&](const OptionSpec& o, const std::string& written) {
        return ParseError(
            written, display(o) + " needs a value like " + (o.example.empty() ? o.metavar : o.example) + help_hint);
    };
    auto record_value = [&](const OptionSpec& o, const std::string& written, std::string value) {
        if (value.empty()) throw needs_value(o, written);
        record(o, written, std::move(value));
    };

    const OptionSpec* bare_optional = nullptr;  // the word before was e.g. `--fast-compile`, no `=`
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i].text;
        // `--opt VALUE` / `-o VALUE`: the value is the next word
        auto next_word = [&](const OptionSpec& o) {
            if (i + 1 >= words.size()) throw needs_value(o, w);
            return words[++i].text;
        };
        const OptionSpec* before = std::exchange(bare_optional, nullptr);
        if (w == "--" && spec.passthrough) {
            for (std::size_t j = i + 1; j < words.size(); ++j) out.passthrough.push_back(words[j].text);
            break;
        }
        if (w.size() >= 2 && w[0] == '-' && w[1] == '-' && w != "--") {
            std::size_t eq = w.find('=');
            std::string name = w.substr(0, eq);
            const OptionSpec* o = find_long(name);
            if (!o) throw ParseError(name, "unknown option " + name + help_hint);
            if (!o->takes_value()) {
                if (eq != std::string::npos) throw ParseError(w, name + " takes no value; write " + name + " alone");
                record(*o, w, "");
                continue;
            }
            std::string value;
            if (eq != std::string::npos) {
                value = w.substr(eq + 1);
            } else if (o->value_optional()) {
                value = o->implicit_value;
                bare_optional = o;
            } else {
                value = next_word(*o);
            }
            record_value(*o, w, std::move(value));
            continue;
        }
        if (w.size() >= 2 && w[0] == '-' && w != "--") {
            const OptionSpec* o = find_short(w[1]);
            if (!o) throw ParseError(w, "unknown option " + w + help_hint);
            if (!o->takes_value()) {
                if (w.size() > 2)
                    throw ParseError(w, "unknown option " + w + " (" + o->short_name +
                                            " takes no value and short flags do not combine)" + help_hint);
                record(*o, w, "");
                continue;
            }
            record_value(*o, w, w.size() > 2 ? w.substr(2) : next_word(*o));
            continue;
        }
        switch (spec.positionals) {
            case Positionals::none:
                if (before)
                    throw ParseError(w, "unexpected argument " + quoted(w) + ": write " + before->long_name + "=" + w +
                                            " (" + before->long_name + " takes its value only after =)");
                throw ParseError(w, "unexpected argument " + quoted(w) + help_hint +
                                        (spec.passthrough ? " (NVRTC options go after --)" : ""));
            case Positionals::words: out.positionals.push_back(w); break;
            case Positionals::rest:
                out.rest = std::string(line.substr(words[i].offset));
                while (!out.rest.empty() && is_space(out.rest.back())) out.rest.pop_back();
                return out;
        }
    }
    return out;
}

std::string format_help(const CommandSpec& spec) {
    std::string s = "Usage: " + spec.usage + "\n\n" + spec.description + "\n\nOptions:\n";
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& o : spec.options) {
        std::string left = "  ";
        if (!o.short_name.empty()) left += o.short_name;
        if (!o.short_name.empty() && !o.long_name.empty()) left += ", ";
        if (!o.long_name.empty()) left += o.long_name;
        if (o.value_optional())
            left += "[=" + o.metavar + "]";
        else if (o.takes_value())
            left += " " + o.metavar;
        rows.emplace_back(left, o.help + (o.repeatable ? " (repeatable)" : ""));
    }
    if (spec.passthrough) rows.emplace_back("  -- OPTIONS...", spec.passthrough_help);
    std::size_t width = 0;
    for (const auto& r : rows) width = std::max(width, r.first.size());
    for (const auto& r : rows) s += r.first + std::string(width - r.first.size() + 2, ' ') + r.second + "\n";
    return s;
}

}  // namespace xcuda::compile
