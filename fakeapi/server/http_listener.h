// The threads that serve HTTP connections for HttpServer: one per connection, created on demand up
// to a cap and reused when idle. (cpp-httplib's own pool has a fixed size of max(8, cores - 1):
// eight open watches would starve every other request.)
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fakeapi {

class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(std::size_t max);
  ~ConnectionThreads() override;

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void Work();

  const std::size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool shutdown_ = false;
};

}  // namespace fakeapi
