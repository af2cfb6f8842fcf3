// The scenario loader's insides, shared by its files (not an interface: LoadScenario in
// scenario.h is). One Loader reads one scenario file, section by section, each in a file of its own:
//
//   loader.cc             the document, reporting, typed access to fields
//   load_cluster.cc       cluster: node templates and manifests, storage, scheduler, images, timings
//   load_pools.cc         cluster: node pools and the autoscaler
//   load_datasets.cc      datasets
//   load_jobs.cc          jobs: manifests, inline DGLJobs, actions, and the names they resolve to
//   load_arrivals.cc      arrivals: jobs drawn from a seeded process (generators.h)
//   load_faults.cc        faults
//   load_expectations.cc  expectations
//
// Every key a mapping may hold comes from the schema (schema.h); a problem is reported with the
// file, line, column and field path of what it is about, and loading goes on to find the others.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/config/scale_limits.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/schema.h"
#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace harness::loading {

using json = kube::Json;

// Field paths: "a.b" + "c", "a[]" + 3, "a" + "b.c".
std::string Child(const std::string& path, std::string_view key);
std::string Index(const std::string& path, std::size_t i);
std::string JoinPath(const std::string& base, std::string_view path);
// "the cluster would have N nodes; a scenario holds at most ..." (load_cluster.cc).
std::string TooManyNodes(std::size_t nodes);
std::string Join(const std::vector<std::string>& items, std::string_view separator = ", ");
template <std::size_t N>
std::vector<std::string> Names(const char* const (&names)[N]) {
  return std::vector<std::string>(std::begin(names), std::end(names));
}
bool Contains(const std::vector<std::string>& items, std::string_view item);
// `message` with " (did you mean "x"?)" when a candidate is close to `word`.
std::string WithSuggestion(std::string message, std::string_view word, const std::vector<std::string>& candidates);
bool IsDns1123Label(std::string_view s);

// Reads one scenario file (and the files it names) into a Scenario, collecting problems.
class Loader {
 public:
  // `seed`, when given, replaces the file's (dglsim run --seed, a sweep's seeds) before the
  // generators draw from it.
  Loader(std::string file, std::string base_dir, ScenarioLoad* out, std::optional<std::uint64_t> seed = std::nullopt);
  void Load(const YamlLoad& load);

 private:
  // ---- reporting (loader.cc)
  void Problem(const std::string& path, const std::string& message);
  void Warning(const std::string& path, const std::string& message);

  // ---- typed access (loader.cc). Each reports what is wrong and returns nullopt.
  // The member, or nullptr when absent or null.
  static const json* Get(const json& object, const char* key);
  // Reports every key of `object` that is not in `allowed` (a retired field with its reason),
  // suggesting a close name from `suggest_from` (default: `allowed`).
  void CheckFields(const json& object, const std::string& path, const std::vector<std::string>& allowed,
                   const std::vector<std::string>& suggest_from = {});
  // CheckFields with the schema's fields under `schema_parent`.
  void CheckSchemaFields(const json& object, const std::string& path, std::string_view schema_parent);
  bool ExpectObject(const json& value, const std::string& path, std::string_view what = "a mapping");
  std::optional<std::string> String(const json& object, const char* key, const std::string& path, bool required = false);
  std::optional<std::int64_t> Integer(const json& object, const char* key, const std::string& path, std::int64_t min,
                                      std::int64_t max, bool required = false);
  std::optional<double> Number(const json& object, const char* key, const std::string& path, double min, double max,
                               bool min_exclusive = false, bool required = false);
  std::optional<bool> Bool(const json& object, const char* key, const std::string& path);
  std::optional<Micros> Duration(const json& object, const char* key, const std::string& path, bool positive = false,
                                 bool required = false);
  std::optional<double> Bandwidth(const json& object, const char* key, const std::string& path);
  std::optional<std::int64_t> Size(const json& value, const std::string& path);
  std::optional<std::string> Enum(const json& object, const char* key, const std::string& path,
                                  const std::vector<std::string>& values, bool required = false);
  // A sequence member: each item is handed to `each(item, item_path)`.
  template <class F>
  void Sequence(const json& object, const char* key, const std::string& path, F each) {
    const json* value = Get(object, key);
    if (value == nullptr) return;
    const std::string field = Child(path, key);
    if (!value->is_array()) {
      Problem(field, "must be a sequence, got " + TypeName(*value));
      return;
    }
    for (std::size_t i = 0; i < value->size(); ++i) each((*value)[i], Index(field, i));
  }
  std::string Resolve(const std::string& relative) const;

