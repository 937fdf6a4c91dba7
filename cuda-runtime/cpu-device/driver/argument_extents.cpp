#include <xcuda/cpu/argument_extents.hpp>

#include <utility>

namespace xcuda::cpu {
namespace {

thread_local std::vector<ArgumentExtent> extents;

}  // namespace

LaunchArgumentExtents::LaunchArgumentExtents(std::vector<ArgumentExtent> e) : saved_(std::move(extents)) {
    extents = std::move(e);
}

LaunchArgumentExtents::~LaunchArgumentExtents() { extents = std::move(saved_); }

const std::vector<ArgumentExtent>& LaunchArgumentExtents::current() { return extents; }

}  // namespace xcuda::cpu
