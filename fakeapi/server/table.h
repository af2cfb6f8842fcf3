// Server-side Tables (meta.k8s.io/v1 Table), what `kubectl get` prints: the columns and cells of
// each kind as kubectl's own printers compute them, ages rendered by the server (kubectl prints
// cells verbatim), and rows carrying the object's PartialObjectMetadata (or the whole object with
// includeObject=Object) for the NAMESPACE column, --show-labels and --sort-by.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/json.h"

#include <functional>
#include <string>
#include <vector>

namespace fakeapi {

// One column of a server-side Table (meta.k8s.io/v1 TableColumnDefinition).
struct TableColumn {
  std::string name;
  std::string type = "string";  // "string", "integer", "date", ...: cosmetic for kubectl
  std::string format;           // "name" for the column holding the object's name
  std::string description;     // kube-apiserver's (the OpenAPI field's); Name and Age get theirs
  int priority = 0;             // > 0: shown only with `-o wide`
};

// How one resource renders as Table rows. `cells` returns a JSON array with one cell per column,
// in order; `now` is the API's current time, for ages. It runs inside the server's executor.
struct TableConverter {
  std::vector<TableColumn> columns;
  std::function<kube::Json(const kube::Json& object, kube::Micros now)> cells;
};

// An elapsed time as kubectl prints ages: "45s", "2m30s", "17m", "5h12m", "3d4h", "400d", "2y10d".
std::string HumanAge(kube::Micros elapsed);
// The age of `object` at `now` from its metadata.creationTimestamp; "<unknown>" without one.
std::string AgeOf(const kube::Json& object, kube::Micros now);

// The converters the server uses for built-in kinds (pods, nodes, events, namespaces, services,
// configmaps, leases); kinds without one get Name and Age.
TableConverter DefaultTableConverter(const std::string& plural);

// The Table of `objects` (meta.k8s.io/`version`, "v1" or "v1beta1") at resourceVersion `rv` ("" for
// none). `include` is the includeObject parameter: "Object" (the whole object in each row), "None"
// (`object` null) or anything else (PartialObjectMetadata with managedFields, kubectl's default).
kube::Json BuildTable(const TableConverter& converter, const std::vector<kube::ObjectPtr>& objects,
                          const std::string& rv, const std::string& version, const std::string& include,
                          kube::Micros now);

// The PartialObjectMetadata (meta.k8s.io/v1) of an object: kind, apiVersion and its whole metadata.
kube::Json PartialObjectMetadata(const kube::Json& object);

}  // namespace fakeapi