  // ---- the document (loader.cc)
  void LoadTop(const json& top, Scenario& s);
  void LoadMetadata(const json& top, Scenario& s);
  void LoadSettings(const json& top, Scenario& s);
  void LoadCalibration(const json& top, Scenario& s);

  // ---- cluster (load_cluster.cc)
  void LoadCluster(const json& cluster, ClusterSpec& c);
  void LoadImages(const json& images, ImageSettings& settings);
  void LoadTimings(const json& timings, Timings& t);
  void AddNodeName(const std::string& name, const std::string& path);
  void LoadNodeGroup(const json& item, const std::string& path, ClusterSpec& c);
  void LoadCapacity(const json& capacity, const std::string& path, NodeTemplateSpec& t);
  void LoadLabels(const json& labels, const std::string& path, NodeTemplateSpec& t);
  void LoadMachine(const json& item, const std::string& path, const char* taint_schema, NodeTemplateSpec& t);
  void LoadNodeManifest(NodeManifestSpec& manifest, const std::string& field);
  void CheckManifestGpus(const json& node, const std::function<void(const std::string&, const std::string&)>& problem);
  // mtbf / repairTime: the template's nodes' failures, drawn into generated_faults_.
  void LoadNodeFailures(const json& item, const std::string& path, NodeTemplateSpec& t);

  // ---- node pools (load_pools.cc)
  void LoadNodePools(const json& cluster, ClusterSpec& c);
  void LoadNodePool(const json& item, const std::string& path, ClusterSpec& c);

  // ---- datasets (load_datasets.cc)
  void LoadDataset(const json& item, const std::string& path, Scenario& s);
  // The edge list's graph, or nullptr with a problem at `field` (unreadable, not a regular file,
  // over 256 MiB, a line that is not two node ids, no edge at all).
  std::shared_ptr<const sim::graph::Graph> ReadGraph(const std::string& file, const std::string& field);
  bool DatasetKnown(const Scenario& s, const std::string& name) const;
  std::vector<std::string> DatasetNames(const Scenario& s) const;

  // ---- jobs (load_jobs.cc)
  void LoadJob(const json& item, const std::string& path, Scenario& s);
  // The DGLJobs of a manifest file, each document one; false when the file cannot be read.
  bool LoadJobManifest(const json& item, const std::string& path, JobEntry& job, Scenario& s);
  // Its pods against the scale limits (scale_limits.h) and what the cluster can ever hold; false
  // (with the problem) when the job is refused.
  bool JobFits(const json& defaulted, const std::function<void(const std::string&, const std::string&)>& problem,
               const Scenario& s);
  // Checks one DGLJob (`object`, at `base` in `file`), as admission would, and records it.
  void AddJobObject(const json& object, const std::string& file, const SourceMap& positions, const std::string& base,
                    JobEntry& job, Scenario& s);
  // Resolves `job:` text (a name, or namespace/name) against the jobs the scenario submits.
  std::optional<JobKey> ResolveJob(const json& value, const std::string& path);
  // Resolves a pod (a name, or namespace/name) to one that a job of the scenario creates.
  std::optional<JobKey> ResolvePod(const json& value, const std::string& path);
  // cluster.scheduler.placements (after the jobs: they name the jobs' pods).
  void LoadPlacements(const json& cluster, ClusterSpec& c);
  // After every job is read: actions name submitted jobs, come after their submission, and a job is
  // not submitted twice while it exists.
  void CheckJobOrder(Scenario& s);
  void CheckResubmissions(const Scenario& s);
  void ResolveActions(Scenario& s);
  static std::optional<JobKey> PeekActionTarget(const json& value);

