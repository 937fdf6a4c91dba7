#include "exec/run/worker_pool.hpp"

namespace xcuda::cpu {

WorkerPool& WorkerPool::instance() {
    // Never destroyed: helper threads may still be parked at exit, and a static destructor that
    // joins or destroys them would hang or abort the process.
    static WorkerPool* pool = new WorkerPool();
    return *pool;
}

unsigned WorkerPool::cores() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

void WorkerPool::work(unsigned index) {
    unsigned long seen = 0;
    for (;;) {
        const std::function<void(unsigned)>* job = nullptr;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return generation_ != seen && index <= wanted_; });
            seen = generation_;
            job = job_;
        }
        (*job)(index);
        std::lock_guard<std::mutex> lock(mutex_);
        if (--running_ == 0) done_.notify_all();
    }
}

void WorkerPool::run(unsigned n, const std::function<void(unsigned)>& job) {
    if (n <= 1) {
        job(0);
        return;
    }
    std::lock_guard<std::mutex> launch(launch_mutex_);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        while (threads_.size() + 1 < n) {
            const auto index = static_cast<unsigned>(threads_.size() + 1);
            threads_.emplace_back([this, index] { work(index); });
            threads_.back().detach();  // see instance(): the pool outlives everything
        }
        job_ = &job;
        wanted_ = n - 1;
        running_ = n - 1;
        ++generation_;
    }
    wake_.notify_all();
    job(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return running_ == 0; });
    job_ = nullptr;
}

}  // namespace xcuda::cpu
