// The HTTP server under clients that misbehave: stalled and oversized uploads (chunked or not),
// floods of connections and of watches. Each must be refused or cut off while other clients,
// /version first, are still served; and a well-behaved client keeps one connection for many
// requests.
#include "tests/fakeapi/server/http_test_util.h"

namespace fakeapi {
namespace {

using namespace fakeapi::testing;

class HttpLimitsTest : public HttpServerTest {};

// The status code of the first HTTP response in `raw` (0 when there is none).
int StatusCodeOf(const std::string& raw) {
  if (raw.rfind("HTTP/1.1 ", 0) != 0 || raw.size() < 12) return 0;
  return std::stoi(raw.substr(9, 3));
}

TEST_F(HttpLimitsTest, AKeptAliveConnectionServesManyRequests) {
  int fd = Connect(server->port());
  ASSERT_GE(fd, 0);
  const std::string get = "GET /version HTTP/1.1\r\nHost: x\r\n\r\n";
  const int requests = 50;
  for (int i = 0; i < requests; ++i) ASSERT_EQ(::send(fd, get.data(), get.size(), MSG_NOSIGNAL), static_cast<ssize_t>(get.size()));
  const std::string close = "GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(::send(fd, close.data(), close.size(), MSG_NOSIGNAL), static_cast<ssize_t>(close.size()));
  std::string all = ReadUntilClosed(fd);
  ::close(fd);
  std::size_t answered = 0;
  for (std::size_t at = all.find("HTTP/1.1 200"); at != std::string::npos; at = all.find("HTTP/1.1 200", at + 1)) ++answered;
  // The old server closed every connection after five requests ("Keep-Alive: timeout=5, max=5").
  EXPECT_EQ(answered, static_cast<std::size_t>(requests + 1));
  EXPECT_NE(all.find("Keep-Alive: timeout=90, max=100000"), std::string::npos) << all.substr(0, 400);
}

TEST_F(HttpLimitsTest, AChunkedBodyOverTheLimitIs413WithoutBeingReadToItsEnd) {
  HttpServerOptions options;
  options.max_body_bytes = 4096;
  Start(options);
  int fd = Connect(server->port());
  ASSERT_GE(fd, 0);
  const std::string head =
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  ASSERT_GT(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), 0);
  timeval tv{10, 0};  // a server that stops reading without hanging up fails the test instead of hanging it
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  // Keep sending 1 KiB chunks: the server must answer and hang up long before 64 MiB have gone.
  const std::string chunk = "400\r\n" + std::string(1024, ' ') + "\r\n";
  std::size_t sent = 0;
  while (sent < 64u * 1024 * 1024) {
    ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  EXPECT_LT(sent, 64u * 1024 * 1024) << "the server kept reading the oversized body";
  std::string reply = ReadUntilClosed(fd);
  ::close(fd);
  if (!reply.empty()) {  // the 413 may be lost to a reset when the client is still sending
    EXPECT_EQ(StatusCodeOf(reply), 413) << reply.substr(0, 200);
  }
  EXPECT_EQ(client->Get("/version")->status, 200);
}

TEST_F(HttpLimitsTest, AChunkedBodyJustOverTheLimitIs413) {
  HttpServerOptions options;
  options.max_body_bytes = 4096;
  Start(options);
  json big = ConfigMap("big", "default", {{"k", std::string(5000, 'x')}});
  std::string body = big.dump();
  auto r = client->Post(
      "/api/v1/namespaces/default/configmaps",
      [&](std::size_t offset, httplib::DataSink& sink) {
        // Two chunks, no Content-Length: cpp-httplib's client sends Transfer-Encoding: chunked.
        std::size_t half = body.size() / 2;
        if (offset == 0) {
          sink.write(body.data(), half);
        } else if (offset == half) {
          sink.write(body.data() + half, body.size() - half);
        } else {
          sink.done();
        }
        return true;
      },
      "application/json");
  ExpectStatus(r, 413, "RequestEntityTooLarge");
  EXPECT_FALSE(store.Get("configmaps", "default", "big").ok());
}

TEST_F(HttpLimitsTest, AnAnnouncedBodyThatNeverComesIsCutOffAfterTheRequestTimeout) {
  HttpServerOptions options;
  options.request_timeout = 200 * kube::kMillisecond;
  Start(options);
  int fd = Connect(server->port());
  ASSERT_GE(fd, 0);
  const std::string head =
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{";
  ASSERT_GT(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), 0);
  // Nothing more is sent: the server answers 408 and closes (the read ends; no test-side sleep).
  std::string reply = ReadUntilClosed(fd);
  ::close(fd);
  EXPECT_EQ(StatusCodeOf(reply), 408) << reply.substr(0, 200);
  EXPECT_NE(reply.find("\"reason\":\"Timeout\""), std::string::npos) << reply;
}

TEST_F(HttpLimitsTest, VersionIsAnsweredWhileEveryConnectionSlotHoldsAStalledUpload) {
  HttpServerOptions options;
  options.max_connections = 8;
  Start(options);
  std::vector<int> stalled;
  const std::string head =
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{";
  for (int i = 0; i < 40; ++i) {  // five times the limit, each announcing a body it never sends
    int fd = Connect(server->port());
    ASSERT_GE(fd, 0);
    ASSERT_GT(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), 0);
    stalled.push_back(fd);
  }
  httplib::Client probe("127.0.0.1", server->port());
  probe.set_read_timeout(10, 0);
  auto r = probe.Get("/version");
  ASSERT_TRUE(r) << "no answer while stalled uploads hold the connections";
  EXPECT_EQ(r->status, 200);
  for (int fd : stalled) ::close(fd);
}

TEST_F(HttpLimitsTest, IdleKeptAliveConnectionsMakeRoomForNewOnes) {
  HttpServerOptions options;
  options.max_connections = 2;
  Start(options);
  std::vector<std::unique_ptr<httplib::Client>> idle;
  for (int i = 0; i < 2; ++i) {
    idle.push_back(std::make_unique<httplib::Client>("127.0.0.1", server->port()));
    idle.back()->set_keep_alive(true);
    ASSERT_EQ(idle.back()->Get("/version")->status, 200);
  }
  // Both slots hold idle kept-alive connections; a third client is served all the same.
  httplib::Client third("127.0.0.1", server->port());
  auto r = third.Get("/version");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpLimitsTest, WhenEveryConnectionIsStreamingANewOneIs429) {
  HttpServerOptions options;
  options.max_connections = 3;
  Start(options);
  std::vector<std::unique_ptr<Stream>> watches;
  for (int i = 0; i < 3; ++i) watches.push_back(std::make_unique<Stream>(server->port(), "/api/v1/pods?watch=true"));
  ASSERT_TRUE(Eventually([&] { return store.Stats().watchers == 3; }));
  int fd = Connect(server->port());
  ASSERT_GE(fd, 0);
  const std::string get = "GET /version HTTP/1.1\r\nHost: x\r\n\r\n";
  (void)!::send(fd, get.data(), get.size(), MSG_NOSIGNAL);
  std::string reply = ReadUntilClosed(fd);
  ::close(fd);
  EXPECT_EQ(StatusCodeOf(reply), 429) << reply;
  EXPECT_NE(reply.find("Retry-After: 1"), std::string::npos);
  EXPECT_NE(reply.find("\"reason\":\"TooManyRequests\""), std::string::npos);
  server->Stop();
}

TEST_F(HttpLimitsTest, WatchesPastTheLimitAre429AndOtherRequestsGoOn) {
  HttpServerOptions options;
  options.max_watches = 2;
  options.watch_keepalive = 20 * kube::kMillisecond;  // a closed client is noticed at the next keep-alive
  Start(options);
  Stream first(server->port(), "/api/v1/pods?watch=true");
  Stream second(server->port(), "/api/v1/configmaps?watch=true");
  ASSERT_TRUE(Eventually([&] { return store.Stats().watchers == 2; }));
  ExpectStatus(client->Get("/api/v1/services?watch=true"), 429, "TooManyRequests");
  EXPECT_EQ(client->Get("/version")->status, 200);
  EXPECT_EQ(client->Get("/api/v1/pods")->status, 200);
  first.Stop();
  // A watch that ends frees its place.
  ASSERT_TRUE(first.WaitFinished());
  EXPECT_TRUE(Eventually([&] {
    auto r = client->Get("/api/v1/services?watch=true&timeoutSeconds=1");
    return r && r->status == 200;
  }));
  server->Stop();
}

}  // namespace
}  // namespace fakeapi
