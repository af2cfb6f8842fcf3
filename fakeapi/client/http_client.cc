// HttpClient: the Client interface over the Kubernetes REST protocol, with cpp-httplib.
#include "fakeapi/client/http_client.h"

#include "fakeapi/client/json_path.h"

#include <httplib.h>
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
#include <openssl/pem.h>
#include <openssl/x509.h>
#endif

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

namespace kube {
namespace {

using json = kube::Json;

constexpr const char* kServiceAccountDir = "var/run/secrets/kubernetes.io/serviceaccount/";
// A bound service-account token is rotated by the kubelet; re-read it this often, as client-go does.
constexpr Micros kTokenReloadInterval = 60 * kSecond;
// Bodies of refused watches and undecodable streams are kept only this far.
constexpr std::size_t kMaxErrorBody = 64 * 1024;
// One watch event larger than this is not an event but a broken stream.
constexpr std::size_t kMaxEventBytes = 64 * 1024 * 1024;

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
// A certificate store holding every certificate of a PEM bundle (nullptr when it holds none). The
// caller owns it; cpp-httplib takes it over with set_ca_cert_store.
X509_STORE* CertStoreFromPem(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return nullptr;
  X509_STORE* store = X509_STORE_new();
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  BIO_free(bio);
  if (added == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}
#endif

Micros SteadyNow() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Percent-encodes everything but RFC 3986 unreserved characters: safe for path segments and query
// values alike.
std::string Escape(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// "?a=1&b=2" from the non-empty pairs, or "".
std::string Query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    out += out.empty() ? "?" : "&";
    out += key + "=" + Escape(value);
  }
  return out;
}

std::string ReasonForCode(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return code >= 500 ? "InternalError" : "BadRequest";
  }
}

Status StatusWith(int code, const std::string& reason, const std::string& message) {
  return Status::FromJson({{"status", "Failure"}, {"code", code}, {"reason", reason}, {"message", message}});
}

std::string Shorten(std::string text) {
  if (text.size() > 512) text = text.substr(0, 512) + "...";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// The Status a failed response stands for: its metav1.Status body when it has one (the code of
// the response wins over a missing one), else one made from the HTTP code, with the wording
// kube-apiserver and client-go use.
Status StatusOfResponse(int code, const std::string& body, const ResourceType* type, const std::string& name) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (JsonString(parsed, {"kind"}) == "Status") {
    if (!parsed.contains("code") || !parsed["code"].is_number_integer()) parsed["code"] = code;
    Status s = Status::FromJson(parsed);
    if (!s.ok()) return s;
  }
  const std::string resource = type != nullptr ? type->QualifiedName() : "resource";
  const std::string text = Shorten(body);
  switch (code) {
    case 404:
      if (!name.empty()) return Status::NotFound(resource, name);
      return StatusWith(404, "NotFound", "the server could not find the requested resource");
    case 409: return Status::Conflict(resource, name, text.empty() ? "conflict" : text);
    case 410: return Status::Expired(text.empty() ? "the resourceVersion is too old" : text);
    default: break;
  }
  if (code >= 500 && code != 503 && code != 504) {
    return Status::Internal("an error on the server (\"" + text + "\") has prevented the request from succeeding");
  }
  return StatusWith(code, ReasonForCode(code), text.empty() ? "HTTP " + std::to_string(code) : text);
}

// Objects from lists (and from some servers' watches) may lack kind and apiVersion.
void FillTypeMeta(json& object, const ResourceType& type) {
  if (!object.is_object()) return;
  if (!object.contains("kind") || !object["kind"].is_string()) object["kind"] = type.kind;
  if (!object.contains("apiVersion") || !object["apiVersion"].is_string()) object["apiVersion"] = type.ApiVersion();
}

struct ParsedUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // with brackets for IPv6
  int port = 0;
  std::string prefix;  // "" or "/something" without a trailing slash
};

