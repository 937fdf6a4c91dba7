#include "library_loader.hpp"

#include <dlfcn.h>

namespace xcuda::rt::detail {

void* open_complete(const std::string& name, const std::function<const char*(void*)>& resolve, std::string& why) {
    void* lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        const char* error = ::dlerror();
        why = error != nullptr ? error : "not found";
        return nullptr;
    }
    if (const char* missing = resolve(lib)) {
        why = std::string("lacks ") + missing + ": too old";
        ::dlclose(lib);
        return nullptr;
    }
    return lib;
}

std::string loaded_file(const void* symbol, const std::string& name) {
    Dl_info info{};
    return ::dladdr(symbol, &info) != 0 && info.dli_fname != nullptr ? info.dli_fname : name;
}

void* open_first_complete(const std::vector<std::string>& names, const std::function<const char*(void*)>& resolve,
                          std::string& loaded, std::string& tried) {
    for (const auto& name : names) {
        std::string why;
        if (void* lib = open_complete(name, resolve, why)) {
            loaded = name;
            return lib;
        }
        tried += (tried.empty() ? "" : "; ") + name + " (" + why + ")";
    }
    return nullptr;
}

}  // namespace xcuda::rt::detail
