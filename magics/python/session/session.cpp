#include "session.hpp"

namespace xcuda::magics {

compile::CompileSession& Session::compiler() {
    if (!compiler_) compiler_ = std::make_unique<compile::CompileSession>();
    return *compiler_;
}

}  // namespace xcuda::magics