Result<ParsedUrl> ParseServerUrl(const std::string& url) {
  ParsedUrl out;
  std::string rest;
  if (url.rfind("http://", 0) == 0) {
    out.scheme = "http";
    rest = url.substr(7);
    out.port = 80;
  } else if (url.rfind("https://", 0) == 0) {
    out.scheme = "https";
    rest = url.substr(8);
    out.port = 443;
  } else {
    return Status::BadRequest("server URL must start with http:// or https://: \"" + url + "\"");
  }
  const std::size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) out.prefix = rest.substr(slash);
  while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
  std::string port_text;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string::npos) return Status::BadRequest("bad IPv6 host in server URL \"" + url + "\"");
    out.host = authority.substr(0, close + 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return Status::BadRequest("bad server URL \"" + url + "\"");
      port_text = authority.substr(close + 2);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty() || out.host.find('@') != std::string::npos) {
    return Status::BadRequest("server URL has no usable host: \"" + url + "\"");
  }
  if (!port_text.empty() || authority.back() == ':') {
    if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos) {
      return Status::BadRequest("bad port in server URL \"" + url + "\"");
    }
    out.port = std::stoi(port_text);
    if (out.port < 1 || out.port > 65535) return Status::BadRequest("bad port in server URL \"" + url + "\"");
  }
  return out;
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// Splits a byte stream into complete top-level JSON values (objects or arrays), skipping the
// whitespace between them, so events may come one per line, concatenated or split anywhere.
class JsonStreamSplitter {
 public:
  // Appends complete values to `out`. False when the stream is not JSON values (or one is absurdly
  // large); the stream is then broken for good.
  bool Feed(const char* data, std::size_t n, std::vector<std::string>* out) {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = data[i];
      if (depth_ == 0) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c != '{' && c != '[') return false;
      }
      current_.push_back(c);
      if (current_.size() > kMaxEventBytes) return false;
      if (in_string_) {
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
      } else if (c == '}' || c == ']') {
        if (--depth_ == 0) {
          out->push_back(std::move(current_));
          current_.clear();
        }
      }
    }
    return true;
  }

 private:
  std::string current_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

// The state a watch stream shares with its reader thread.
struct WatchState {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<WatchEvent> queue;
  std::function<void()> notifier;
  bool head = false;         // the response head arrived
  int http_status = 0;
  std::string error_body;    // body of a non-200 response
  bool done = false;         // the reader thread has finished its request
  bool ended = false;        // no more events will be queued
  bool stopped = false;      // the reader asked to stop
  Status end_status;
  std::unique_ptr<httplib::Client> http;
};

class HttpWatchStream : public WatchStream {
 public:
  HttpWatchStream(std::shared_ptr<WatchState> state, std::thread reader)
      : state_(std::move(state)), reader_(std::move(reader)) {}
  ~HttpWatchStream() override { Stop(); }
  HttpWatchStream(const HttpWatchStream&) = delete;
  HttpWatchStream& operator=(const HttpWatchStream&) = delete;

  bool Poll(std::vector<WatchEvent>* out) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    for (WatchEvent& e : state_->queue) out->push_back(std::move(e));
    state_->queue.clear();
    return !state_->ended;
  }
  void Wait(Micros timeout) override {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->cv.wait_for(lock, std::chrono::microseconds(timeout),
                        [&] { return !state_->queue.empty() || state_->ended; });
  }
  void SetNotifier(std::function<void()> notify) override {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->notifier = std::move(notify);
    const bool pending = (!state_->queue.empty() || state_->ended) && state_->notifier;
    auto copy = state_->notifier;
    lock.unlock();
    if (pending) copy();
  }
  void Stop() override {
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->stopped = true;
      if (!state_->ended) {
        state_->ended = true;
        state_->end_status = Status::Ok();
      }
      state_->notifier = nullptr;
    }
    // Shuts the socket down under the reader's feet: its blocked read returns at once.
    state_->http->stop();
    if (reader_.joinable()) reader_.join();
  }
  bool Ended() const override {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->ended;
  }
  Status status() const override {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->end_status;
  }

 private:
  std::shared_ptr<WatchState> state_;
  std::thread reader_;
};

