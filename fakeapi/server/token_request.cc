// The TokenRequest subresource (POST serviceaccounts/NAME/token) and the authentication of the
// tokens it issues, as kube-apiserver's serviceaccount token REST and its service-account token
// authenticator do them. See service_account_tokens.h and http_server.h.
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/service_account_tokens.h"

#include <utility>

namespace fakeapi {

using json = kube::Json;

void HttpServer::Impl::IssueToken(const httplib::Request& req, httplib::Response& res, const Target& t) {
  if (!options.service_account_tokens)
    return SendStatus(res, kube::Status::NotFound("serviceaccounts/token", t.name));
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("a TokenRequest must be a JSON object"));
  json request = *body;  // (no reference into it is held across an insertion: its objects are flat maps)
  // A name or namespace in the body must be the URL's.
  for (const auto& [field, want] : {std::pair<std::string, const std::string*>{"name", &t.name}, {"namespace", &t.ns}}) {
    const std::string given = kube::JsonString(request, {"metadata", field.c_str()});
    if (!given.empty() && given != *want)
      return SendStatus(res, InvalidTokenRequest(t.name, "metadata." + field,
                                                 "Invalid value: \"" + given + "\": must match the service account " + field +
                                                     " if specified"));
  }
  Run([&] {
    auto account = store.Get("serviceaccounts", t.ns, t.name);
    if (!account.ok()) return SendStatus(res, account.status());
    if (kube::Status s = CheckTokenRequest(request, ""); !s.ok()) return SendStatus(res, s);
    const json spec = request["spec"];
    const std::int64_t seconds = spec["expirationSeconds"].get<std::int64_t>();
    const kube::Micros now = Now() / kube::kSecond * kube::kSecond;
    const std::string token = options.service_account_tokens->Issue(
        {t.ns, t.name, kube::UidOf(**account), 0}, spec["audiences"].get<std::vector<std::string>>(), seconds, now);
    json meta = json::object();
    for (const char* field : {"name", "namespace", "uid", "creationTimestamp"})
      if (const json* v = kube::JsonAt(**account, {"metadata", field})) meta[field] = *v;
    SendJson(res, 201,
             {{"kind", "TokenRequest"},
              {"apiVersion", "authentication.k8s.io/v1"},
              {"metadata", std::move(meta)},
              {"spec", spec},
              {"status", {{"token", token}, {"expirationTimestamp", kube::FormatTime(now + seconds * kube::kSecond)}}}});
  });
}

std::optional<rbac::UserInfo> HttpServer::Impl::ServiceAccountBearer(const std::string& authorization, bool* refused) {
  *refused = false;
  static constexpr std::string_view kBearer = "Bearer ";
  if (!options.service_account_tokens || authorization.compare(0, kBearer.size(), kBearer) != 0) return std::nullopt;
  auto holder = options.service_account_tokens->Find(std::string_view(authorization).substr(kBearer.size()));
  if (!holder) return std::nullopt;
  // Issued here: valid until it expires, while its service account is the one it was issued for.
  bool valid = false;
  Run([&] {
    auto account = store.Get("serviceaccounts", holder->ns, holder->name);
    valid = Now() < holder->expires && account.ok() && kube::UidOf(**account) == holder->uid;
  });
  if (!valid) {
    *refused = true;
    return std::nullopt;
  }
  rbac::UserInfo user = rbac::ServiceAccountUser(holder->ns, holder->name);
  user.uid = holder->uid;
  return user;
}

}  // namespace fakeapi
