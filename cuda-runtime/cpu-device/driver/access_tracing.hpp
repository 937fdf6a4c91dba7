// The tracing switch (access_trace.hpp's set_tracing) and the traces of the launches made while
// it was on, kept until take_traces().
#pragma once

#include <xcuda/cpu/access_trace.hpp>

#include <memory>

namespace xcuda::cpu::driver::detail {

void keep_trace(std::shared_ptr<const AccessTrace> trace);

}  // namespace xcuda::cpu::driver::detail
