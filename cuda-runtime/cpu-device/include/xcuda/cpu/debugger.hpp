// A debugger's hold on one launch of the CPU device: breakpoints on source lines, a thread stopped
// there, stepped line by line, and its registers and memory read while it is stopped.
//
// A session is armed for the next launch of one kernel of a module compiled with -G. That launch
// runs on one worker thread with a copy of the decoded code in which every instruction that starts
// a source line is a `debug_stop` (cpu-device/DESIGN.md, "The debugger"); any other launch runs the
// program's own code and pays nothing. When a group of lanes reaches a line the session stops at,
// the worker thread waits on a condition variable until the controller (another thread) says how
// to go on, and every other warp and block of the launch waits with it. Stepping a thread steps
// the lanes that execute with it (its group), in lockstep, as a GPU would.
#pragma once

#include <xcuda/cpu/finding.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xcuda::cpu {

// The threads a breakpoint stops: a component of -1 matches any index.
struct ThreadSelector {
    int block[3] = {-1, -1, -1};
    int thread[3] = {-1, -1, -1};
    bool matches(const Dim3& block_index, const Dim3& thread_index) const noexcept;
};

// A frame of the stopped thread's device call stack, innermost first.
struct DebugFrame {
    std::string function;  // the PTX name (mangled for C++)
    std::uint32_t pc = 0;  // the instruction about to run (in a caller: its call)
    SourceLocation where;
};

// A lane of the stopped warp, in CUDA's terms.
struct DebugThread {
    Dim3 block, thread;
    Dim3 grid_dim, block_dim;
    unsigned warp = 0, lane = 0;  // warp index in its block, lane in its warp
    std::uint32_t active = 0;     // the lanes executing with it now (its group), bit per lane
    std::uint32_t live = 0;       // the lanes of its warp that have not exited
};

// The memory a pointer points into (a device allocation, the block's shared memory, the thread's
// local memory, the parameter buffer): where it starts and how many bytes it has.
struct DebugRegion {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    MemorySpace space = MemorySpace::none;
};

class DebugSession {
public:
    enum class Resume : std::uint8_t {
        run,        // until a breakpoint stops a thread, or the launch ends
        step_over,  // until the followed thread starts a line in this frame or one that called it
        step_in,    // until it starts any line (in a function it calls, too)
        step_out,   // until it starts a line in a frame that called this one
    };
    enum class State : std::uint8_t { armed, running, stopped, finished };

    // `kernel`: the PTX name (mangled for C++) of the kernel whose next launch it debugs.
    explicit DebugSession(std::string kernel);
    ~DebugSession();
    DebugSession(const DebugSession&) = delete;
    DebugSession& operator=(const DebugSession&) = delete;

    const std::string& kernel() const;

    // A line of a source file (.file's name as the PTX has it; "" is any file; line 0 is every
    // line) at which the threads `who` stop. `every_thread` false: once a thread is followed (the first one stopped),
    // only it stops there. Returns the breakpoint's id. Takes effect at the next arrival, stopped
    // or not.
    int add_breakpoint(std::string file, int line, ThreadSelector who, bool every_thread);
    void clear_breakpoints();

    // The controller's side (any thread but the launch's):
    // Waits until the launch stops a thread or ends, at most `timeout_ms`; returns the state.
    State wait(int timeout_ms);
    State state() const;
    // From a stop: go on as `how` says, stepping the followed thread.
    void resume(Resume how);
    // While stopped: the lane of the stopped group to follow from now on (steps, unconditional
    // breakpoints). A stop at a breakpoint follows nobody new until this is called.
    void follow(unsigned lane);
    // The launch stops as soon as it can, and no thread stops again (an interrupt, a restart).
    void abort();

    // While stopped (empty or nullopt otherwise):
    std::uint32_t pc() const;
    // The breakpoints whose line this is, with the lanes of the group each one stops (empty: a step).
    std::vector<std::pair<int, std::uint32_t>> hits() const;
    // The followed lane, when the followed thread is in the stopped group.
    std::optional<unsigned> followed_lane() const;
    DebugThread thread(unsigned lane) const;
    std::vector<DebugFrame> frames() const;
    // A PTX register of frame `frame` (0: innermost) for `lane`: its bytes (a predicate: one byte, 0 or 1).
    std::optional<std::vector<std::byte>> read_register(std::size_t frame, const std::string& name,
                                                        unsigned lane) const;
    // `bytes` at `offset` into a PTX variable of the space DWARF names: a kernel parameter
    // (MemorySpace::param), a .local depot of the frame's function (local), a .shared variable
    // (shared), a module .global/.const variable (global, constant).
    std::optional<std::vector<std::byte>> read_variable(MemorySpace space, const std::string& symbol,
                                                        std::uint64_t offset, std::size_t bytes, std::size_t frame,
                                                        unsigned lane) const;
    // Memory a pointer of `lane` may point to: a live allocation, the block's shared window, the
    // lane's local window, the parameter buffer. nullopt anywhere else (nothing is read there).
    std::optional<std::vector<std::byte>> read_memory(std::uint64_t address, std::size_t bytes, unsigned lane) const;
    std::optional<DebugRegion> region_of(std::uint64_t address, unsigned lane) const;
    // A code label's pc (the DWARF's scopes are label ranges).
    std::optional<std::uint32_t> label_pc(const std::string& label) const;

    struct Impl;
    Impl& impl() { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

// The session the next launch of its kernel on the CPU device takes (one launch; a launch of
// another kernel leaves it armed). nullptr disarms.
void arm_debug_session(std::shared_ptr<DebugSession> session);
// The armed session for a launch of `kernel` of a -G module, taken (disarmed), or nullptr.
std::shared_ptr<DebugSession> take_debug_session(const std::string& kernel);

// Whether a launch is parked at a debugger's stop now: its worker waits for the frontend, so a
// wait for the device to be idle (a module unloaded or memory freed by Python's garbage collector
// while the notebook shows the stop) must not wait for it.
bool debug_stop_held();
// Called each time a launch parks at a stop (with the session's lock held: it must not take a
// lock that is held while waiting on a session): the scheduler wakes a wait for the device to be
// idle with it, instead of polling debug_stop_held(). One listener; set once, before launches.
void set_debug_stop_listener(std::function<void()> listener);

}  // namespace xcuda::cpu
