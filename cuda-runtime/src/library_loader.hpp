// dlopen of the first library of a list that has every entry point needed: how NVRTC and
// nvJitLink are loaded on first use (the driver has its own rules, driver.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace xcuda::rt::detail {

// Opens each of `names` in turn; `resolve(handle)` fills the caller's table and returns the
// name of an entry point it lacks (nullptr when complete). Returns the first complete library's
// handle, kept open for the life of the process, and sets `loaded` to the file's name; nullptr
// when none is, with `tried` saying what each name gave ("libx.so.13 (not found); ...").
void* open_first_complete(const std::vector<std::string>& names, const std::function<const char*(void*)>& resolve,
                          std::string& loaded, std::string& tried);

}  // namespace xcuda::rt::detail
