// A request's query parameters and Accept header, read and checked the way kube-apiserver reads
// them: list and watch options (selectors, resourceVersion and its match, limit, continue,
// allowWatchBookmarks, sendInitialEvents, timeoutSeconds), write options (dryRun, fieldManager,
// force) and the representation the client accepts (an object, a Table, PartialObjectMetadata,
// JSON or YAML; 406 for protobuf-only clients, since the fake serves no protobuf for objects).
#pragma once

#include "fakeapi/client/client.h"
#include "fakeapi/client/status.h"
#include "fakeapi/server/store.h"

#include <httplib.h>

#include <optional>
#include <string>

namespace fakeapi {

struct Representation {
  enum class Form { kObject, kTable, kPartialMetadata };
  Form form = Form::kObject;
  std::string version;  // of meta.k8s.io for Tables and PartialObjectMetadata: "v1" or "v1beta1"
  bool yaml = false;    // application/yaml (the body is JSON, which YAML readers read)
  const char* content_type() const { return yaml ? "application/yaml; charset=utf-8" : "application/json; charset=utf-8"; }
};

// The first acceptable media range of the Accept header; `list` says whether the request returns a
// list (PartialObjectMetadataList) or one object (PartialObjectMetadata; watches take either).
// 406 NotAcceptable when none is.
kube::Result<Representation> NegotiateRepresentation(const std::string& accept, bool list, bool watch);

kube::Result<kube::ListOptions> ListOptionsOf(const httplib::Request& req, const std::string& ns);
kube::Result<kube::WatchOptions> WatchOptionsOf(const httplib::Request& req, const std::string& ns);

struct WriteParams {
  WriteOptions store;          // dryRun
  std::string field_manager;   // fieldManager, else the User-Agent's product, as kube-apiserver derives it
  bool force = false;          // apply only
};
// `options_kind` names the options in errors ("CreateOptions", "UpdateOptions", "PatchOptions",
// "DeleteOptions"); `apply` says whether the write is a server-side apply (which needs fieldManager
// and is the only one that may say force).
kube::Result<WriteParams> WriteParamsOf(const httplib::Request& req, const char* options_kind, bool apply);

}  // namespace fakeapi