// Decodes one watch event; an undecodable one is reported as an ERROR with an InternalError.
WatchEvent DecodeEvent(const std::string& text, const ResourceType& type) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto broken = [&](const std::string& why) {
    return WatchEvent{WatchEventType::kError,
                      ShareObject(Status::Internal("undecodable watch event (" + why + "): " +
                                                                    Shorten(text.substr(0, 200)))
                                                       .ToJson())};
  };
  if (!parsed.is_object()) return broken("not a JSON object");
  auto type_it = parsed.find("type");
  auto object_it = parsed.find("object");
  if (type_it == parsed.end() || !type_it->is_string()) return broken("no type");
  if (object_it == parsed.end() || !object_it->is_object()) return broken("no object");
  const std::string& name = type_it->get_ref<const std::string&>();
  WatchEventType event_type;
  if (name == "ADDED") {
    event_type = WatchEventType::kAdded;
  } else if (name == "MODIFIED") {
    event_type = WatchEventType::kModified;
  } else if (name == "DELETED") {
    event_type = WatchEventType::kDeleted;
  } else if (name == "BOOKMARK") {
    event_type = WatchEventType::kBookmark;
  } else if (name == "ERROR") {
    event_type = WatchEventType::kError;
  } else {
    return broken("unknown type " + name);
  }
  json object = std::move(*object_it);
  if (event_type == WatchEventType::kError) {
    // Normalise to the Status the store would have sent, so readers see the same codes.
    object = Status::FromJson(object).ToJson();
  } else if (event_type != WatchEventType::kBookmark) {
    FillTypeMeta(object, type);
  }
  return WatchEvent{event_type, ShareObject(std::move(object))};
}


// Decodes the stream's bytes into events and queues them; false once the stream must end (an
// ERROR event, bytes that are not JSON events, the reader stopped).
bool DeliverWatchBytes(WatchState& state, JsonStreamSplitter& splitter, const ResourceType& type, const char* data,
                       std::size_t n) {
  std::vector<std::string> values;
  const bool well_formed = splitter.Feed(data, n, &values);
  std::vector<WatchEvent> events;
  for (const std::string& text : values) events.push_back(DecodeEvent(text, type));
  std::function<void()> notify;
  bool keep_going = well_formed;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    if (state.stopped) return false;
    for (WatchEvent& event : events) {
      const bool error = event.type == WatchEventType::kError;
      if (error) state.end_status = Status::FromJson(*event.object);
      state.queue.push_back(std::move(event));
      if (error) {
        state.ended = true;
        keep_going = false;
        break;
      }
    }
    if (!well_formed && !state.ended) {
      state.ended = true;
      state.end_status = Status::Internal("the watch stream is not a sequence of JSON events");
    }
    if (!events.empty() || state.ended) notify = state.notifier;
  }
  if (!events.empty() || !keep_going) state.cv.notify_all();
  if (notify) notify();
  return keep_going;
}

// Why a watch stream ended, once its request is over (under the state's lock).
Status WatchEndStatus(const WatchState& state, const httplib::Result& res, const std::string& path, const ResourceType& type) {
  if (state.stopped) return Status::Ok();
  if (!state.head) {
    return StatusWith(503, "ServiceUnavailable", "cannot reach the API server: watch " + path + ": " + httplib::to_string(res.error()));
  }
  if (state.http_status != 200) return StatusOfResponse(state.http_status, state.error_body, &type, "");
  return Status::Internal("watch stream closed: " + std::string(res ? "by the server" : httplib::to_string(res.error())));
}

