#pragma once
// xcuda.Device, xcuda.Stream and xcuda.Event.
#include <xcuda/rt/stream.hpp>

#include <pybind11/pybind11.h>

#include <memory>

namespace xcuda::magics {

// A stream created on the device selected when it was made.
class Stream {
public:
    explicit Stream(bool non_blocking);
    CUstream handle() const { return stream_->handle(); }
    int device() const { return device_; }
    void synchronize() const;
    bool query() const;

private:
    int device_;
    std::unique_ptr<rt::Stream> stream_;
};

void define_device_objects(pybind11::module_& m);

}  // namespace xcuda::magics
