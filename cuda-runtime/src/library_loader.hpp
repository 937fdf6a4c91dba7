// dlopen of the first library of a list that has every entry point needed: how NVRTC and
// nvJitLink are loaded on first use (the driver has its own rules, driver.cpp).
#pragma once

#include <dlfcn.h>

#include <functional>
#include <string>
#include <vector>

namespace xcuda::rt::detail {

// Opens `name`; `resolve(handle)` fills the caller's table and returns the name of an entry point
// it lacks (nullptr when complete). Returns the handle, kept open for the life of the process, or
// nullptr with `why` saying what went wrong ("not found", "lacks nvrtcX: too old").
void* open_complete(const std::string& name, const std::function<const char*(void*)>& resolve, std::string& why);

// The file a loaded library's `symbol` lies in (the loader's search resolved "libx.so.13" to a
// path), or `name` when the loader cannot say.
std::string loaded_file(const void* symbol, const std::string& name);

// Opens each of `names` in turn; `resolve(handle)` fills the caller's table and returns the
// name of an entry point it lacks (nullptr when complete). Returns the first complete library's
// handle, kept open for the life of the process, and sets `loaded` to the file's name; nullptr
// when none is, with `tried` saying what each name gave ("libx.so.13 (not found); ...").
void* open_first_complete(const std::vector<std::string>& names, const std::function<const char*(void*)>& resolve,
                          std::string& loaded, std::string& tried);

}  // namespace xcuda::rt::detail

// The `resolve` of open_first_complete for a table of entry points listed by an X-macro
// (XCUDA_NVRTC_FUNCTIONS and the like): fills `api.fn` for every fn of LIST, names the first
// one the library lacks.
#define XCUDA_RESOLVE_TABLE_ENTRY(fn)                                   \
    table.fn = reinterpret_cast<decltype(&::fn)>(::dlsym(handle, #fn)); \
    if (table.fn == nullptr && missing == nullptr) missing = #fn;
#define XCUDA_TABLE_RESOLVER(api, LIST) \
    [&](void* handle) -> const char* {  \
        auto& table = (api);            \
        const char* missing = nullptr;  \
        LIST(XCUDA_RESOLVE_TABLE_ENTRY) \
        return missing;                 \
    }