// The reader thread of a watch: one GET whose body is decoded as it arrives.
void ReadWatch(WatchState& state, const std::string& path, const httplib::Headers& headers, const ResourceType& type) {
  JsonStreamSplitter splitter;
  httplib::Result res = state.http->Get(
      path, headers,
      [&](const httplib::Response& response) {
        std::lock_guard<std::mutex> lock(state.mu);
        state.head = true;
        state.http_status = response.status;
        state.cv.notify_all();
        return !state.stopped;
      },
      [&](const char* data, std::size_t n) {
        {
          std::lock_guard<std::mutex> lock(state.mu);
          if (state.stopped) return false;
          if (state.http_status != 200) {
            if (state.error_body.size() < kMaxErrorBody) state.error_body.append(data, n);
            return true;
          }
        }
        return DeliverWatchBytes(state, splitter, type, data, n);
      });
  std::function<void()> notify;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    state.done = true;
    if (!state.ended) {
      state.ended = true;
      state.end_status = WatchEndStatus(state, res, path, type);
      notify = state.notifier;
    }
  }
  state.cv.notify_all();
  if (notify) notify();
}

// Waits for the watch's response head: a refused watch is Watch()'s own error, as with the store.
Result<WatchPtr> AwaitWatchHead(const std::shared_ptr<WatchState>& state, std::thread reader, const std::string& path,
                                Micros timeout) {
  std::unique_lock<std::mutex> lock(state->mu);
  const bool settled = state->cv.wait_for(lock, std::chrono::microseconds(timeout), [&] {
    return state->done || (state->head && state->http_status == 200);
  });
  if (settled && state->head && state->http_status == 200) {
    lock.unlock();
    return WatchPtr(std::make_shared<HttpWatchStream>(state, std::move(reader)));
  }
  if (settled) {
    Status failure = state->end_status;
    lock.unlock();
    reader.join();
    return failure;
  }
  // No head in time: abandon the request. The reader owns its share of the state and finishes on
  // its own once the connection fails or its read times out.
  state->stopped = true;
  lock.unlock();
  state->http->stop();
  reader.detach();
  return Status::Timeout("the API server did not answer the watch of " + path + " in time");
}

}  // namespace

bool HttpsSupported() {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  return true;
#else
  return false;
#endif
}

Result<HttpClientOptions> InClusterOptions(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    return Status::BadRequest("not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset");
  }
  std::string dir = root;
  if (dir.empty() || dir.back() != '/') dir += '/';
  dir += kServiceAccountDir;
  auto token = ReadFile(dir + "token");
  if (!token || Trimmed(*token).empty()) {
    return Status::BadRequest("not running in a cluster: no service-account token at " + dir + "token");
  }
  HttpClientOptions options;
  std::string host_text = host;
  if (host_text.find(':') != std::string::npos) host_text = "[" + host_text + "]";  // IPv6
  options.server = "https://" + host_text + ":" + port;
  options.bearer_token = Trimmed(*token);
  if (ReadFile(dir + "ca.crt")) options.ca_cert_file = dir + "ca.crt";
  options.bearer_token_file = dir + "token";
  return options;
}

struct HttpClient::Impl {
  HttpClientOptions options;
  ParsedUrl url;
  mutable std::mutex token_mu;
  std::string token;
  Micros token_read_at = 0;

  std::string Token() {
    std::lock_guard<std::mutex> lock(token_mu);
    if (!options.bearer_token_file.empty() && SteadyNow() - token_read_at > kTokenReloadInterval) {
      if (auto text = ReadFile(options.bearer_token_file); text && !Trimmed(*text).empty()) token = Trimmed(*text);
      token_read_at = SteadyNow();
    }
    return token;
  }

