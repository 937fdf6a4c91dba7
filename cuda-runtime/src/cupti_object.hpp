// The skeleton of the classes that hold one CUPTI object for their life: the profiler host object
// (counters.cpp), a context's range profiler (counters.cpp) and a context with PC sampling on
// (pc_sampling.cpp). Each says in a `Calls` struct how a call on its object is made; the holding,
// the release when the class goes and the parameters of each call are written here once.
#pragma once

#include <xcuda/rt/handle.hpp>

#include <cstddef>

namespace xcuda::rt::detail {

// `Calls` has: `Object`, the type CUPTI hands out; `template <class Params> static Params
// params(std::size_t struct_size, Object)`, a call's parameter struct with its size and the
// object set; `static void release(Object) noexcept`, the call that ends it (Deinitialize,
// Disable).
template <class Calls>
class CuptiObject {
public:
    using Object = typename Calls::Object;

    explicit CuptiObject(Object object) : object_(object) {}

    // The parameters of a call on this object: the struct's size and the object set.
    template <class Params>
    Params params(std::size_t struct_size) const {
        return Calls::template params<Params>(struct_size, object_.get());
    }

private:
    struct Release {
        void operator()(Object object) const noexcept { Calls::release(object); }
    };
    Handle<Object, Release> object_;
};

}  // namespace xcuda::rt::detail
