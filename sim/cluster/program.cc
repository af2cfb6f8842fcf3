// Container programs: the registry and the built-in programs. See program.h.
#include "sim/cluster/program.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/quantity.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

namespace sim {

using kube::JsonString;
using json = kube::Json;

namespace {

const std::string kEmpty;

std::string Trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> Strings(const json& c, const char* field) {
  std::vector<std::string> out;
  auto it = c.find(field);
  if (it == c.end() || !it->is_array()) return out;
  for (const auto& s : *it)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

}  // namespace

std::optional<Micros> ParseDuration(std::string_view text) {
  if (std::string s = Trim(text); s == "infinity" || s == "inf") return kForever;
  return kube::ParseDuration(text);
}

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matcher with single-star backtracking: linear in practice.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1, t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<std::string> ContainerAnnotation(const json& pod, std::string_view container, std::string_view key) {
  auto meta = pod.find("metadata");
  if (meta == pod.end()) return std::nullopt;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return std::nullopt;
  std::string specific = std::string(key) + "." + std::string(container);
  auto it = annotations->find(specific);
  if (it != annotations->end() && it->is_string()) return it->get<std::string>();
  it = annotations->find(std::string(key));
  if (it != annotations->end() && it->is_string()) return it->get<std::string>();
  return std::nullopt;
}

// ---- EmptyDir ---------------------------------------------------------------------------------

void EmptyDir::Write(const std::string& path, std::int64_t bytes) {
  auto [it, inserted] = files_.try_emplace(path, 0);
  total_ += bytes - it->second;
  it->second = bytes;
}

void EmptyDir::Append(const std::string& path, std::int64_t bytes) {
  files_[path] += bytes;
  total_ += bytes;
}

std::optional<std::int64_t> EmptyDir::Read(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

bool EmptyDir::Remove(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) return false;
  total_ -= it->second;
  files_.erase(it);
  return true;
}

// ---- context and program defaults -------------------------------------------------------------

const std::string& ProgramContext::container_name() const {
  auto it = container().find("name");
  return it != container().end() && it->is_string() ? it->get_ref<const std::string&>() : kEmpty;
}

void ContainerProgram::Stop(ProgramContext& ctx, Micros) { ctx.Exit(143); }

// ---- built-in programs ------------------------------------------------------------------------

namespace {

class SleepProgram : public ContainerProgram {
 public:
  void Start(ProgramContext& ctx) override {
    // `sleep 10`, or a command of just `sleep` with the durations in args.
    std::vector<std::string> words = ctx.command();
    words.insert(words.end(), ctx.args().begin(), ctx.args().end());
    auto it = std::find_if(words.begin(), words.end(), [](const std::string& w) {
      return w == "sleep" || w.ends_with("/sleep");
    });
    if (it != words.end()) words.erase(words.begin(), it + 1);
    if (words.empty()) {
      ctx.Log("sleep: missing operand");
      ctx.Exit(1);
      return;
    }
    Micros total = 0;
    for (const auto& w : words) {
      auto d = ParseDuration(w);
      if (!d) {
        ctx.Log("sleep: invalid time interval '" + w + "'");
        ctx.Exit(1);
        return;
      }
      if (*d == kForever) return;  // never exits on its own
      total += *d;
    }
    ctx.After(total, [&ctx] { ctx.Exit(0); });
  }
  // PID 1 without a SIGTERM handler: the signal is ignored, the kubelet kills at the grace period.
  void Stop(ProgramContext&, Micros) override {}
};

class GenericProgram : public ContainerProgram {
 public:
  void Start(ProgramContext& ctx) override {
    Micros duration = kSecond1;
    if (auto a = ctx.Annotation("dglsim.io/duration")) {
      if (auto d = ParseDuration(*a)) duration = *d;
      else ctx.Log("dglsim: bad dglsim.io/duration '" + *a + "', using 1s");
    }
    int code = 0;
    if (auto a = ctx.Annotation("dglsim.io/exit-code")) {
      try {
        code = std::stoi(*a);
      } catch (...) {
        ctx.Log("dglsim: bad dglsim.io/exit-code '" + *a + "', using 0");
      }
    }
    if (auto a = ctx.Annotation("dglsim.io/peak-memory")) {
      if (auto bytes = kube::ParseQuantity(*a)) {
        std::int64_t peak = *bytes;
        Micros at = duration == kForever ? 0 : duration / 2;
        ctx.After(at, [&ctx, peak] { ctx.SetMemoryUsage(peak); });
      }
    }
    if (duration != kForever) ctx.After(duration, [&ctx, code] { ctx.Exit(code); });
  }
  void Stop(ProgramContext& ctx, Micros) override {
    Micros stop = 0;
    if (auto a = ctx.Annotation("dglsim.io/stop-duration"))
      if (auto d = ParseDuration(*a)) stop = *d;
    if (stop == 0) {
      ctx.Exit(143);
      return;
    }
    if (stop != kForever) ctx.After(stop, [&ctx] { ctx.Exit(143); });
  }