  // A client of its own for one connection. Ordinary requests keep theirs open (keep_alive) and
  // return it to the idle pool; a watch stream holds its connection alone and closes it.
  std::unique_ptr<httplib::Client> NewHttp(Micros read_timeout, bool keep_alive = false) {
    auto http = std::make_unique<httplib::Client>(url.scheme + "://" + url.host + ":" + std::to_string(url.port));
    http->set_url_encode(false);  // paths and queries are escaped here
    http->set_keep_alive(keep_alive);
    http->set_compress(false);
    http->set_decompress(true);
    http->set_follow_location(false);
    http->set_connection_timeout(std::chrono::microseconds(options.connect_timeout));
    http->set_read_timeout(std::chrono::microseconds(read_timeout));
    http->set_write_timeout(std::chrono::microseconds(options.request_timeout));
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    if (url.scheme == "https") {
      http->enable_server_certificate_verification(!options.insecure_skip_tls_verify);
      if (!options.ca_cert_pem.empty()) {
        http->set_ca_cert_store(CertStoreFromPem(options.ca_cert_pem));  // the client owns it
      } else if (!options.ca_cert_file.empty()) {
        http->set_ca_cert_path(options.ca_cert_file);
      }
    }
#endif
    return http;
  }

  // Idle keep-alive connections for ordinary requests, so that a request does not pay for a TCP
  // connect, a TLS handshake and a certificate store of its own (against kube-apiserver over TLS
  // that was most of the operator's CPU). A request takes one (or opens one), and gives it back
  // when it got an answer; one that broke is dropped. At most kMaxIdle stay open.
  static constexpr std::size_t kMaxIdle = 4;
  std::mutex idle_mu;
  std::vector<std::unique_ptr<httplib::Client>> idle;

  // A pooled connection, and whether it was used before (a reused one may have been closed by the
  // server while idle).
  std::pair<std::unique_ptr<httplib::Client>, bool> TakeConnection() {
    {
      std::lock_guard<std::mutex> lock(idle_mu);
      if (!idle.empty()) {
        std::unique_ptr<httplib::Client> http = std::move(idle.back());
        idle.pop_back();
        return {std::move(http), true};
      }
    }
    return {NewHttp(options.request_timeout, /*keep_alive=*/true), false};
  }
  void GiveBack(std::unique_ptr<httplib::Client> http) {
    std::lock_guard<std::mutex> lock(idle_mu);
    if (idle.size() < kMaxIdle) idle.push_back(std::move(http));
  }

  static httplib::Result SendOn(httplib::Client& http, const std::string& method, const std::string& path,
                                const httplib::Headers& headers, const std::string& body,
                                const std::string& content_type) {
    if (method == "GET") return http.Get(path, headers);
    if (method == "POST") return http.Post(path, headers, body, content_type);
    if (method == "PUT") return http.Put(path, headers, body, content_type);
    if (method == "PATCH") return http.Patch(path, headers, body, content_type);
    return http.Delete(path, headers, body, content_type);
  }

  // One request on a pooled connection. A GET that fails on a reused connection without an answer
  // is sent once more on a new one (the server may have closed the idle connection as the request
  // left; reading twice is harmless). A write is not: it may have been applied, and the caller
  // hears so (Timeout), as for any broken request.
  httplib::Result Exchange(const std::string& method, const std::string& path, const std::string& body,
                           const std::string& content_type) {
    const httplib::Headers headers = Headers();
    auto [http, reused] = TakeConnection();
    httplib::Result res = SendOn(*http, method, path, headers, body, content_type);
    if (!res && reused && method == "GET") {
      http = NewHttp(options.request_timeout, /*keep_alive=*/true);
      res = SendOn(*http, method, path, headers, body, content_type);
    }
    if (res) GiveBack(std::move(http));
    return res;
  }

