// Running CUDA C++ on the engine without the driver layer: NVRTC compiles the source to PTX (with
// line information), the engine loads it and runs launches; device memory is a small arena.
#pragma once

#include "exec/engine.hpp"

#include <xcuda/rt/compiler.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace xcuda::cpu::testing {

class Engine {
public:
    Engine() : memory_(std::size_t{1} << 30) {}

    // NVRTC to PTX for sm_90 with -lineinfo; the program is named cell.cu.
    std::shared_ptr<Module> load(const std::string& source, std::vector<std::string> extra = {}) {
        rt::CompileOptions o;
        o.program_name = "cell.cu";
        o.arch = "compute_90";
        o.options = {"-lineinfo", "-std=c++17"};
        for (auto& e : extra) o.options.push_back(std::move(e));
        o.resource_usage = false;
        ptx_ = rt::compile(source, o).ptx;
        return Module::load(ptx_, memory_);
    }
    const std::string& ptx() const { return ptx_; }

    template <class T>
    std::uint64_t to_device(const std::vector<T>& host) {
        const std::uint64_t p = memory_.allocate(std::max<std::size_t>(host.size() * sizeof(T), 1));
        if (!host.empty()) std::memcpy(reinterpret_cast<void*>(p), host.data(), host.size() * sizeof(T));
        return p;
    }
    std::uint64_t allocate(std::size_t bytes) { return memory_.allocate(bytes); }
    // As cuMemAlloc gives it: unwritten until something writes it (the uninitialised-read check).
    std::uint64_t allocate_unwritten(std::size_t bytes) {
        return memory_.allocate(bytes, Allocation::Kind::device, {}, false);
    }
    template <class T>
    std::vector<T> to_host(std::uint64_t p, std::size_t n) {
        std::vector<T> out(n);
        std::memcpy(out.data(), reinterpret_cast<const void*>(p), n * sizeof(T));
        return out;
    }
    void free(std::uint64_t p) { memory_.free(p); }
    DeviceMemory& memory() { return memory_; }

    RunOptions options;
    // The next launches' clusters and whether they are cooperative (the driver decides both
    // from the launch's attributes and the kernel's; the engine runs what it is told).
    Dim3 cluster{1, 1, 1};
    bool cooperative = false;
    // The arrays the next launches' arguments pass (what the magics layer says of numpy arrays
    // staged in larger pooled buffers, and of views).
    std::vector<ArgumentExtent> extents;

    // Packs `args` as the kernel's parameters say and runs the launch to its end.
    template <class... Args>
    LaunchOutcome launch(const std::shared_ptr<Module>& m, const std::string& kernel, Dim3 grid, Dim3 block,
                         unsigned shared_bytes, Args... args) {
        LaunchSpec s;
        s.module = m;
        s.kernel = m->kernel(kernel);
        EXPECT_NE(s.kernel, nullptr) << "no kernel " << kernel;
        if (s.kernel == nullptr) return {};
        s.grid = grid;
        s.block = block;
        s.dynamic_shared_bytes = shared_bytes;
        s.cluster = cluster;
        s.cooperative = cooperative;
        s.memory = &memory_;
        s.argument_extents = extents;
        s.params.resize(s.kernel->param_bytes);
        std::size_t i = 0;
        (pack(s, i++, args), ...);
        EXPECT_EQ(i, s.kernel->params.size()) << "argument count";
        std::atomic<bool> cancel{false};
        return run_launch(s, options, cancel);
    }

private:
    template <class T>
    static void pack(LaunchSpec& s, std::size_t i, T v) {
        ASSERT_LT(i, s.kernel->params.size());
        ASSERT_EQ(s.kernel->params[i].size, sizeof(T)) << "parameter " << i;
        std::memcpy(s.params.data() + s.kernel->params[i].offset, &v, sizeof(T));
    }

    DeviceMemory memory_;
    std::string ptx_;
};

// The cell's line of a location: its own, or where the cell called the inlined header code it is in.
inline int cell_line(const SourceLocation& at) {
    auto in_cell = [](const std::string& file) {
        const std::string cell = "cell.cu";
        return file.size() >= cell.size() && file.compare(file.size() - cell.size(), cell.size(), cell) == 0;
    };
    if (in_cell(at.file)) return at.line;
    for (const auto& site : at.inlined_at) {
        if (in_cell(site.file)) return site.line;
    }
    return 0;
}

// What a block of code writes to fd 1 (device printf's destination).
class CaptureStdout {
public:
    CaptureStdout() {
        std::fflush(stdout);
        saved_ = ::dup(1);
        std::snprintf(path_, sizeof path_, "/tmp/xcuda-stdout-XXXXXX");
        file_ = ::mkstemp(path_);
        ::dup2(file_, 1);
    }
    std::string finish() {
        std::fflush(stdout);
        ::dup2(saved_, 1);
        ::close(saved_);
        std::string out;
        ::lseek(file_, 0, SEEK_SET);
        char buf[4096];
        for (ssize_t n; (n = ::read(file_, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
        ::close(file_);
        ::unlink(path_);
        return out;
    }

private:
    int saved_ = -1, file_ = -1;
    char path_[64];
};

}  // namespace xcuda::cpu::testing
