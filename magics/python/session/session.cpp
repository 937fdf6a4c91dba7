#include "session/session.hpp"

namespace xcuda::magics {

compile::CompileSession& Session::compiler() {
    if (!compiler_) {
        compiler_ = std::make_unique<compile::CompileSession>();
        // NVRTC needs no Python: other threads run meanwhile (Kernel.autotune compiles on several).
        compiler_->set_compiler_runner([](const std::function<void()>& compile) {
            if (PyGILState_Check() == 0) return compile();
            pybind11::gil_scoped_release released;
            compile();
        });
    }
    return *compiler_;
}

}  // namespace xcuda::magics
