// The scenario loader's arrivals: jobs submitted by a seeded process (Poisson, or a trace file of
// submit times), each a copy of one of the arrival's templates, named NAME-0, NAME-1, ... The draws
// are in generators.h; each job drawn is loaded as a jobs[] entry would be. See loader.h.
#include "sim/harness/config/loader.h"

#include "sim/harness/config/generators.h"
#include "sim/kernel/input_file.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace harness::loading {

void Loader::LoadArrival(const json& item, const std::string& path, Scenario& s) {
  if (!ExpectObject(item, path, "an arrival {name, process, templates, ...}")) return;
  CheckSchemaFields(item, path, "arrivals[]");
  auto name = String(item, "name", path, true);
  if (name && !IsDns1123Label(*name + "-0"))
    Problem(Child(path, "name"), "must be a DNS label: jobs are named " + Quoted(*name + "-0") + ", ...");
  auto process = Enum(item, "process", path, {"Poisson", "Trace"}, true);
  std::vector<json> templates;
  std::vector<double> weights;
  std::vector<std::string> template_names;
  Sequence(item, "templates", path, [&](const json& t, const std::string& t_path) {
    if (!ExpectObject(t, t_path, "a job template {weight, name, dataset, manifest | inline}")) return;
    CheckSchemaFields(t, t_path, "arrivals[].templates[]");
    json job = t;
    weights.push_back(Number(t, "weight", t_path, 0, 1e9, true).value_or(1));
    template_names.push_back(String(t, "name", t_path).value_or(""));
    job.erase("weight");
    job.erase("name");
    templates.push_back(std::move(job));
  });
  if (templates.empty()) Problem(Child(path, "templates"), "at least one job template is required");
  if (!name || !process || templates.empty() || !out_->problems.empty()) return;
  std::vector<Micros> times;
  std::vector<std::optional<std::size_t>> named;
  if (*process == "Poisson") {
    auto mean = Duration(item, "meanInterval", path, true, true);
    auto count = Integer(item, "count", path, 1, 100000, true);
    auto start = Duration(item, "start", path);
    if (Get(item, "file") != nullptr) Problem(Child(path, "file"), "file goes with process: Trace");
    if (!mean || !count) return;
    times = PoissonTimes(s.seed, *name, start.value_or(0), *mean, *count);
    named.resize(times.size());
  } else {
    for (const char* key : {"meanInterval", "count", "start"})
      if (Get(item, key) != nullptr) Problem(Child(path, key), std::string(key) + " goes with process: Poisson");
    auto file = String(item, "file", path, true);
    if (!file || !ReadTrace(Resolve(*file), Child(path, "file"), template_names, times, named)) return;
  }
  if (jobs_submitted_ + static_cast<std::int64_t>(times.size()) > kMaxJobs)
    return Problem(Child(path, *process == "Poisson" ? "count" : "file"),
                   "draws " + std::to_string(times.size()) + " jobs (" +
                       std::to_string(jobs_submitted_ + static_cast<std::int64_t>(times.size())) +
                       " with the scenario's others); a scenario submits at most " + std::to_string(kMaxJobs) +
                       " (docs/limits.md)");
  const std::vector<std::size_t> picks = PickTemplates(s.seed, *name, weights, times.size());
  std::set<std::size_t> reported;
  // A template's manifest file is read once, when the template is first drawn.
  std::vector<bool> inlined(templates.size(), false);
  for (std::size_t k = 0; k < times.size(); ++k) {
    const std::size_t t = named[k].value_or(picks[k]);
    const std::size_t before = out_->problems.size(), warnings = out_->warnings.size();
    if (!inlined[t]) {
      json& first = templates[t];
      if (first.contains("manifest") && first["manifest"].is_string())
        InlineTemplateManifest(first, Index(Child(path, "templates"), t));
      if (out_->problems.size() > before) return;
      inlined[t] = true;
    }
    json job = templates[t];
    job["at"] = static_cast<double>(times[k]) / kube::kSecond;
    const std::string job_name = *name + "-" + std::to_string(k);
    if (job.contains("inline") && job["inline"].is_object()) job["inline"]["metadata"]["name"] = job_name;
    LoadJob(job, Index(Child(path, "templates"), t), s);
    // A template's warnings are said once, not once per job drawn from it. Its problems stop the
    // drawing at once, so a problem of a later draw is one of that draw alone (the jobs or pods
    // of the scenario past a limit) and is said, not dropped with the job.
    if (!reported.insert(t).second) out_->warnings.resize(warnings);
    if (out_->problems.size() > before) return;
  }
}

void Loader::InlineTemplateManifest(json& job, const std::string& path) {
  YamlLoad load = LoadYamlFile(Resolve(job["manifest"].get<std::string>()));
  std::vector<const json*> objects;
  for (const YamlDocument& d : load.documents)
    if (!d.value.is_null()) objects.push_back(&d.value);
  if (!load.ok() || objects.size() != 1) {
    return Problem(Child(path, "manifest"),
                   load.ok() ? "a template's manifest holds one DGLJob; found " + std::to_string(objects.size())
                             : "cannot load " + Quoted(job["manifest"].get<std::string>()) + ": " + load.error->message);
  }
  job["inline"] = *objects[0];
  job.erase("manifest");
}

// One submit time a line, a duration or seconds, then optionally a template name; blank lines and
// lines starting with # are skipped; times must not go backwards.
bool Loader::ReadTrace(const std::string& file, const std::string& field, const std::vector<std::string>& names,
                       std::vector<Micros>& times, std::vector<std::optional<std::size_t>>& named) {
  sim::InputFile text = sim::ReadInputFile(file, sim::kMaxDocumentBytes);
  if (!text.ok()) {
    Problem(field, "cannot read " + Quoted(file) + ": " + text.error);
    return false;
  }
  std::istringstream in(text.text);
  std::string line;
  const std::size_t before = out_->problems.size();
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream words(line);
    std::string time, template_name, extra;
    if (!(words >> time) || time.starts_with("#")) continue;
    const std::string where = file + ":" + std::to_string(number) + ":1: ";
    Parsed<Micros> at = ParseDuration(time);
    if (!at.ok()) out_->problems.push_back(where + at.error);
    else if (!times.empty() && *at.value < times.back()) out_->problems.push_back(where + "submit times must not go backwards");
    std::optional<std::size_t> pick;
    if (words >> template_name) {
      auto it = std::find(names.begin(), names.end(), template_name);
      if (it == names.end()) out_->problems.push_back(where + WithSuggestion("no template named " + Quoted(template_name), template_name, names));
      else pick = static_cast<std::size_t>(it - names.begin());
    }
    if (words >> extra) out_->problems.push_back(where + "expected a submit time and at most a template name");
    if (at.ok()) times.push_back(*at.value), named.push_back(pick);
  }
  if (times.empty() && out_->problems.size() == before) Problem(field, "no submit times in " + Quoted(file));
  if (times.size() > 100000) Problem(field, "more than 100000 submit times in " + Quoted(file));
  return out_->problems.size() == before;
}

}  // namespace harness::loading
