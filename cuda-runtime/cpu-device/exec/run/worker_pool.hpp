// The threads that run a launch's blocks: made once, kept for the process, one per core.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace xcuda::cpu {

class WorkerPool {
public:
    static WorkerPool& instance();

    // Runs job(0) .. job(n - 1), each on its own thread (job(0) on the caller's), and returns when
    // all have returned. One launch at a time: a second caller waits for the first to finish.
    void run(unsigned n, const std::function<void(unsigned)>& job);

    // The number of threads a launch may use: the machine's cores.
    static unsigned cores();

private:
    WorkerPool() = default;
    ~WorkerPool() = delete;  // lives as long as the process (its threads never stop)
    void work(unsigned index);

    std::mutex launch_mutex_;  // one launch at a time
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::vector<std::thread> threads_;
    const std::function<void(unsigned)>* job_ = nullptr;
    unsigned wanted_ = 0;           // helpers taking part in the current job
    unsigned running_ = 0;          // helpers still inside it
    unsigned long generation_ = 0;  // bumped per job, so a helper takes each job once
};

}  // namespace xcuda::cpu
