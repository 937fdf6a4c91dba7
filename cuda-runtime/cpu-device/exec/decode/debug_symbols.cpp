// FunctionDecoder::record_debug_names: what a -G module's decoder knows of its names, kept for the
// debugger before the decoder forgets it.
#include "exec/decode/debug_symbols.hpp"
#include "exec/decode/function_decoder.hpp"

namespace xcuda::cpu {

void FunctionDecoder::record_debug_names() const {
    DebugSymbols& symbols = *program_.debug;
    if (symbols.functions.size() <= index_) symbols.functions.resize(program_.functions.size());
    DebugSymbols::FunctionNames& names = symbols.functions[index_];
    // The function's own scope: what is still declared once its body has been decoded.
    for (const auto& [name, stack] : names_) {
        if (stack.empty()) continue;
        const Decl& d = stack.front();
        switch (d.kind) {
            case Decl::Kind::reg: names.registers[name] = {d.offset, static_cast<std::uint8_t>(d.size)}; break;
            case Decl::Kind::local: names.locals[name] = d.offset; break;
            case Decl::Kind::param: names.params[name] = d.param; break;
        }
    }
    for (const auto& [label, pc] : labels_) symbols.labels[label] = pc;
    if (function_.is_entry) {
        for (const auto& [name, index] : kernel_param_names_) {
            const ParamInfo& param = kernel_params_[index];
            symbols.kernel_params[name] = {static_cast<std::uint32_t>(param.offset),
                                           static_cast<std::uint32_t>(param.size)};
        }
    }
}

}  // namespace xcuda::cpu
