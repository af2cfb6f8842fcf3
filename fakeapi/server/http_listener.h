// The HttpListener is cpp-httplib's server with connection handling of its own, so that one
// misbehaving client cannot deny service to the others and a kept-alive connection answers at once:
//
// - TCP_NODELAY on every connection: a response's head and body leave at once instead of waiting
//   for the client's delayed ACK (Nagle), which cost ~40 ms per request on a reused connection.
// - Reads buffered per connection (cpp-httplib reads a request's head a byte at a time), so a
//   request costs a few system calls, not two per byte; pipelined requests are served in order.
// - Keep-alive up to `max_requests_per_connection` requests, each connection closed after
//   `idle_timeout` without a request (Go's http.Server IdleTimeout).
// - A request must arrive whole (line, headers and body) within `request_timeout` of its first
//   byte, so a client that announces a body and sends nothing is cut off (slowloris); a stalled
//   write is abandoned after `write_timeout`.
// - A request may not bring more than `max_request_bytes` (headers, body and chunk framing): a
//   chunked body is held to the limit as a Content-Length one is, and an oversized one is not read
//   to its end before the 413.
// - At most `max_connections` connections. At the limit a new one takes the place of the
//   connection idle the longest (kept alive between requests), else of the one that has been
//   waiting for or reading its request the longest (a new connection counts as reading its first);
//   only when every connection is busy in a handler (or streaming a watch), and none turns idle or
//   closes within 100 ms, is the new one answered 429 TooManyRequests (Retry-After: 1) and closed.
//   (The wait covers a client that connects again the moment it has read a response, before the
//   server's thread has marked that connection idle.)
//
// Threads: one per connection (at most max_connections plus a few that only turn connections
// away). Handlers call MarkHandling() once the request is read, which makes their connection
// ineligible for eviction; the error handler asks CurrentReadFailure() why a request could not be
// read (too large, too slow, evicted) to answer with the right Status. CloseAll() shuts every
// connection down, which is how Stop() ends within milliseconds.
#pragma once

#include "clock/clock.h"

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace fakeapi {

struct ListenerLimits {
  std::size_t max_connections = 512;
  std::size_t max_request_bytes = 8 * 1024 * 1024;
  std::size_t max_requests_per_connection = 100'000;
  kube::Micros idle_timeout = 90 * kube::kSecond;
  kube::Micros request_timeout = 30 * kube::kSecond;
  kube::Micros write_timeout = 30 * kube::kSecond;
};

// Why the request on this thread's connection could not be read.
enum class ReadFailure { kNone, kTooLarge, kTimedOut, kEvicted };

class HttpListener : public httplib::Server {
 public:
  explicit HttpListener(ListenerLimits limits);
  ~HttpListener() override;

  // Called by a handler once its request has been read: the connection is busy, not evictable.
  static void MarkHandling();
  // For the error handler: why the current connection's request failed to arrive.
  static ReadFailure CurrentReadFailure();

  // Call after bind_to_port/bind_to_any_port: a listen backlog of SOMAXCONN instead of
  // cpp-httplib's 5, so that a burst of connections waits in the kernel instead of being dropped
  // and retried a second later.
  void WidenBacklog();
  // Shuts every open connection down (their threads see the socket close and finish).
  void CloseAll();
  std::size_t OpenConnections() const;
  const ListenerLimits& limits() const { return limits_; }

 private:
  struct Connection;
  class SocketStream;
  class Threads;

  bool process_and_close_socket(socket_t sock) override;
  // Registers a connection; at the limit evicts another or returns false (then the caller refuses).
  bool Admit(Connection* connection);
  void Forget(Connection* connection);
  void ServeRequests(socket_t sock, Connection& connection);

  // The listener and connection the calling thread serves (for MarkHandling, CurrentReadFailure).
  static thread_local HttpListener* current_listener_;
  static thread_local Connection* current_connection_;

  const ListenerLimits limits_;
  mutable std::mutex mu_;
  std::condition_variable freed_;  // a connection turned idle or closed (Admit waits for one)
  std::map<std::uint64_t, Connection*> open_;
  std::uint64_t next_id_ = 0;
};

}  // namespace fakeapi
