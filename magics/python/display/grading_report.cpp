#include "display/grading_report.hpp"

#include <xcuda/report/access_map.hpp>
#include <xcuda/report/rubric_report.hpp>

#include <pybind11/stl.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// d[key] as T, or `fallback` when the key is absent or None.
template <class T>
T get(const py::dict& d, const char* key, T fallback = T{}) {
    if (!d.contains(key) || d[key].is_none()) return fallback;
    return d[key].cast<T>();
}

std::vector<py::dict> dicts(const py::dict& d, const char* key) { return get<std::vector<py::dict>>(d, key); }

report::RubricTest test_of(const py::dict& d) {
    report::RubricTest t;
    t.name = get<std::string>(d, "name");
    t.launch = get<std::string>(d, "launch");
    t.passed = get<bool>(d, "passed");
    t.outcome = get<std::string>(d, "outcome");
    t.hint = get<std::string>(d, "hint");
    t.gpu = get<std::string>(d, "gpu");
    return t;
}

report::RubricGate gate_of(const py::dict& d) {
    report::RubricGate g;
    g.name = get<std::string>(d, "name");
    g.measured = get<std::string>(d, "measured");
    g.limit = get<std::string>(d, "limit");
    g.passed = get<bool>(d, "passed");
    g.judged = get<bool>(d, "judged", true);
    g.note = get<std::string>(d, "note");
    return g;
}

report::RubricFinding finding_of(const py::dict& d) {
    report::RubricFinding f;
    f.line = get<int>(d, "line");
    f.source = get<std::string>(d, "source");
    f.test = get<std::string>(d, "test");
    f.message = get<std::string>(d, "message");
    f.hint = get<std::string>(d, "hint");
    return f;
}

report::ThreadStory story_of(const py::dict& d) {
    report::ThreadStory s;
    s.title = get<std::string>(d, "title");
    s.note = get<std::string>(d, "note");
    for (const py::dict& l : dicts(d, "lines")) {
        report::StoryLine line;
        line.line = get<int>(l, "line");
        line.source = get<std::string>(l, "source");
        line.times = get<int>(l, "times", 1);
        line.touched = get<std::vector<std::string>>(l, "touched");
        s.lines.push_back(std::move(line));
    }
    return s;
}

report::Rubric rubric_of(const py::dict& d) {
    report::Rubric r;
    r.exercise = get<std::string>(d, "exercise");
    r.title = get<std::string>(d, "title");
    r.kernel = get<std::string>(d, "kernel");
    r.device = get<std::string>(d, "device");
    r.verdict = get<std::string>(d, "verdict");
    r.solved = get<bool>(d, "solved");
    r.score = get<double>(d, "score");
    r.max_score = get<double>(d, "max_score");
    for (const py::dict& t : dicts(d, "tests")) r.tests.push_back(test_of(t));
    for (const py::dict& g : dicts(d, "gates")) r.gates.push_back(gate_of(g));
    for (const py::dict& f : dicts(d, "findings")) r.findings.push_back(finding_of(f));
    for (const py::dict& s : dicts(d, "stories")) r.stories.push_back(story_of(s));
    r.notes = get<std::vector<std::string>>(d, "notes");
    r.picture_svg = get<std::string>(d, "picture_svg");
    return r;
}

report::AccessMap access_map_of(const py::dict& d) {
    report::AccessMap m;
    m.title = get<std::string>(d, "title");
    m.threads_per_block = get<std::uint32_t>(d, "threads_per_block", 1);
    m.block_x = get<std::uint32_t>(d, "block_x");
    m.focus = get<std::string>(d, "focus");
    for (const py::dict& a : dicts(d, "arrays")) {
        report::AccessMapArray array;
        array.name = get<std::string>(a, "name");
        array.role = get<std::string>(a, "role");
        array.columns = get<unsigned>(a, "columns");
        array.writer = get<std::vector<std::int64_t>>(a, "writer");
        array.reads = get<std::vector<std::uint32_t>>(a, "reads");
        array.wrong = get<std::vector<bool>>(a, "wrong");
        array.focus_read = get<std::vector<bool>>(a, "focus_read");
        array.focus_written = get<std::vector<bool>>(a, "focus_written");
        m.arrays.push_back(std::move(array));
    }
    return m;
}

}  // namespace

void define_grading_report(py::module_& m) {
    m.def(
        "_rubric_report", [](const py::dict& d) { return report::rubric_report(rubric_of(d)); }, py::arg("rubric"),
        "An exercise's grade as a Report (text/plain and HTML), from a dict of report::Rubric's fields.");
    m.def(
        "_access_map_svg", [](const py::dict& d) { return report::access_map_svg(access_map_of(d)); }, py::arg("map"),
        "Which thread read and wrote which element, as one <svg> element, from a dict of report::AccessMap's fields.");
}

}  // namespace xcuda::magics
