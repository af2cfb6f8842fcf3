// Service-account tokens as kube-apiserver's TokenRequest subresource issues them
// (POST /api/v1/namespaces/NS/serviceaccounts/NAME/token, authentication.k8s.io/v1 TokenRequest;
// `kubectl create token NAME`), and their authentication.
//
// - A token is a JWT (header.claims.signature, base64url without padding) with kube-apiserver's
//   claims: iss https://kubernetes.default.svc.cluster.local, sub system:serviceaccount:NS:NAME,
//   aud (the request's audiences, else the issuer), iat, nbf, exp (the API clock's seconds), jti,
//   and kubernetes.io {namespace, serviceaccount {name, uid}}. It is signed with HMAC-SHA256 under a
//   key derived from a seed (kube-apiserver signs with RS256 under its key file): no wall clock and
//   no system randomness, so a simulation with the same seed and epoch issues the same tokens.
// - Authenticate: a token this issuer gave out, before its exp (by the API clock), of a service
//   account that still exists with the uid it was issued for, is that service account:
//   system:serviceaccount:NS:NAME in system:serviceaccounts, system:serviceaccounts:NS and
//   system:authenticated (rbac::ServiceAccountUser), with the account's uid. Anything else is not.
//   The issuer remembers what it issued (no signature check on the way in: only tokens it issued
//   can match).
// - Requests: expirationSeconds defaults to 3600 and must lie in [600, 2^32] (kube-apiserver's
//   validation messages); audiences default to the issuer. The answer's metadata is the service
//   account's (name, namespace, uid, creationTimestamp), as kube-apiserver's.
//
// Thread-safe: Issue runs inside the HTTP server's executor, Find on a request's thread.
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fakeapi {

inline constexpr const char* kServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local";

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(std::uint64_t seed);

  struct Holder {
    std::string ns, name, uid;
    kube::Micros expires = 0;
  };
  // A token for service account ns/name (of `uid`), issued at `now` (the API clock) for `seconds`.
  std::string Issue(const Holder& account, const std::vector<std::string>& audiences, std::int64_t seconds,
                    kube::Micros now);
  // Whose token this is (its expiry included), if this issuer issued it.
  std::optional<Holder> Find(std::string_view token) const;
  std::size_t issued() const;

 private:
  std::string key_;  // 32 bytes
  mutable std::mutex mu_;
  std::uint64_t count_ = 0;
  std::map<std::string, Holder, std::less<>> issued_;
};

// A TokenRequest's spec checked and defaulted (expirationSeconds, audiences): OK or kube-apiserver's
// 422 for the field.
kube::Status CheckTokenRequest(kube::Json& request, const std::string& name);
// kube-apiserver's 422 for a TokenRequest: `TokenRequest.authentication.k8s.io "NAME" is invalid: FIELD: MESSAGE`.
kube::Status InvalidTokenRequest(const std::string& name, const std::string& field, const std::string& message);

}  // namespace fakeapi
