// The skeleton of the classes that hold one CUPTI object for their life: the profiler host object
// (counters.cpp), a context's range profiler (counters.cpp) and a context with PC sampling on
// (pc_sampling.cpp). Each names its object's type and the call that ends it (Deinitialize,
// Disable); the holding, the release when the class goes and the parameters of each call are
// written here once.
#pragma once

#include "cupti_api.hpp"

#include <xcuda/rt/handle.hpp>

#include <cstddef>
#include <type_traits>

namespace xcuda::rt::detail {

// The parameter struct of a call on `object`: zeroed, its size set, and the object in the field
// CUPTI names for its kind (pHostObject, pRangeProfilerObject, or ctx for a context).
template <class Params, class Object>
Params object_params(std::size_t struct_size, Object object) {
    auto p = cupti_params<Params>(struct_size);
    if constexpr (std::is_same_v<Object, CUpti_Profiler_Host_Object*>) {
        p.pHostObject = object;
    } else if constexpr (std::is_same_v<Object, CUpti_RangeProfiler_Object*>) {
        p.pRangeProfilerObject = object;
    } else {
        static_assert(std::is_same_v<Object, CUcontext>,
                      "a CUPTI object is a host object, a range profiler or a context");
        p.ctx = object;
    }
    return p;
}

// Holds `Object` and calls `release` on it once, when this goes.
template <class Object, void (*release)(Object) noexcept>
class CuptiObject {
public:
    explicit CuptiObject(Object object) : object_(object) {}

    // The parameters of a call on this object: the struct's size and the object set.
    template <class Params>
    Params params(std::size_t struct_size) const {
        return object_params<Params>(struct_size, object_.get());
    }

private:
    struct Release {
        void operator()(Object object) const noexcept { release(object); }
    };
    Handle<Object, Release> object_;
};

}  // namespace xcuda::rt::detail
