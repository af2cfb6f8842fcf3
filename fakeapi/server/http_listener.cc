// See http_listener.h. The request parsing, routing and response writing stay cpp-httplib's
// (Server::process_request); what is here is the socket underneath it and the keep-alive loop.
#include "fakeapi/server/http_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>

namespace fakeapi {

namespace {

using SteadyClock = std::chrono::steady_clock;

// The longest single wait while a connection is idle, so that a stopped server is noticed.
constexpr int kIdleSliceMs = 200;
// A refused connection is given this long to read its 429 before the socket closes.
constexpr int kRefusalLingerMs = 100;
// How long a new connection waits, at the limit, for a slot before it is refused: a handler's
// connection turns idle a moment after its response has gone out, and a client that connects again
// as soon as it has read that response must not find the slot still busy.
constexpr auto kAdmitGrace = std::chrono::milliseconds(100);

int MillisUntil(SteadyClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

// poll() for `events` up to `timeout_ms`, retried on EINTR: >0 ready, 0 timed out, <0 error.
int PollFor(socket_t sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  while (true) {
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r > 0 && (p.revents & (POLLERR | POLLNVAL))) return -1;
    return r;
  }
}

std::string AddressOf(const sockaddr_storage& addr, int* port) {
  char host[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    *port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    *port = ntohs(in6->sin6_port);
  }
  return host;
}

}  // namespace

struct HttpListener::Connection {
  enum class State { kIdle, kReading, kHandling };
  std::uint64_t id = 0;
  socket_t sock = INVALID_SOCKET;
  // Guarded by the listener's mutex. A new connection is reading (its first request) until it has
  // been served once: only a kept-alive connection between requests is idle. Otherwise a connection
  // admitted a moment before its request was read would be the first evicted.
  State state = State::kReading;
  SteadyClock::time_point since;        // when `state` began; guarded likewise
  std::atomic<ReadFailure> failure{ReadFailure::kNone};
  // Of the request being read (only the connection's own thread touches these).
  SteadyClock::time_point deadline;
  std::size_t bytes_read = 0;
};

thread_local HttpListener* HttpListener::current_listener_ = nullptr;
thread_local HttpListener::Connection* HttpListener::current_connection_ = nullptr;

// A connected socket as cpp-httplib's Stream, holding each request to the listener's time and
// byte budget. Reads go through a buffer, as cpp-httplib's own SocketStream does: its line reader
// asks for one byte at a time, which unbuffered cost a poll() and a recv() per byte of a request's
// head (about half a millisecond of CPU for a GET). Bytes count against the budget when they are
// handed over, so a pipelined next request already in the buffer is its own request's.
class HttpListener::SocketStream : public httplib::Stream {
 public:
  SocketStream(socket_t sock, Connection& connection, const ListenerLimits& limits)
      : sock_(sock), connection_(connection), limits_(limits) {}

  // Bytes received and not yet read: a request is waiting even if the socket has nothing new.
  bool HasBuffered() const { return begin_ < end_; }

  bool is_readable() const override { return HasBuffered() || PollFor(sock_, POLLIN, 0) > 0; }
  bool is_writable() const override {
    return PollFor(sock_, POLLOUT, static_cast<int>(limits_.write_timeout / kube::kMillisecond)) > 0;
  }

  ssize_t read(char* ptr, size_t size) override {
    Connection& c = connection_;
    if (c.failure != ReadFailure::kNone) return -1;
    if (c.bytes_read >= limits_.max_request_bytes) return Fail(ReadFailure::kTooLarge);
    size = std::min(size, limits_.max_request_bytes - c.bytes_read);
    if (!HasBuffered()) {
      const int ready = PollFor(sock_, POLLIN, MillisUntil(c.deadline));
      if (ready == 0) return Fail(ReadFailure::kTimedOut);
      if (ready < 0) return -1;
      // A large read (a body) goes straight to the caller; a small one fills the buffer.
      const bool direct = size >= sizeof buffer_;
      const ssize_t n = Receive(direct ? ptr : buffer_, direct ? size : sizeof buffer_);
      if (n <= 0 || direct) {
        if (n > 0) c.bytes_read += static_cast<std::size_t>(n);
        return n;
      }
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    const std::size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, n);
    begin_ += n;
    c.bytes_read += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (PollFor(sock_, POLLOUT, static_cast<int>(limits_.write_timeout / kube::kMillisecond)) <= 0) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) ip = AddressOf(addr, &port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) ip = AddressOf(addr, &port);
  }
  socket_t socket() const override { return sock_; }