 private:
  static constexpr Micros kSecond1 = 1'000'000;
};

class KubectlDownloadProgram : public ContainerProgram {
 public:
  void Start(ProgramContext& ctx) override {
    ctx.After(kKubectlCopyTime, [&ctx] {
      if (EmptyDir* dir = VolumeAt(ctx, "/opt/kube")) dir->Write("kubectl", kKubectlBinaryBytes);
      ctx.Exit(0);
    });
  }

 private:
  static EmptyDir* VolumeAt(ProgramContext& ctx, std::string_view path) {
    auto mounts = ctx.container().find("volumeMounts");
    if (mounts == ctx.container().end() || !mounts->is_array()) return nullptr;
    for (const auto& m : *mounts)
      if (JsonString(m, {"mountPath"}) == path) return ctx.Volume(JsonString(m, {"name"}));
    return nullptr;
  }
};

class WatcherLoopProgram : public ContainerProgram {
 public:
  void Start(ProgramContext& ctx) override {
    const auto& env = ctx.env();
    auto mode_it = env.find("WATCHERMODE");
    auto file_it = env.find("WATCHERFILE");
    std::string mode = mode_it == env.end() ? "" : mode_it->second;
    if (mode != "ready" && mode != "finished") {
      ctx.Log("watcher-loop: unknown WATCHERMODE \"" + mode + "\"");
      ctx.Exit(1);
      return;
    }
    want_phase_ = mode == "ready" ? "Running" : "Succeeded";
    std::string path = file_it == env.end() ? "" : file_it->second;
    auto content = ReadConfigMapFile(ctx, path);
    if (!content) {
      ctx.Log("watcher-loop: open " + path + ": no such file or directory");
      ctx.Exit(1);
      return;
    }
    for (auto& name : WatcherLoopPodNames(*content)) waiting_.insert(std::move(name));
    if (waiting_.empty()) {
      ctx.Exit(0);
      return;
    }
    auto ns_it = env.find("NAMESPACE");
    std::string ns = ns_it != env.end() && !ns_it->second.empty() ? ns_it->second : kube::NamespaceOf(ctx.pod());
    ctx.Log("watcher-loop: waiting for " + std::to_string(waiting_.size()) + " pods to be " + want_phase_);
    all_ = waiting_;
    ProgramContext* c = &ctx;
    auto seen = [this, c](const kube::ObjectPtr& pod) { Observe(*c, *pod, false); };
    watch_ = ctx.Watch("pods", {.namespace_ = ns},
                       {.on_add = seen,
                        .on_update = [seen](const kube::ObjectPtr&, const kube::ObjectPtr& p) { seen(p); },
                        .on_delete = [this, c](const kube::ObjectPtr& pod) { Observe(*c, *pod, true); }});
  }

 private:
  void Observe(ProgramContext& ctx, const json& pod, bool deleted) {
    if (done_) return;
    const std::string& name = kube::NameOf(pod);
    if (!all_.count(name)) return;
    std::string phase;
    if (auto s = pod.find("status"); s != pod.end()) phase = s->value("phase", "");
    if (!deleted && phase == want_phase_) waiting_.erase(name);
    else waiting_.insert(name);
    if (waiting_.empty()) {
      done_ = true;
      ctx.Log("watcher-loop: all pods are " + want_phase_);
      ctx.Exit(0);
    }
  }

  // The file at `path` as the pod sees it through its ConfigMap volume, read from the API once.
  static std::optional<std::string> ReadConfigMapFile(ProgramContext& ctx, const std::string& path) {
    const json& container = ctx.container();
    const json& pod = ctx.pod();
    auto mounts = container.find("volumeMounts");
    if (mounts == container.end() || !mounts->is_array()) return std::nullopt;
    for (const auto& m : *mounts) {
      std::string dir = JsonString(m, {"mountPath"});
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      if (dir.empty() || !path.starts_with(dir + "/")) continue;
      std::string relative = path.substr(dir.size() + 1);
      const json* volume = nullptr;
      if (auto vs = pod["spec"].find("volumes"); vs != pod["spec"].end() && vs->is_array())
        for (const auto& v : *vs)
          if (JsonString(v, {"name"}) == JsonString(m, {"name"})) volume = &v;
      if (!volume || !volume->contains("configMap")) continue;
      const json& cm = (*volume)["configMap"];
      std::string key = relative;
      if (auto items = cm.find("items"); items != cm.end() && items->is_array()) {
        key.clear();
        for (const auto& item : *items)
          if (JsonString(item, {"path"}) == relative) key = JsonString(item, {"key"});
        if (key.empty()) return std::nullopt;
      }
      auto got = ctx.volume_client().Get("configmaps", kube::NamespaceOf(pod), JsonString(cm, {"name"}));
      if (!got.ok()) return std::nullopt;
      auto data = (*got)->find("data");
      if (data == (*got)->end() || !data->is_object()) return std::nullopt;
      auto value = data->find(key);
      if (value == data->end() || !value->is_string()) return std::nullopt;
      return value->get<std::string>();
    }
    return std::nullopt;
  }

