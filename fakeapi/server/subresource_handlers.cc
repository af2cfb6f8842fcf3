// The create-only endpoints: pods/binding and bindings (what kube-scheduler POSTs), pods/eviction
// (what `kubectl drain` and the descheduler POST; there are no PodDisruptionBudgets to consult, so
// every eviction is allowed, as on a cluster without budgets), and the authorization reviews
// (`kubectl auth can-i`), which allow everything: the fake has no authorizer.
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/wire.h"

namespace fakeapi {

using json = kube::Json;

namespace {

json Success(int code) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"}, {"code", code}};
}

}  // namespace

void HttpServer::Impl::Bind(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("a Binding must be a JSON object"));
  json binding = *body;
  json& meta = binding["metadata"];
  if (!meta.is_object()) meta = json::object();
  // pods/NAME/binding names the pod in the URL; the bindings collection in the body.
  if (!t.name.empty()) {
    const std::string named = kube::JsonString(meta, {"name"});
    if (!named.empty() && named != t.name)
      return SendStatus(res, kube::Status::BadRequest("the name of the object (" + named + ") does not match the name on the URL (" +
                                                      t.name + ")"));
    meta["name"] = t.name;
  }
  Run([&] {
    auto bound = store.Create("pods/binding", binding, t.ns);
    if (!bound.ok()) return SendStatus(res, bound.status());
    SendJson(res, 201, Success(201));
  });
}

void HttpServer::Impl::Evict(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("an Eviction must be a JSON object"));
  const std::string named = kube::JsonString(*body, {"metadata", "name"});
  if (!named.empty() && named != t.name)
    return SendStatus(res, kube::Status::BadRequest("name in URL does not match name in Eviction object"));
  kube::DeleteOptions opts;
  if (const json* g = kube::JsonAt(*body, {"deleteOptions", "gracePeriodSeconds"}); g && g->is_number_integer())
    opts.grace_period_seconds = g->get<std::int64_t>();
  if (std::string uid = kube::JsonString(*body, {"deleteOptions", "preconditions", "uid"}); !uid.empty())
    opts.precondition_uid = uid;
  WriteOptions write;
  if (const json* dry = kube::JsonAt(*body, {"deleteOptions", "dryRun"}); dry && dry->is_array() && !dry->empty())
    write.dry_run = true;
  Run([&] {
    auto deleted = store.Delete("pods", t.ns, t.name, opts, write);
    if (!deleted.ok()) return SendStatus(res, deleted.status());
    SendJson(res, 201, Success(201));
  });
}

void HttpServer::Impl::Review(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("a review must be a JSON object"));
  json review = *body;
  review["apiVersion"] = t.resource->ApiVersion();
  review["kind"] = t.resource->kind;
  if (!review["metadata"].is_object()) review["metadata"] = json::object();
  if (options.authorizer) {
    json status;
    Run([&] { status = ReviewStatus(t, review); });
    review["status"] = std::move(status);
  } else if (t.resource->kind == "SelfSubjectReview") {
    // No authentication: every request is anonymous (and authorized, see the access reviews).
    review["status"] = {{"userInfo", {{"username", "system:anonymous"}, {"groups", {"system:unauthenticated"}}}}};
  } else if (t.resource->kind == "SelfSubjectRulesReview") {
    review["status"] = {{"resourceRules", json::array({{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}})},
                        {"nonResourceRules", json::array({{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}})},
                        {"incomplete", false}};
  } else {
    review["status"] = {{"allowed", true}, {"reason", "the fake API server authorizes every request"}};
  }
  SendJson(res, 201, review);
}

}  // namespace fakeapi
