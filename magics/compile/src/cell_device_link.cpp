#include "nvrtc_call.hpp"

#include "xcuda/compile/compile_cell.hpp"

#include <set>

namespace xcuda::compile {

std::shared_ptr<const CachePayload> CompileSession::device_link(const CachePayload& relocatable,
                                                                const std::string& arch, const std::string& cell_label,
                                                                const std::vector<std::string>& opts) {
    auto symbols = elf_symbols(relocatable.cubin);
    std::vector<rt::LinkInput> inputs{{cell_label, relocatable.cubin}};
    std::set<std::string> unresolved;
    if (symbols) {
        for (auto& in : device_objects_.providers_for(*symbols, &unresolved)) inputs.push_back(std::move(in));
    }
    // The device runtime (about 200 KB of CUBIN) only when something is left for it to define:
    // launches from the device (cudaLaunchDevice, cudaGetParameterBufferV2, ...). What it does
    // not define either, the linker reports.
    const bool device_runtime = !symbols || !unresolved.empty();
    rt::LinkResult linked;
    try {
        linked = rt::link(detail::machine_arch(arch), inputs, device_runtime);
    } catch (const rt::LinkError& e) {
        throw CellCompileError(cell_program_name, opts, e.log(), {}, cell_label, explain_link_log(e.log(), cell_label));
    }
    if (symbols) device_objects_.add(cell_label, relocatable.cubin, std::move(*symbols));
    auto out = std::make_shared<CachePayload>(relocatable);
    out->cubin = std::move(linked.cubin);
    return out;
}

}  // namespace xcuda::compile
