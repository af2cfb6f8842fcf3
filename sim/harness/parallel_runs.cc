#include "sim/harness/parallel_runs.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace harness {

void RunInParallel(std::size_t count, std::size_t jobs, const std::function<void(std::size_t i)>& run,
                   const std::function<void(std::size_t i, std::size_t done)>& finished) {
  if (count == 0) return;
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, count);
  std::atomic<std::size_t> next{0};
  std::mutex done_mutex;
  std::size_t done = 0;
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      run(i);
      std::lock_guard<std::mutex> lock(done_mutex);
      ++done;
      if (!finished) continue;
      try {
        finished(i, done);
      } catch (const std::exception&) {
        // Progress is a courtesy; a failing callback must not lose the results.
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < jobs; ++t) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // this thread and the others take its share
    }
  }
  work();
  for (auto& t : threads) t.join();
}

}  // namespace harness
