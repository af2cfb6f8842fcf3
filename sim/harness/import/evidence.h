// Evidence from a cluster, as `dglsim import` reads it: kubectl's List output and audit logs.
//
// Dumps: YAML or JSON files (JSON is YAML), each holding one or more documents, every document a
// List: `kind: List` (what `kubectl get A,B,C -o yaml|json` writes) or a typed list such as
// PodList or NodeList (what the API itself returns; its items may then omit apiVersion and kind,
// which come from the list's kind). Files may repeat objects (two dumps of the same cluster): the
// last copy read, by resourceVersion, wins.
//
// Audit logs: audit.k8s.io/v1 Event objects, one JSON object per line (kube-apiserver's
// --audit-log-path format, and what `dglsim run|serve --audit-log` write). Only stage
// ResponseComplete events are read; the other stages of the same request say nothing more.
//
// Bad evidence is refused, each problem located as `FILE:LINE:COL: field.path: message`: a file
// that does not parse (a truncated one included), a document that is not a List, a List whose
// `metadata.continue` says it is one page of more (truncated), an item without apiVersion, kind or
// metadata.name, a kind this reader does not know, an audit line that is not one JSON object or not
// an audit Event. Known kinds the import does not use (ConfigMaps, Services, ...) are not problems;
// they are listed as unused evidence with the reason. Secrets are never read beyond their kind
// and name.
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"

#include <string>
#include <vector>

namespace harness::evidence {

using kube::Micros;

// One object of a dump.
struct Item {
  std::string where;  // "FILE:LINE:COL" of the item
  std::string kind;   // "Pod", "Node", "DGLJob", "Event", "Lease", ... (from the item, else its list)
  kube::Json object;
};

// One audit Event of stage ResponseComplete.
struct AuditRecord {
  std::string where;  // "FILE:LINE"
  Micros time = 0;    // requestReceivedTimestamp (else stageTimestamp)
  kube::Json event;
};

struct Evidence {
  std::vector<Item> items;          // every used kind, deduplicated, in reading order
  std::vector<AuditRecord> audit;   // in time order (ties: reading order)
  std::vector<std::string> unused;  // "WHERE: what: why", evidence read but not used
  std::vector<std::string> problems;  // located; any one makes the evidence bad
  bool ok() const { return problems.empty(); }
};

// The kinds an import uses (the others known are listed as unused).
bool IsUsedKind(const std::string& kind);

// Reads every dump and audit log. Never throws.
Evidence LoadEvidence(const std::vector<std::string>& dumps, const std::vector<std::string>& audit_logs);

// Parses one audit log's text (`file` names it in messages) into `out`.
void ReadAuditLog(const std::string& text, const std::string& file, Evidence& out);

}  // namespace harness::evidence
