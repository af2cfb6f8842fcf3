// The scenario loader's jobs: manifests, inline DGLJobs, actions, and the jobs and pods the other
// sections name. See loader.h.
#include "sim/harness/config/loader.h"

#include "operator/api/dgljob_api.h"

#include <algorithm>
#include <exception>

namespace harness::loading {
namespace {

constexpr const char* kDatasetAnnotation = "dglsim.io/dataset";

// The pods a (defaulted) DGLJob creates.
std::vector<std::string> PodNamesOf(json job, const std::string& name) {
  if (!job.is_object() || !job["metadata"].is_object()) return {};
  job["metadata"]["name"] = name;
  return dgl::JobPodNames(job);
}

// "big-partitioner, big-launcher, big-worker-0 .. big-worker-7".
std::string PodSummary(const std::string& job, const std::vector<std::string>& pods) {
  std::vector<std::string> parts;
  std::vector<std::string> workers;
  for (const std::string& pod : pods) (pod.starts_with(job + "-worker-") ? workers : parts).push_back(pod);
  if (workers.size() == 1) parts.push_back(workers[0]);
  if (workers.size() > 1) parts.push_back(workers.front() + " .. " + workers.back());
  return Join(parts);
}

}  // namespace

void Loader::LoadJob(const json& item, const std::string& path, Scenario& s) {
  if (!ExpectObject(item, path, "a job {at, manifest | inline | delete | suspend | resume}")) return;
  CheckSchemaFields(item, path, "jobs[]");
  JobEntry job;
  job.field_path = path;
  if (auto at = Duration(item, "at", path)) job.at = *at;
  if (job.at > s.until) Warning(Child(path, "at"), "at " + FormatDuration(job.at) + " is after until (" + FormatDuration(s.until) + "): it never happens");
  std::vector<std::string> given;
  for (const char* key : {"manifest", "inline", "delete", "suspend", "resume"}) {
    if (Get(item, key) != nullptr) given.push_back(key);
  }
  if (given.empty()) {
    Problem(path, "a job needs one of manifest, inline, delete, suspend, resume");
    return;
  }
  if (given.size() > 1) {
    Problem(path, "a job entry does one thing: found both " + given[0] + " and " + given[1]);
    return;
  }
  const std::string& what = given[0];
  if (auto dataset = String(item, "dataset", path)) {
    if (what != "manifest" && what != "inline") {
      Problem(Child(path, "dataset"), "dataset only goes with manifest or inline");
    } else if (!DatasetKnown(s, *dataset)) {
      Problem(Child(path, "dataset"), WithSuggestion("no dataset named " + Quoted(*dataset) + " in datasets", *dataset, DatasetNames(s)));
    } else {
      job.dataset = *dataset;
    }
  }
  if (what == "manifest") {
    if (!LoadJobManifest(item, path, job, s)) return;
  } else if (what == "inline") {
    AddJobObject(item["inline"], file_, *positions_, Child(path, "inline"), job, s);
  } else {
    job.action = what == "delete" ? JobAction::kDelete : what == "suspend" ? JobAction::kSuspend : JobAction::kResume;
    pending_actions_.push_back({s.jobs.size(), Child(path, what), item[what]});
  }
  s.jobs.push_back(std::move(job));
}

// The DGLJobs of a manifest file, each document one; false when the file cannot be read.
bool Loader::LoadJobManifest(const json& item, const std::string& path, JobEntry& job, Scenario& s) {
  auto relative = String(item, "manifest", path, true);
  if (!relative) return false;
  job.manifest_path = Resolve(*relative);
  YamlLoad load = LoadYamlFile(job.manifest_path);
  if (!load.ok()) {
    if (load.error->pos.known()) {
      out_->problems.push_back(load.error->ToString());
    } else {
      Problem(Child(path, "manifest"), "cannot load " + Quoted(job.manifest_path) + ": " + load.error->message);
    }
    return false;
  }
  int documents = 0;
  for (const YamlDocument& document : load.documents) {
    if (document.value.is_null()) continue;
    ++documents;
    AddJobObject(document.value, job.manifest_path, document.positions, "", job, s);
  }
  if (documents == 0) Problem(Child(path, "manifest"), "no DGLJob in " + Quoted(job.manifest_path));
  return true;
}

// Checks one DGLJob (`object`, at `base` in `file`), as admission would, and records it.
void Loader::AddJobObject(const json& object, const std::string& file, const SourceMap& positions, const std::string& base,
                  JobEntry& job, Scenario& s) {
  auto problem = [&](const std::string& path, const std::string& message) {
    out_->problems.push_back(FormatProblem(file, positions, JoinPath(base, path), message));
  };
  if (!object.is_object()) {
    problem("", "expected a DGLJob manifest, got " + TypeName(object));
    return;
  }
  const json* api_version = Get(object, "apiVersion");
  const json* kind = Get(object, "kind");
  if (kind == nullptr || *kind != dgl::kKind) {
    problem("kind", kind == nullptr ? "required field is missing: jobs are DGLJobs"
                                    : "unsupported value " + kind->dump() + ": jobs are DGLJobs (kind: DGLJob)");
    return;
  }
  if (api_version == nullptr || (*api_version != dgl::kApiVersion && *api_version != dgl::kLegacyApiVersion)) {
    problem("apiVersion", api_version == nullptr ? "required field is missing"
                                                 : "unsupported value " + api_version->dump() + ": must be \"" +
                                                       dgl::kApiVersion + "\" (or the original \"" + dgl::kLegacyApiVersion + "\")");
    return;
  }
  DGLJobAdmission admission = AdmitDGLJob(object, file, positions, base);
  for (std::string& line : admission.warnings) out_->warnings.push_back(std::move(line));
  const bool valid = admission.problems.empty();
  for (std::string& line : admission.problems) out_->problems.push_back(std::move(line));
  json& converted = admission.converted;
  const json& defaulted = admission.defaulted;
  if (!valid) return;
  const json& metadata = converted["metadata"];
  if (!metadata.contains("name") || !metadata["name"].is_string()) {
    problem("metadata.name", "a scenario's job needs metadata.name (not generateName) so faults and expectations can name it");
    return;
  }
  if (!metadata.contains("namespace") || metadata["namespace"].is_null()) converted["metadata"]["namespace"] = "default";
  JobKey key{converted["metadata"]["namespace"].get<std::string>(), metadata["name"].get<std::string>()};
  if (!IsDns1123Label(key.ns)) {
    problem("metadata.namespace", "invalid namespace " + Quoted(key.ns));
    return;
  }
  if (const json* annotations = Get(metadata, "annotations"); annotations != nullptr && annotations->is_object()) {
    if (const json* dataset = Get(*annotations, kDatasetAnnotation); dataset != nullptr && dataset->is_string()) {
      const std::string name = dataset->get<std::string>();
      const std::string field = std::string("metadata.annotations[") + kDatasetAnnotation + "]";
      if (!DatasetKnown(s, name)) {
        problem(field, WithSuggestion("no dataset named " + Quoted(name) + " in datasets", name, DatasetNames(s)));
      } else if (!job.dataset.empty() && job.dataset != name) {
        problem(field, "names dataset " + Quoted(name) + " but the job entry says " + Quoted(job.dataset));
      } else {
        job.dataset = name;
      }
    }
  }
  if (!JobFits(defaulted, problem, s)) return;
  if (submitted_.count(key) == 0) {
    s.job_keys.push_back(key);
    pods_[key] = PodNamesOf(defaulted, key.name);
  }
  submitted_[key].push_back({job.at, s.jobs.size(), FormatLocation(file, positions, JoinPath(base, "metadata.name"))});
  job.targets.push_back(key);
  job.objects.push_back(std::move(converted));
}

bool Loader::JobFits(const json& defaulted, const std::function<void(const std::string&, const std::string&)>& problem,
                     const Scenario& s) {
  std::int64_t pods = 0, together = 0;  // together: every role but the partitioner, which runs first
  for (const char* type : dgl::kReplicaTypes) {
    const std::int64_t n = std::max<std::int64_t>(0, dgl::GetReplicas(defaulted, type));
    pods += n;
    if (std::string_view(type) != dgl::kReplicaPartitioner) together += n;
  }
  if (!pod_capacity_) pod_capacity_ = s.cluster.PodCapacity();  // the cluster is loaded before the jobs
  // A cluster without nodes is a problem of its own, said at cluster.nodes.
  if (const std::int64_t capacity = *pod_capacity_; capacity > 0 && together > capacity) {
    problem("spec.dglReplicaSpecs", std::to_string(together) + " pods of this job run at once, but the cluster holds at most " +
                                        std::to_string(capacity) + " pods (each node's `pods` capacity, 110 unless given): " +
                                        "they could never all run");
    return false;
  }
  if (jobs_submitted_ >= kMaxJobs) {
    problem("metadata.name", "more than " + std::to_string(kMaxJobs) + " jobs; a scenario submits at most " +
                                 std::to_string(kMaxJobs) + " (docs/limits.md)");
    return false;
  }
  if (pods_submitted_ + pods > kMaxPods) {
    problem("spec.dglReplicaSpecs", "the scenario's jobs would have " + std::to_string(pods_submitted_ + pods) +
                                        " pods; at most " + std::to_string(kMaxPods) + " (docs/limits.md)");
    return false;
  }
  ++jobs_submitted_;
  pods_submitted_ += pods;
  return true;
}

// Resolves `job:` text (a name, or namespace/name) against the jobs the scenario submits.
std::optional<JobKey> Loader::ResolveJob(const json& value, const std::string& path) {
  if (!value.is_string()) {
    Problem(path, "must be a job name or namespace/name, got " + TypeName(value));
    return std::nullopt;
  }
  const std::string text = value.get<std::string>();
  std::vector<std::string> known;
  for (const JobKey& k : job_keys_) known.push_back(k.name);
  if (const std::size_t slash = text.find('/'); slash != std::string::npos) {
    JobKey key{text.substr(0, slash), text.substr(slash + 1)};
    if (std::find(job_keys_.begin(), job_keys_.end(), key) != job_keys_.end()) return key;
    std::vector<std::string> full;
    for (const JobKey& k : job_keys_) full.push_back(k.ToString());
    Problem(path, WithSuggestion("no job " + Quoted(text) + " in the scenario's jobs", text, full));
    return std::nullopt;
  }
  std::vector<JobKey> matches;
  for (const JobKey& k : job_keys_) {
    if (k.name == text) matches.push_back(k);
  }
  if (matches.size() == 1) return matches[0];
  if (matches.empty()) {
    std::string message = "no job named " + Quoted(text) + " in the scenario's jobs";
    message = WithSuggestion(message, text, known);
    if (known.empty()) message += " (the scenario submits no jobs)";
    Problem(path, message);
  } else {
    Problem(path, "ambiguous: " + matches[0].ToString() + " and " + matches[1].ToString() + "; write namespace/name");
  }
  return std::nullopt;
}

// Resolves a pod (a name, or namespace/name) to one that a job of the scenario creates.
std::optional<JobKey> Loader::ResolvePod(const json& value, const std::string& path) {
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    Problem(path, "must be a pod name or namespace/name, got " + (value.is_string() ? std::string("\"\"") : TypeName(value)));
    return std::nullopt;
  }
  const std::string text = value.get<std::string>();
  std::optional<std::string> ns;
  std::string name = text;
  if (const std::size_t slash = text.find('/'); slash != std::string::npos) {
    ns = text.substr(0, slash);
    name = text.substr(slash + 1);
  }
  std::vector<JobKey> found;
  std::vector<std::string> all;
  for (const auto& [job, pods] : pods_) {
    for (const std::string& pod : pods) {
      if (ns && job.ns != *ns) continue;
      all.push_back(ns ? job.ns + "/" + pod : pod);
      if (pod == name) found.push_back({job.ns, pod});
    }
  }
  if (found.size() == 1) return found[0];
  if (found.empty()) {
    std::string message = "no job of the scenario creates a pod " + Quoted(text);
    // Say which pods the job the name points at does create.
    for (const auto& [job, pods] : pods_) {
      if ((ns && job.ns != *ns) || !name.starts_with(job.name + "-")) continue;
      message += " (job " + job.ToString() + " creates " + PodSummary(job.name, pods) + ")";
      Problem(path, message);
      return std::nullopt;
    }
    if (all.size() > 5000) all.resize(5000);  // suggestions stay fast for jobs with many workers
    Problem(path, WithSuggestion(message, text, all));
  } else {
    Problem(path, "ambiguous: pod " + Quoted(name) + " exists in " + found[0].ns + " and " + found[1].ns + "; write namespace/name");
  }
  return std::nullopt;
}

