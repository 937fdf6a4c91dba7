#include "exec/run/exec_context.hpp"

namespace xcuda::cpu {

Dim3 Exec::thread_of(unsigned lane) const noexcept {
    const Dim3& b = launch->spec->block;
    const std::uint32_t t = linear_thread(lane);
    return {t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
}

SourceLocation Exec::location_of(const ptx::Loc& loc) const {
    SourceLocation s;
    auto file = [&](int index) {
        auto it = program->files.find(index);
        return it == program->files.end() ? std::string() : it->second;
    };
    if (loc.file == 0) return s;
    s.file = file(loc.file);
    s.line = loc.line;
    s.column = loc.column;
    for (const auto& site : loc.inlined_at) s.inlined_at.push_back({file(site.file), site.line, site.column});
    return s;
}

void Exec::locate(Finding& f) const {
    const Site& site = program->sites[code[pc].site];
    f.where = location_of(site.loc);
    f.instruction = site.text;
    f.function = program->functions[site.function].name;
}

Finding Exec::prepare(Finding finding, unsigned lane, std::uint32_t lanes) const {
    finding.thread = thread_of(lane);
    finding.block = cta->ctaid;
    finding.lanes = lanes;
    locate(finding);
    return finding;
}

void Exec::fail(Finding finding, unsigned lane, std::uint32_t lanes, CUresult code) {
    report(prepare(std::move(finding), lane, lanes), code);
}

void Exec::report(Finding finding, CUresult code) {
    faulted = true;
    std::lock_guard<std::mutex> lock(launch->failure_mutex);
    if (!launch->failure) {
        auto f = std::make_shared<Failure>();
        f->code = code;
        f->kernel = launch->kernel->name;
        f->grid = launch->spec->grid;
        f->block = launch->spec->block;
        f->finding = std::move(finding);
        launch->failure = std::move(f);
        launch->status = code;
    }
    launch->stop.store(true, std::memory_order_relaxed);
}

}  // namespace xcuda::cpu
