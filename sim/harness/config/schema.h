// The scenario format's fields, every one, once. The loader accepts exactly these (any other key is
// refused as unknown, with a "did you mean"), and each has a role saying what changing it does:
//
//   kRun      it changes what the simulated cluster does, so the trace hash;
//   kVerdict  an expectation's field: judged against the finished run, it changes the verdict and
//             never the run;
//   kReport   named in the reports only (metadata: name, description, labels, annotations; a node's
//             pricePerHour, which turns the run's span into a cost);
//   kFormat   fixed by the format (apiVersion, kind): any other value is refused.
//
// tests/sim/harness/config/schema_test.cc walks this table and proves each role: a kRun field
// changes the trace hash, a kVerdict field the verdict, a kReport field neither. A field added here
// without such a proof fails that test; a field the loader reads but that is not here is refused.
//
// Paths: dots between mapping keys, "[]" for the items of a sequence, "[Kind]" for the fields of
// one kind of fault or expectation ("faults[NodeDown].node", "expect[phase].job"); "faults[].at" is
// common to every fault. A field that is a mapping of free keys (capacity, labels, sizes) is one
// entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace harness {

enum class FieldRole { kRun, kVerdict, kReport, kFormat };

struct SchemaField {
  std::string_view path;
  FieldRole role;
};

// Every field, in the order the format describes them.
const std::vector<SchemaField>& ScenarioSchema();

// The names of the fields directly under `parent` ("" = the top level, "cluster.timings",
// "faults[]", "faults[NodeDown]"), in schema order.
std::vector<std::string> SchemaChildren(std::string_view parent);

// The kinds a kind-keyed sequence has ("faults" -> NodeDown, NodeUp, ...; "expect" -> phase,
// phases, ...), in schema order.
std::vector<std::string> SchemaKinds(std::string_view sequence);

// Fields the format once had and no longer takes, with the reason the loader gives for each.
struct RetiredField {
  std::string_view path;
  std::string_view reason;
};
const std::vector<RetiredField>& RetiredFields();

}  // namespace harness
