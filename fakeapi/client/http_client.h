// The HttpClient implements Client over HTTP with the Kubernetes REST protocol, against any API
// server: a real kube-apiserver, `kubectl proxy`, or the project's own HttpServer (`dglsim serve`).
// Paths come from the Registry (group, version, plural, scope): /api/v1/namespaces/NS/pods,
// /apis/kubeflow.org/v1alpha1/namespaces/NS/dgljobs/NAME/status, ... Selectors, resourceVersion
// (and its match), limit, continue, allowWatchBookmarks and sendInitialEvents travel as query
// parameters, the field manager as fieldManager on every write, merge patches as
// application/merge-patch+json, delete options as a DeleteOptions body.
//
// Errors: a metav1.Status body becomes the same kube::Status the in-process Store would have
// returned (code, reason, message, causes). A response without a Status body is mapped by its HTTP
// code (404 NotFound, 409 Conflict, 410 Expired, 422 Invalid, 5xx InternalError, ...). A server
// that cannot be reached is 503 ServiceUnavailable; a request that broke after it was sent is
// 504 Timeout (it may or may not have been applied), as FaultyClient injects them.
//
// Watches: Watch() sends GET ...?watch=true and waits for the response head, so a refused watch
// (410 Expired for a resourceVersion older than the server's history, 404, 403, ...) is returned
// by Watch() itself, as the Store does; kube-apiserver (and the project's HttpServer) answer a watch
// from a compacted resourceVersion with a 200 stream whose one event is an ERROR carrying 410,
// which ends the stream with that Status. A 200 stream is read on a background thread of its own that
// decodes one JSON event after another (newlines optional, blank keep-alive lines skipped) and
// queues them for Poll()/Wait(). An in-stream ERROR event is queued and ends the stream with its
// Status (so 410 Expired there also makes an Informer relist); a stream the server closes, or a
// broken connection, ends with 500 InternalError, after which an Informer re-watches from its last
// resourceVersion. List items and watch objects missing kind/apiVersion (kube-apiserver omits them
// on list items) get them from the Registry.
//
// HTTPS: the Debian cpp-httplib this project links is built with OpenSSL, so https:// servers work,
// with an optional CA bundle (a file, or PEM text in memory as a kubeconfig carries it) or with
// verification turned off, and a bearer token on every request.
// InClusterOptions() reads the service-account token and CA a pod gets and the
// KUBERNETES_SERVICE_HOST/PORT variables.
//
// Connections: ordinary requests reuse keep-alive connections (HTTP/1.1; TLS sessions included),
// kept in a pool of at most four idle ones, so a request does not pay for a TCP connect and a TLS
// handshake; a connection that broke is dropped. A GET that fails on a reused connection without
// an answer is retried once on a new one (the server may have closed it while idle); a write that
// fails so is reported as 504 Timeout, as above. Each watch holds a connection of its own.
//
// Thread safety: the verbs (Create ... Watch) may be called from several threads at once; each
// call takes a connection no other call is using. In the operator one thread runs every verb, the informers and
// the controller; the watch reader threads only decode and queue events and call the notifier. A
// WatchStream is safe to Poll/Stop from one thread while its reader thread fills it; Stop() and
// the stream's destructor close the connection and join the reader.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/resource.h"
#include "fakeapi/client/status.h"

#include <memory>
#include <string>

namespace kube {

struct HttpClientOptions {
  // "http://host:port" or "https://host:port", optionally with a path prefix ("http://h:8001/k8s").
  std::string server;
  // Sent as "Authorization: Bearer <token>" when not empty.
  std::string bearer_token;
  // When set, the token is re-read from this file every minute (service-account tokens rotate).
  std::string bearer_token_file;
  // PEM bundle used to verify an https server ("" = the system's default trust store).
  std::string ca_cert_file;
  // The same, held in memory (a kubeconfig's certificate-authority-data); when set it is used
  // instead of ca_cert_file. Connect() refuses text holding no PEM certificate (BadRequest).
  std::string ca_cert_pem;
  // https only: skip certificate and host name verification.
  bool insecure_skip_tls_verify = false;
  // Timeouts of ordinary requests (wall time).
  Micros connect_timeout = 5 * kSecond;
  Micros request_timeout = 30 * kSecond;
  // A watch stream that stays silent this long is closed and reported as ended, so a half-open
  // connection is noticed; the informer then re-watches. Servers that send keep-alive newlines or
  // bookmarks keep a stream open indefinitely.
  Micros watch_idle_timeout = 5 * 60 * kSecond;
  // How long Watch() waits for the response head before giving up with 504 Timeout.
  Micros watch_open_timeout = 30 * kSecond;
  std::string user_agent = "dgl-operator/0.1";
  // Sent as fieldManager on every create, update and patch, so that the server attributes the
  // fields this client writes to it (managedFields). "" leaves it to the server (which derives one
  // from the User-Agent).
  std::string field_manager;
  // The kinds this client can address. Must hold every resource the caller names.
  Registry registry = Registry::WithBuiltins();
};

// The options of a process running in a Kubernetes pod: https://$KUBERNETES_SERVICE_HOST:
// $KUBERNETES_SERVICE_PORT, the token and CA of /var/run/secrets/kubernetes.io/serviceaccount/.
// `root` replaces "/" for tests. BadRequest when the variables or the token are missing.
Result<HttpClientOptions> InClusterOptions(const std::string& root = "/");

// True when this build can talk https (cpp-httplib compiled with OpenSSL).
bool HttpsSupported();

class HttpClient : public Client {
 public:
  // BadRequest for a server URL that is not http:// or https://host[:port][/prefix].
  static Result<std::unique_ptr<HttpClient>> Connect(HttpClientOptions options);
  ~HttpClient() override;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Create also takes "pods/binding" with a v1 Binding, POSTed to .../pods/NAME/binding.
  Result<ObjectPtr> Create(const std::string& resource, kube::Json object,
                           const std::string& ns = kNoNamespace()) override;
  Result<ObjectPtr> Get(const std::string& resource, const std::string& ns, const std::string& name) override;
  Result<ListResult> List(const std::string& resource, const ListOptions& options = {}) override;
  Result<ObjectPtr> Update(const std::string& resource, kube::Json object) override;
  Result<ObjectPtr> UpdateStatus(const std::string& resource, kube::Json object) override;
  Result<ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                          const kube::Json& patch, PatchType type = PatchType::kMerge,
                          const std::string& subresource = "") override;
  Result<ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                           const DeleteOptions& options = {}) override;
  Result<WatchPtr> Watch(const std::string& resource, const WatchOptions& options = {}) override;

  const HttpClientOptions& options() const;

 private:
  struct Impl;
  explicit HttpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kube