  httplib::Headers Headers() {
    httplib::Headers headers = {{"Accept", "application/json"}, {"User-Agent", options.user_agent}};
    if (std::string token = Token(); !token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return headers;
  }

  // The collection path of `type` in `ns` ("" = across namespaces, or cluster-scoped).
  std::string CollectionPath(const ResourceType& type, const std::string& ns) const {
    std::string path = url.prefix + (type.group.empty() ? "/api/" + type.version
                                                        : "/apis/" + type.group + "/" + type.version);
    if (type.namespaced && !ns.empty()) path += "/namespaces/" + Escape(ns);
    return path + "/" + type.plural;
  }
  std::string ObjectPath(const ResourceType& type, const std::string& ns, const std::string& name,
                         const std::string& subresource = "") const {
    std::string path = CollectionPath(type, type.namespaced ? (ns.empty() ? "default" : ns) : "") + "/" + Escape(name);
    if (!subresource.empty()) path += "/" + subresource;
    return path;
  }

  Result<const ResourceType*> Resolve(const std::string& resource) const {
    const ResourceType* type = options.registry.Find(resource);
    if (type == nullptr) return Status::NotFound("resource", resource);
    return type;
  }

  // One request; the decoded JSON body on 2xx, else the Status it stands for.
  Result<json> Send(const std::string& method, const std::string& path_in, const std::string& body,
                    const std::string& content_type, const ResourceType* type, const std::string& name) {
    std::string path = path_in;
    // Every write names its field manager, so that server-side field ownership is the caller's.
    if (!options.field_manager.empty() && (method == "POST" || method == "PUT" || method == "PATCH"))
      path += (path.find('?') == std::string::npos ? "?" : "&") + std::string("fieldManager=") + Escape(options.field_manager);
    httplib::Result res = Exchange(method, path, body, content_type);
    if (!res) {
      const httplib::Error error = res.error();
      const std::string what = method + " " + url.scheme + "://" + url.host + ":" + std::to_string(url.port) + path +
                               ": " + httplib::to_string(error);
      // Nothing reached the server: safe to retry. Otherwise the write may have been applied.
      if (error == httplib::Error::Connection || error == httplib::Error::ConnectionTimeout ||
          error == httplib::Error::SSLConnection || error == httplib::Error::SSLLoadingCerts ||
          error == httplib::Error::SSLServerVerification) {
        return StatusWith(503, "ServiceUnavailable", "cannot reach the API server: " + what);
      }
      return Status::Timeout("the request did not complete; it may or may not have been applied: " + what);
    }
    if (res->status < 200 || res->status >= 300) return StatusOfResponse(res->status, res->body, type, name);
    json parsed = json::parse(res->body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return Status::Internal("the API server answered " + method + " " + path + " with a body that is not JSON: " +
                              Shorten(res->body.substr(0, 200)));
    }
    return parsed;
  }

  Result<ObjectPtr> SendForObject(const std::string& method, const std::string& path, const std::string& body,
                                  const std::string& content_type, const ResourceType& type, const std::string& name) {
    Result<json> res = Send(method, path, body, content_type, &type, name);
    if (!res.ok()) return res.status();
    json object = std::move(res).value();
    if (!object.is_object()) return Status::Internal("the API server answered " + method + " " + path + " with a non-object");
    if (JsonString(object, {"kind"}) != "Status") FillTypeMeta(object, type);
    return ShareObject(std::move(object));
  }

  static std::string NamespaceOfBody(const json& object) {
    const std::string& ns = NamespaceOf(object);
    return ns.empty() ? "default" : ns;
  }

  // PUT of a whole object, or of its `subresource` ("status"), as Update and UpdateStatus send it.
  Result<ObjectPtr> Put(const std::string& resource, json object, const std::string& subresource) {
    auto type = Resolve(resource);
    if (!type.ok()) return type.status();
    if (!object.is_object()) return Status::BadRequest("the object to update is not a JSON object");
    FillTypeMeta(object, **type);
    const std::string name = NameOf(object);
    if (name.empty()) return Status::BadRequest("the object to update has no metadata.name");
    const std::string path = ObjectPath(**type, NamespaceOfBody(object), name, subresource);
    return SendForObject("PUT", path, object.dump(), "application/json", **type, name);
  }
};

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::~HttpClient() = default;

Result<std::unique_ptr<HttpClient>> HttpClient::Connect(HttpClientOptions options) {
  Result<ParsedUrl> url = ParseServerUrl(options.server);
  if (!url.ok()) return url.status();
  if (url->scheme == "https" && !HttpsSupported()) {
    return Status::BadRequest("this build of cpp-httplib has no OpenSSL: https:// servers are not supported; use "
                              "http:// (for example through `kubectl proxy`)");
  }
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  if (!options.ca_cert_pem.empty()) {
    X509_STORE* store = CertStoreFromPem(options.ca_cert_pem);
    if (store == nullptr) return Status::BadRequest("the certificate authority data holds no PEM certificate");
    X509_STORE_free(store);
  }
#endif
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->url = *url;
  impl->token = impl->options.bearer_token;
  impl->token_read_at = SteadyNow();
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

const HttpClientOptions& HttpClient::options() const { return impl_->options; }

Result<ObjectPtr> HttpClient::Create(const std::string& resource, kube::Json object, const std::string& ns) {
  if (!object.is_object()) return Status::BadRequest("the object to create is not a JSON object");
  if (resource == "pods/binding") {
    // POST .../pods/NAME/binding, as kube-scheduler binds.
    const ResourceType* pods = impl_->options.registry.Find("pods");
    if (pods == nullptr) return Status::NotFound("resource", "pods");
    const std::string target_ns = !ns.empty() ? ns : Impl::NamespaceOfBody(object);
    object["apiVersion"] = "v1";
    object["kind"] = "Binding";
    return impl_->SendForObject("POST", impl_->ObjectPath(*pods, target_ns, NameOf(object), "binding"), object.dump(),
                                "application/json", *pods, NameOf(object));
  }
  auto type = impl_->Resolve(resource);
  if (!type.ok()) return type.status();
  const ResourceType& t = **type;
  std::string target_ns;
  if (t.namespaced) {
    target_ns = !ns.empty() ? ns : Impl::NamespaceOfBody(object);
    if (!object.contains("metadata") || !object["metadata"].is_object()) object["metadata"] = json::object();
    object["metadata"]["namespace"] = target_ns;
  }
  FillTypeMeta(object, t);
  const std::string name = NameOf(object);
  return impl_->SendForObject("POST", impl_->CollectionPath(t, target_ns), object.dump(), "application/json", t,
                              name);
}

Result<ObjectPtr> HttpClient::Get(const std::string& resource, const std::string& ns, const std::string& name) {
  auto type = impl_->Resolve(resource);
  if (!type.ok()) return type.status();
  if (name.empty()) return Status::NotFound((*type)->QualifiedName(), name);
  return impl_->SendForObject("GET", impl_->ObjectPath(**type, ns, name), "", "", **type, name);
}

Result<ListResult> HttpClient::List(const std::string& resource, const ListOptions& options) {
  auto type = impl_->Resolve(resource);
  if (!type.ok()) return type.status();
  const ResourceType& t = **type;
  const std::string path = impl_->CollectionPath(t, options.namespace_) +
                           Query({{"labelSelector", options.label_selector},
                                  {"fieldSelector", options.field_selector},
                                  {"resourceVersion", options.resource_version},
                                  {"resourceVersionMatch", options.resource_version_match},
                                  {"limit", options.limit > 0 ? std::to_string(options.limit) : ""},
                                  {"continue", options.continue_}});
  Result<json> res = impl_->Send("GET", path, "", "", &t, "");
  if (!res.ok()) return res.status();
  json& list = res.value();
  if (!list.is_object() || !list.contains("items") || !(list["items"].is_array() || list["items"].is_null())) {
    return Status::Internal("the API server answered GET " + path + " with something that is not a list");
  }
  ListResult out;
  if (list["items"].is_array()) {
    out.items.reserve(list["items"].size());
    for (json& item : list["items"]) {
      if (!item.is_object()) return Status::Internal("a list item from GET " + path + " is not an object");
      FillTypeMeta(item, t);
      out.items.push_back(ShareObject(std::move(item)));
    }
  }
  if (auto meta = list.find("metadata"); meta != list.end() && meta->is_object()) {
    out.resource_version = meta->value("resourceVersion", "");
    out.continue_ = meta->value("continue", "");
    if (auto count = meta->find("remainingItemCount"); count != meta->end() && count->is_number_integer())
      out.remaining_item_count = count->get<std::int64_t>();
  }
  return out;
}

Result<ObjectPtr> HttpClient::Update(const std::string& resource, kube::Json object) {
  return impl_->Put(resource, std::move(object), "");
}

Result<ObjectPtr> HttpClient::UpdateStatus(const std::string& resource, kube::Json object) {
  return impl_->Put(resource, std::move(object), "status");
}

Result<ObjectPtr> HttpClient::Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                    const kube::Json& patch, PatchType type, const std::string& subresource) {
  auto t = impl_->Resolve(resource);
  if (!t.ok()) return t.status();
  if (!subresource.empty() && subresource != "status") {
    return Status::NotFound((*t)->QualifiedName() + "/" + subresource, name);
  }
  if (name.empty()) return Status::NotFound((*t)->QualifiedName(), name);
  const char* content_type = "application/merge-patch+json";
  switch (type) {
    case PatchType::kMerge: break;
  }
  return impl_->SendForObject("PATCH", impl_->ObjectPath(**t, ns, name, subresource), patch.dump(), content_type, **t,
                              name);
}

Result<ObjectPtr> HttpClient::Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                     const DeleteOptions& options) {
  auto type = impl_->Resolve(resource);
  if (!type.ok()) return type.status();
  if (name.empty()) return Status::NotFound((*type)->QualifiedName(), name);
  json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (options.propagation) {
    switch (*options.propagation) {
      case PropagationPolicy::kBackground: body["propagationPolicy"] = "Background"; break;
      case PropagationPolicy::kForeground: body["propagationPolicy"] = "Foreground"; break;
      case PropagationPolicy::kOrphan: body["propagationPolicy"] = "Orphan"; break;
    }
  }
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (options.precondition_uid) body["preconditions"]["uid"] = *options.precondition_uid;
  if (options.precondition_resource_version) {
    body["preconditions"]["resourceVersion"] = *options.precondition_resource_version;
  }
  Result<ObjectPtr> res =
      impl_->SendForObject("DELETE", impl_->ObjectPath(**type, ns, name), body.dump(), "application/json", **type, name);
  if (!res.ok()) return res;
  // Some servers answer a finished delete with a Success Status instead of the object: stand in
  // for the object with what is known of it.
  if ((*res)->value("kind", "") == "Status") {
    json deleted = {{"kind", (*type)->kind},
                 {"apiVersion", (*type)->ApiVersion()},
                 {"metadata", {{"name", name}}}};
    if ((*type)->namespaced) deleted["metadata"]["namespace"] = ns.empty() ? "default" : ns;
    if (auto details = (*res)->find("details"); details != (*res)->end() && details->is_object()) {
      if (auto uid = details->find("uid"); uid != details->end() && uid->is_string()) deleted["metadata"]["uid"] = *uid;
    }
    return ShareObject(std::move(deleted));
  }
  return res;
}

Result<WatchPtr> HttpClient::Watch(const std::string& resource, const WatchOptions& options) {
  auto type = impl_->Resolve(resource);
  if (!type.ok()) return type.status();
  const ResourceType type_copy = **type;
  std::string initial;
  if (options.send_initial_events) initial = *options.send_initial_events ? "true" : "false";
  const std::string path = impl_->CollectionPath(type_copy, options.namespace_) +
                           Query({{"watch", "true"},
                                  {"resourceVersion", options.resource_version},
                                  {"resourceVersionMatch", options.resource_version_match},
                                  {"labelSelector", options.label_selector},
                                  {"fieldSelector", options.field_selector},
                                  {"allowWatchBookmarks", options.allow_bookmarks ? "true" : ""},
                                  {"sendInitialEvents", initial}});
  auto state = std::make_shared<WatchState>();
  state->http = impl_->NewHttp(impl_->options.watch_idle_timeout);
  std::thread reader([state, path, headers = impl_->Headers(), type_copy] { ReadWatch(*state, path, headers, type_copy); });
  return AwaitWatchHead(state, std::move(reader), path, impl_->options.watch_open_timeout);
}

}  // namespace kube
