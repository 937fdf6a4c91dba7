#include "fake_engine.hpp"

#include "exec/decode/program.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace xcuda::cpu {
namespace {

std::mutex g_mutex;
std::vector<fake_engine::Launched> g_launches;
std::vector<std::uint32_t> g_appended;
std::set<std::uint32_t> g_open_gates;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<unsigned> numbers(const std::string& list) {
    std::vector<unsigned> out;
    std::istringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(static_cast<unsigned>(std::stoul(item)));
    return out;
}

Dim3 dims(const std::string& list) {
    const std::vector<unsigned> v = numbers(list);
    if (v.size() != 3) throw std::invalid_argument("three dimensions expected");
    return {v[0], v[1], v[2]};
}

KernelInfo parse_kernel(std::istringstream& words) {
    KernelInfo k;
    words >> k.name;
    k.num_regs = 32;
    k.ptx_version = 90;
    std::string word;
    while (words >> word) {
        const auto eq = word.find('=');
        const std::string key = word.substr(0, eq);
        const std::string value = eq == std::string::npos ? std::string() : word.substr(eq + 1);
        if (key == "params") {
            for (unsigned size : numbers(value)) {
                const std::size_t align = size == 1 || size == 2 || size == 4 || size == 8 ? size : 8;
                const std::size_t offset = (k.param_bytes + align - 1) / align * align;
                k.params.push_back({offset, size, align});
                k.param_bytes = offset + size;
            }
        } else if (key == "regs") {
            k.num_regs = std::stoi(value);
        } else if (key == "shared") {
            k.static_shared_bytes = std::stoul(value);
        } else if (key == "local") {
            k.local_bytes = std::stoul(value);
        } else if (key == "maxntid") {
            k.max_threads_per_block = std::stoi(value);
        } else if (key == "reqntid") {
            k.reqntid = dims(value);
            k.max_threads_per_block = static_cast<int>(k.reqntid.count());
        } else if (key == "cluster") {
            k.cluster_dims = dims(value);
        } else if (key == "explicit_cluster") {
            k.explicit_cluster = true;
        } else if (key == "syncs_grid") {
            k.syncs_grid = true;
        } else if (key == "max_cluster_rank") {
            k.max_cluster_rank = static_cast<unsigned>(std::stoul(value));
        } else {
            throw std::invalid_argument("unknown kernel attribute '" + key + "'");
        }
    }
    return k;
}

template <class T>
T param(const LaunchSpec& spec, std::size_t index) {
    T value{};
    std::memcpy(&value, spec.params.data() + spec.kernel->params.at(index).offset, sizeof value);
    return value;
}

// Sleeps in small steps so a cancel is seen within a millisecond, as the engine's blocks see it.
bool wait_until(const std::atomic<bool>& cancel, const std::function<bool()>& done) {
    while (!done()) {
        if (cancel.load()) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return true;
}

}  // namespace

Module::~Module() {
    for (std::uint64_t a : owned_) memory_->free(a);
}

std::shared_ptr<Module> Module::load(std::string_view text, DeviceMemory& memory,
                                     const std::map<std::string, int>& register_counts) {
    std::shared_ptr<Module> m(new Module());
    m->memory_ = &memory;
    std::istringstream lines{std::string(text)};
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
        ++number;
        std::istringstream words(line);
        std::string directive;
        if (!(words >> directive) || directive[0] == '#') continue;
        try {
            if (directive == "kernel") {
                KernelInfo k = parse_kernel(words);
                if (auto it = register_counts.find(k.name); it != register_counts.end()) k.num_regs = it->second;
                m->kernels_.push_back(std::move(k));
            } else if (directive == "global") {
                std::string name;
                std::size_t bytes = 0;
                if (!(words >> name >> bytes) || bytes == 0) throw std::invalid_argument("global NAME BYTES expected");
                const std::uint64_t at = memory.allocate(bytes, Allocation::Kind::module_variable, name);
                if (at == 0) throw std::bad_alloc();
                m->owned_.push_back(at);
                m->globals_[name] = {at, bytes};
            } else {
                throw std::invalid_argument("unknown directive '" + directive + "'");
            }
        } catch (const std::invalid_argument& e) {
            throw ModuleLoadError("line " + std::to_string(number) + ": " + e.what());
        }
    }
    for (std::size_t i = 0; i < m->kernels_.size(); ++i) m->kernels_[i].entry_index = static_cast<int>(i);
    return m;
}

const KernelInfo* Module::kernel(std::string_view name) const {
    for (const KernelInfo& k : kernels_) {
        if (k.name == name) return &k;
    }
    return nullptr;
}

std::vector<const KernelInfo*> Module::kernels() const {
    std::vector<const KernelInfo*> out;
    for (const KernelInfo& k : kernels_) out.push_back(&k);
    return out;
}

std::optional<Module::Symbol> Module::global(std::string_view name) const {
    auto it = globals_.find(name);
    if (it == globals_.end()) return std::nullopt;
    return it->second;
}

LaunchOutcome run_launch(const LaunchSpec& spec, const RunOptions& options, const std::atomic<bool>& cancel) {
    const std::string& name = spec.kernel->name;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_launches.push_back({name, spec.grid, spec.block, spec.cluster, spec.dynamic_shared_bytes, spec.cooperative,
                              spec.params, options});
    }
    LaunchOutcome out;
    if (options.profile) {
        auto profile = std::make_shared<LineProfile>();
        profile->kernel = name;
        out.profile = profile;
    }
    if (starts_with(name, "append")) {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_appended.push_back(param<std::uint32_t>(spec, 0));
    } else if (starts_with(name, "store")) {
        const auto value = param<std::uint32_t>(spec, 1);
        std::memcpy(reinterpret_cast<void*>(param<std::uint64_t>(spec, 0)), &value, sizeof value);
    } else if (starts_with(name, "sleep")) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(param<std::uint32_t>(spec, 0));
        out.cancelled = !wait_until(cancel, [&] { return std::chrono::steady_clock::now() >= until; });
    } else if (starts_with(name, "gate")) {
        const auto gate = param<std::uint32_t>(spec, 0);
        out.cancelled = !wait_until(cancel, [&] {
            std::lock_guard<std::mutex> lock(g_mutex);
            return g_open_gates.count(gate) != 0;
        });
    } else if (starts_with(name, "fail")) {
        auto failure = std::make_shared<Failure>();
        failure->code = CUDA_ERROR_ILLEGAL_ADDRESS;
        failure->kernel = name;
        failure->grid = spec.grid;
        failure->block = spec.block;
        failure->finding.kind = FindingKind::out_of_bounds;
        out.status = CUDA_ERROR_ILLEGAL_ADDRESS;
        out.failure = failure;
    } else if (starts_with(name, "throw")) {
        throw std::runtime_error("fake engine failure");
    }
    return out;
}

namespace fake_engine {

std::vector<Launched> launches() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_launches;
}

std::vector<std::uint32_t> appended() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_appended;
}

void open_gate(std::uint32_t gate) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_open_gates.insert(gate);
}

void reset() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_launches.clear();
    g_appended.clear();
    g_open_gates.clear();
}

}  // namespace fake_engine
}  // namespace xcuda::cpu
