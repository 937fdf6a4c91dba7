#include "session.hpp"

namespace xcuda::magics {

compile::CompileSession& Session::compiler() {
    if (!compiler_) compiler_ = std::make_unique<compile::CompileSession>();
    return *compiler_;
}

Session& session() {
    static auto* s = new Session();  // never destroyed: see session.hpp
    return *s;
}

}  // namespace xcuda::magics
