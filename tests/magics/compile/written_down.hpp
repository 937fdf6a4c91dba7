// Compares a dump with the text written down in a test. On a mismatch the whole actual dump is
// written under the test's temp directory, named after `name`, so it can be diffed as a file.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

inline void expect_as_written_down(const std::string& name, const std::string& actual, const std::string& expected) {
    if (actual == expected) return;
    const std::string path = testing::TempDir() + name + ".actual";
    std::ofstream(path) << actual;
    ADD_FAILURE() << name << " is not as written down; the whole dump is in " << path;
}