  // ---- arrivals (load_arrivals.cc)
  void LoadArrival(const json& item, const std::string& path, Scenario& s);
  // A template naming a manifest file: its one DGLJob, inline, so each job gets a name of its own.
  void InlineTemplateManifest(json& job, const std::string& path);
  // A trace of submit times, one a line, each optionally naming a template; false after problems.
  bool ReadTrace(const std::string& file, const std::string& field, const std::vector<std::string>& names,
                 std::vector<Micros>& times, std::vector<std::optional<std::size_t>>& named);

  // ---- faults (load_faults.cc)
  void LoadFault(const json& item, const std::string& path, Scenario& s);
  void CheckFaultFields(const json& item, const std::string& path, const std::string& kind);
  void LoadTrigger(const json& item, const std::string& path, const Scenario& s, FaultSpec& f);
  void LoadFaultTarget(const json& item, const std::string& path, FaultSpec& f);
  void LoadFaultNode(const json& item, const std::string& path, bool required, FaultSpec& f);
  // RbacRuleRemoved's role and rule, checked against the operator's RBAC file and the bootstrap
  // policy (load_rbac.cc).
  void LoadRbacFault(const json& item, const std::string& path, FaultSpec& f);
  void CheckRbacFault(const std::string& path, const Scenario& s, const FaultSpec& f);

  // ---- expectations (load_expectations.cc)
  void LoadExpectation(const json& item, const std::string& path, Scenario& s);
  // The one kind `item` is (its kind key), or "" after reporting why there is none.
  std::string ExpectationKind(const json& item, const std::string& path);
  // `subject`: "job NAME" as the expectation's text names it.
  void LoadPhaseExpectation(const json& item, const std::string& path, const std::string& subject, ExpectationSpec& e);
  void LoadPhasesExpectation(const json& item, const std::string& path, const std::string& subject, ExpectationSpec& e);
  void LoadConditionExpectation(const json& item, const std::string& path, const std::string& subject,
                                ExpectationSpec& e);
  void LoadBetweenExpectation(const json& item, const std::string& path, bool breakdown, const std::string& subject,
                              ExpectationSpec& e);
  void LoadPodsExpectation(const json& item, const std::string& path, ExpectationSpec& e);
  // `at`: "end" (the default) or a time.
  void LoadAt(const json& item, const std::string& path, ExpectationSpec& e);
  void LoadInvariantsExpectation(const json& item, const std::string& path, ExpectationSpec& e);
  void LoadConfigMapExpectation(const json& item, const std::string& path, ExpectationSpec& e);

  struct Submission {
    Micros at;
    std::size_t job_index;
    std::string location;  // "file:line:col" of the job's metadata.name
  };
  struct PendingAction {
    std::size_t job_index;
    std::string path;  // "jobs[3].delete"
    json value;
  };

  std::string file_;
  std::string base_dir_;
  ScenarioLoad* out_;
  std::optional<std::uint64_t> seed_override_;
  std::uint64_t seed_ = 1;  // the run's seed and until, for the generators
  Micros until_ = 0;
  std::vector<FaultSpec> generated_faults_;  // node failures drawn from mtbf
  const SourceMap* positions_ = nullptr;
  std::set<std::string> node_names_;
  std::vector<std::string> node_order_;
  std::map<JobKey, std::vector<Submission>> submitted_;
  std::map<JobKey, std::vector<std::string>> pods_;
  std::int64_t jobs_submitted_ = 0;  // for kMaxJobs
  std::int64_t pods_submitted_ = 0;  // every job's pods, for kMaxPods
  std::optional<std::int64_t> pod_capacity_;  // the cluster's, once the first job asks
  std::vector<JobKey> job_keys_;
  std::vector<PendingAction> pending_actions_;
};

}  // namespace harness::loading