// After every job is read: actions name submitted jobs, come after their submission, and a job is
// not submitted twice while it exists.
void Loader::CheckJobOrder(Scenario& s) {
  job_keys_ = s.job_keys;
  CheckResubmissions(s);
  ResolveActions(s);
}

void Loader::CheckResubmissions(const Scenario& s) {
  for (const auto& [key, submissions] : submitted_) {
    for (std::size_t i = 1; i < submissions.size(); ++i) {
      const Submission& previous = submissions[i - 1];
      const Submission& current = submissions[i];
      bool deleted_between = false;
      for (const PendingAction& a : pending_actions_) {
        const JobEntry& entry = s.jobs[a.job_index];
        if (entry.action != JobAction::kDelete) continue;
        auto target = PeekActionTarget(a.value);
        if (target && (*target == key || (target->ns.empty() && target->name == key.name)) && entry.at >= previous.at &&
            entry.at <= current.at) {
          deleted_between = true;
        }
      }
      if (!deleted_between) {
        const JobEntry& entry = s.jobs[current.job_index];
        out_->problems.push_back(current.location + ": " + entry.field_path + ": job " + key.ToString() +
                                 " is submitted again while it exists (first submitted at " + previous.location +
                                 "); delete it in between");
      }
    }
  }
}

void Loader::ResolveActions(Scenario& s) {
  for (const PendingAction& a : pending_actions_) {
    JobEntry& entry = s.jobs[a.job_index];
    std::optional<JobKey> key;
    if (a.value.is_object()) {
      CheckSchemaFields(a.value, a.path, std::string("jobs[].") + ToString(entry.action));
      auto name = String(a.value, "name", a.path, true);
      auto ns = String(a.value, "namespace", a.path);
      if (!name) continue;
      key = ResolveJob(json(ns ? *ns + "/" + *name : *name), Child(a.path, "name"));
    } else {
      key = ResolveJob(a.value, a.path);
    }
    if (!key) continue;
    entry.targets.push_back(*key);
    const auto& submissions = submitted_[*key];
    if (!submissions.empty() && entry.at < submissions.front().at) {
      Problem(Child(entry.field_path, "at"), std::string(ToString(entry.action)) + " of " + key->ToString() + " at " +
                                                 FormatDuration(entry.at) + " comes before the job is submitted (at " +
                                                 FormatDuration(submissions.front().at) + ")");
    }
  }
}

std::optional<JobKey> Loader::PeekActionTarget(const json& value) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_object() && value.contains("name") && value["name"].is_string()) {
    text = value["name"].get<std::string>();
    if (value.contains("namespace") && value["namespace"].is_string()) text = value["namespace"].get<std::string>() + "/" + text;
  } else {
    return std::nullopt;
  }
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return JobKey{"", text};
  return JobKey{text.substr(0, slash), text.substr(slash + 1)};
}

}  // namespace harness::loading
