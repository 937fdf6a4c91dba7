#include "library_loader.hpp"

#include <dlfcn.h>

namespace xcuda::rt::detail {

void* open_first_complete(const std::vector<std::string>& names, const std::function<const char*(void*)>& resolve,
                          std::string& loaded, std::string& tried) {
    for (const auto& name : names) {
        void* lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            const char* why = ::dlerror();
            tried += (tried.empty() ? "" : "; ") + name + " (" + (why ? why : "not found") + ")";
            continue;
        }
        if (const char* missing = resolve(lib)) {
            tried += (tried.empty() ? "" : "; ") + name + " (lacks " + missing + ": too old)";
            ::dlclose(lib);
            continue;
        }
        loaded = name;
        return lib;
    }
    return nullptr;
}

}  // namespace xcuda::rt::detail