 private:
  ssize_t Fail(ReadFailure why) {
    connection_.failure = why;
    return -1;
  }
  ssize_t Receive(char* into, std::size_t size) {
    ssize_t n;
    do {
      n = ::recv(sock_, into, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  const socket_t sock_;
  Connection& connection_;
  const ListenerLimits& limits_;
  char buffer_[4096];
  std::size_t begin_ = 0, end_ = 0;  // the unread bytes of buffer_
};

// One thread per connection, created on demand up to a cap and reused when idle. (cpp-httplib's
// own pool has a fixed size of max(8, cores - 1): eight open watches would starve every request.)
class HttpListener::Threads : public httplib::TaskQueue {
 public:
  explicit Threads(std::size_t max) : max_(std::max<std::size_t>(max, 1)) {}
  ~Threads() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(fn));
    if (idle_ < jobs_.size() && threads_.size() < max_) threads_.emplace_back([this] { Work(); });
    cv_.notify_one();
  }
  void shutdown() override {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      shutdown_ = true;
      threads.swap(threads_);
    }
    cv_.notify_all();
    for (auto& t : threads) t.join();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      ++idle_;
      cv_.wait(lock, [&] { return !jobs_.empty() || shutdown_; });
      --idle_;
      if (jobs_.empty()) return;  // shutting down with nothing left
      auto fn = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  const std::size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool shutdown_ = false;
};

HttpListener::HttpListener(ListenerLimits limits) : limits_(limits) {
  const std::size_t threads = limits_.max_connections + 16;  // the extra ones only refuse connections
  new_task_queue = [threads] { return new Threads(threads); };
  // What the Keep-Alive response header announces.
  set_keep_alive_max_count(std::max<std::size_t>(limits_.max_requests_per_connection, 1));
  set_keep_alive_timeout(std::max<time_t>(1, limits_.idle_timeout / kube::kSecond));
}

HttpListener::~HttpListener() { CloseAll(); }

void HttpListener::MarkHandling() {
  if (!current_listener_ || !current_connection_) return;
  std::lock_guard<std::mutex> lock(current_listener_->mu_);
  current_connection_->state = Connection::State::kHandling;
  current_connection_->since = SteadyClock::now();
}

ReadFailure HttpListener::CurrentReadFailure() { return current_connection_ ? current_connection_->failure.load() : ReadFailure::kNone; }

void HttpListener::WidenBacklog() {
  const socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, SOMAXCONN);
}

void HttpListener::CloseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, c] : open_) ::shutdown(c->sock, SHUT_RDWR);
}

std::size_t HttpListener::OpenConnections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_.size();
}

bool HttpListener::Admit(Connection* connection) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto give_up = SteadyClock::now() + kAdmitGrace;
  for (;;) {
    std::size_t live = 0;
    Connection* idle = nullptr;
    Connection* reading = nullptr;
    for (auto& [id, c] : open_) {
      if (c->failure == ReadFailure::kEvicted) continue;  // on its way out
      ++live;
      if (c->state == Connection::State::kIdle && (!idle || c->since < idle->since)) idle = c;
      if (c->state == Connection::State::kReading && (!reading || c->since < reading->since)) reading = c;
    }
    if (live < limits_.max_connections) break;
    if (Connection* victim = idle ? idle : reading) {
      victim->failure = ReadFailure::kEvicted;
      ::shutdown(victim->sock, SHUT_RDWR);
      break;
    }
    // Every connection is in a handler: wait a moment for one to turn idle or close.
    if (freed_.wait_until(lock, give_up) == std::cv_status::timeout) return false;
  }
  connection->id = next_id_++;
  connection->since = SteadyClock::now();
  open_[connection->id] = connection;
  return true;
}

void HttpListener::Forget(Connection* connection) {
  std::lock_guard<std::mutex> lock(mu_);
  open_.erase(connection->id);
  freed_.notify_all();
}

void HttpListener::ServeRequests(socket_t sock, Connection& c) {
  SocketStream stream(sock, c, limits_);
  std::size_t served = 0;
  auto set_state = [&](Connection::State state) {
    std::lock_guard<std::mutex> lock(mu_);
    c.state = state;
    c.since = SteadyClock::now();
    if (state == Connection::State::kIdle) freed_.notify_all();
  };
  while (svr_sock_ != INVALID_SOCKET && c.failure == ReadFailure::kNone) {
    if (served > 0) set_state(Connection::State::kIdle);
    const auto idle_until = SteadyClock::now() + std::chrono::microseconds(limits_.idle_timeout);
    int ready = stream.HasBuffered() ? 1 : 0;  // a pipelined request, already received
    while (ready == 0 && svr_sock_ != INVALID_SOCKET && SteadyClock::now() < idle_until)
      ready = PollFor(sock, POLLIN, std::min(kIdleSliceMs, MillisUntil(idle_until)));
    if (ready <= 0 || svr_sock_ == INVALID_SOCKET) return;
    set_state(Connection::State::kReading);
    c.deadline = SteadyClock::now() + std::chrono::microseconds(limits_.request_timeout);
    c.bytes_read = 0;
    const bool last = ++served >= limits_.max_requests_per_connection;
    bool closed_by_client = false;
    const bool ok = process_request(stream, last, closed_by_client, nullptr);
    if (!ok || closed_by_client || last) return;
  }
}

bool HttpListener::process_and_close_socket(socket_t sock) {
  int yes = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  Connection connection;
  connection.sock = sock;
  if (Admit(&connection)) {
    current_listener_ = this;
    current_connection_ = &connection;
    ServeRequests(sock, connection);
    current_connection_ = nullptr;
    current_listener_ = nullptr;
    Forget(&connection);
  } else {
    // Every connection is busy handling a request: turn this one away at once, as kube-apiserver's
    // max-in-flight filter does.
    static const std::string kBody =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Too many "
        "requests, please try again later.\",\"reason\":\"TooManyRequests\",\"code\":429}";
    static const std::string kRefusal =
        "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
        "Content-Length: " + std::to_string(kBody.size()) + "\r\n\r\n" + kBody;
    ssize_t sent = ::send(sock, kRefusal.data(), kRefusal.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)sent;
    ::shutdown(sock, SHUT_WR);
    char drain[4096];
    if (PollFor(sock, POLLIN, kRefusalLingerMs) > 0) (void)::recv(sock, drain, sizeof drain, MSG_DONTWAIT);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

}  // namespace fakeapi
