#pragma once
// xcuda.DeviceArray: a C-contiguous array in device memory, owned (allocated by xcuda) or
// imported zero-copy through DLPack; exported through __cuda_array_interface__ v3 and DLPack.
#include "launch/elem_type.hpp"

#include <xcuda/rt/memory.hpp>

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace xcuda::magics {

class DeviceArray {
public:
    // Allocates on the selected device (uninitialised).
    DeviceArray(std::vector<std::int64_t> shape, ElemType dtype);
    // Wraps memory someone else owns; `owner` keeps it alive.
    DeviceArray(std::uintptr_t ptr, std::vector<std::int64_t> shape, ElemType dtype, int device,
                pybind11::object owner);

    std::uintptr_t ptr() const { return ptr_; }
    const std::vector<std::int64_t>& shape() const { return shape_; }
    const ElemType& dtype() const { return dtype_; }
    int device() const { return device_; }
    std::int64_t size() const;
    std::size_t nbytes() const { return static_cast<std::size_t>(size()) * static_cast<std::size_t>(dtype_.bytes); }

    // False only for an array from empty() that nothing may have written since: no set(), no
    // launch took it, its address was never handed out. %%cuda_check --tool initcheck gives such
    // an array to its child uninitialised, so reads of it are found. (Mutable: handing out the
    // address of a const array ends it too.)
    bool contents_defined() const { return contents_defined_; }
    void mark_contents_defined() const { contents_defined_ = true; }
    void mark_contents_undefined() { contents_defined_ = false; }

private:
    std::unique_ptr<rt::DeviceBuffer> buffer_;
    pybind11::object owner_;
    std::uintptr_t ptr_ = 0;
    std::vector<std::int64_t> shape_;
    ElemType dtype_;
    int device_ = 0;
    mutable bool contents_defined_ = true;
};

void define_device_array(pybind11::module_& m);

// The Python type object, for the launch path's exact-type check.
PyTypeObject* device_array_type();

// The DeviceArray inside `obj`, whose type must be exactly device_array_type(). The launch
// path's shortcut past pybind11's generic caster (a type-registry lookup per argument).
const DeviceArray& device_array_of(pybind11::handle obj);

}  // namespace xcuda::magics
