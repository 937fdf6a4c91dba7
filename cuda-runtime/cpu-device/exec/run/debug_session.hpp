// The engine's side of a debug launch (xcuda/cpu/debugger.hpp is the controller's): the launch
// takes the armed session, runs a copy of the code with `debug_stop` at every line start, and the
// warp runner calls debug_arrive there. Internal to the engine.
#pragma once

#include "exec/run/exec_context.hpp"

#include <xcuda/cpu/debugger.hpp>

#include <memory>

namespace xcuda::cpu {

// The session armed for this launch's kernel when its module was compiled with -G, taken (a
// launch of another kernel leaves it armed), or nullptr.
std::shared_ptr<DebugSession> take_debug_session(const LaunchSpec& spec);

// The launch starts under `session`: returns the code it runs (the program's, with every line
// start made a `debug_stop`), valid until debug_launch_end.
const Inst* debug_launch_begin(DebugSession& session, LaunchState& launch);

// The launch ended; true when the session aborted it (it ends as a cancelled launch does).
bool debug_launch_end(DebugSession& session);

// The group w.groups[0] of warp `w` is at `pc`, a line start: stops there when a breakpoint or a
// step says so, and returns once the controller resumes. false: the session was aborted (the
// launch must stop; the instruction at pc has not run).
bool debug_arrive(Exec& x, Warp& w, std::uint32_t pc);

}  // namespace xcuda::cpu