  std::string want_phase_;
  std::set<std::string> all_;
  std::set<std::string> waiting_;
  bool done_ = false;
  std::unique_ptr<ProgramWatch> watch_;
};

}  // namespace

std::vector<std::string> WatcherLoopPodNames(std::string_view file) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= file.size()) {
    std::size_t end = file.find('\n', start);
    if (end == std::string_view::npos) end = file.size();
    std::string_view line = file.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // strings.Split(line, " "): fields separated by single spaces.
    std::vector<std::string_view> fields;
    std::size_t f = 0;
    while (true) {
      std::size_t sp = line.find(' ', f);
      fields.push_back(line.substr(f, sp == std::string_view::npos ? std::string_view::npos : sp - f));
      if (sp == std::string_view::npos) break;
      f = sp + 1;
    }
    if (fields.size() >= 3 && !fields[2].empty() && !fields[2].ends_with("launcher"))
      names.emplace_back(fields[2]);
    start = end + 1;
  }
  return names;
}

std::unique_ptr<ContainerProgram> MakeSleepProgram() { return std::make_unique<SleepProgram>(); }
std::unique_ptr<ContainerProgram> MakeGenericProgram() { return std::make_unique<GenericProgram>(); }
std::unique_ptr<ContainerProgram> MakeKubectlDownloadProgram() { return std::make_unique<KubectlDownloadProgram>(); }
std::unique_ptr<ContainerProgram> MakeWatcherLoopProgram() { return std::make_unique<WatcherLoopProgram>(); }

// ---- registry ---------------------------------------------------------------------------------

ProgramRegistry::ProgramRegistry() {
  Register("sleep", MakeSleepProgram);
  Register(std::string(kGeneric), MakeGenericProgram);
  Register("kubectl-download", MakeKubectlDownloadProgram);
  Register("watcher-loop", MakeWatcherLoopProgram);
  MatchCommand("sleep", "sleep");
  MatchCommand("sleep *", "sleep");
  MatchCommand("*/sleep", "sleep");
  MatchCommand("*/sleep *", "sleep");
  MatchImage("*kubectl-download*", "kubectl-download");
  MatchImage("*watcher-loop*", "watcher-loop");
}

void ProgramRegistry::Register(std::string name, ProgramFactory factory) {
  factories_[std::move(name)] = std::move(factory);
}

void ProgramRegistry::MatchImage(std::string glob, std::string program) {
  rules_.push_back({true, std::move(glob), std::move(program)});
  resolved_.clear();
}

void ProgramRegistry::MatchCommand(std::string glob, std::string program) {
  rules_.push_back({false, std::move(glob), std::move(program)});
  resolved_.clear();
}

std::string ProgramRegistry::Resolve(const json& pod, const json& container) const {
  std::string name = JsonString(container, {"name"});
  if (auto a = ContainerAnnotation(pod, name, kProgramAnnotation)) return *a;
  std::string image = JsonString(container, {"image"});
  std::string line;
  for (const auto& w : Strings(container, "command")) line += (line.empty() ? "" : " ") + w;
  for (const auto& w : Strings(container, "args")) line += (line.empty() ? "" : " ") + w;
  std::string key = image + '\0' + line;
  if (auto hit = resolved_.find(key); hit != resolved_.end()) return hit->second;
  std::string program(kGeneric);
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->image ? GlobMatch(it->glob, image) : (!line.empty() && GlobMatch(it->glob, line))) {
      program = it->program;
      break;
    }
  }
  resolved_.emplace(std::move(key), program);
  return program;
}

std::unique_ptr<ContainerProgram> ProgramRegistry::Create(std::string_view name) const {
  auto it = factories_.find(name);
  if (it == factories_.end() || !it->second) return nullptr;
  return it->second();
}

}  // namespace sim
