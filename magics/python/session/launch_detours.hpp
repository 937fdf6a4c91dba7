#pragma once
// Why a kernel launch cannot take the plain path (a chosen GPU, nothing watching or diverting
// launches): one bit per reason in one word of the Session, so that a plain launch tests every
// reason with one predictable branch (Kernel::launch). Each reason's owner sets its bit when the
// reason starts and clears it when it ends; the detoured path then asks each owner as before.
#include "session/session.hpp"

namespace xcuda::magics {

enum LaunchDetour : unsigned {
    detour_device_unchosen = 1u << 0,  // current_device() has not chosen the default device yet
    detour_cpu_device = 1u << 1,       // the CPU device is selected: launches note it and their extents
    detour_divert = 1u << 2,           // %%cuda_check's diverter takes every launch (launch_diverter.cpp)
    detour_record = 1u << 3,           // a LaunchRecorder records launches (launch_recorder.cpp)
    detour_capture = 1u << 4,          // a graph is being captured on some thread (graph_capture.cpp)
    detour_gpu_work_left = 1u << 5,    // an interrupt left GPU work running (gpu_work_left_running.cpp)
};

inline void set_launch_detour(LaunchDetour reason, bool on) {
    unsigned& word = session().launch_detours;
    word = on ? (word | reason) : (word & ~static_cast<unsigned>(reason));
}

}  // namespace xcuda::magics
