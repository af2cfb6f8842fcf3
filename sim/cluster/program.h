// A ContainerProgram is what one run of a simulated container does over simulated time: compute
// (wait), read and watch the API, write log lines, hold memory, touch its pod's emptyDir volumes,
// and finally exit with a code. The kubelet creates one program per container run (a restart gets
// a fresh one) and hands it a ProgramContext, its only window on the world.
//
// Contract between kubelet and program:
// - Start(ctx) is called once, when the container's state becomes running. The program schedules
//   its work with ctx.After(); everything it scheduled is cancelled when the run ends.
// - ctx.Exit(code) ends the run. The kubelet records the exit in the same instant, after the
//   program's current callback returns; later calls into the context are ignored.
// - Stop(ctx, grace) is SIGTERM: the program decides when to exit (the default exits at once with
//   143 = 128 + SIGTERM). If it has not exited after `grace`, the kubelet kills it (exit 137).
// - ctx.SetMemoryUsage(bytes) above the container's memory limit gets it OOMKilled (exit 137).
// - OnNodeDown() tells the program its node just died; the run is then dropped without an exit.
//
// A ProgramRegistry picks the program of a container: the pod annotation
// `dglsim.io/program.<container>` or `dglsim.io/program`, else the newest image or command glob
// registered that matches, else the generic annotation-driven program. The built-in programs are
// `sleep`, `generic`, `kubectl-download` and `watcher-loop`.
//
// REQUIRES: single-threaded use, inside the simulation's engine.
#pragma once

#include "fakeapi/client/client.h"
#include "fakeapi/client/informer.h"
#include "fakeapi/client/json.h"
#include "sim/kernel/engine.h"
#include "sim/kernel/random.h"
#include "sim/network/network.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sim {

struct NodeSimSpec;  // sim/cluster/cluster.h

// "Forever" for durations: `sleep infinity`, an annotation duration of "infinity".
constexpr Micros kForever = std::numeric_limits<Micros>::max();

// Parses a duration as the programs and annotations write them: kube::ParseDuration's forms
// (plain seconds "10", "1.5"; number+unit pairs with units ms, s, m, h, d: "90s", "1h30m", "365d"),
// or "infinity"/"inf" (kForever). nullopt when the text is none of these or negative.
std::optional<Micros> ParseDuration(std::string_view text);

// Shell-style glob: `*` matches any run of characters, `?` any one character.
bool GlobMatch(std::string_view pattern, std::string_view text);

// The value of pod annotation `key.<container>` if present, else of `key`; nullopt if neither.
std::optional<std::string> ContainerAnnotation(const kube::Json& pod, std::string_view container,
                                               std::string_view key);

// An emptyDir volume of a pod: files as named byte counts (content is not simulated). It lives
// exactly as long as the pod is on the node (a container restart keeps it).
class EmptyDir {
 public:
  explicit EmptyDir(std::string medium = "") : medium_(std::move(medium)) {}
  const std::string& medium() const { return medium_; }  // "" (disk) or "Memory"
  // Sets the size of file `path` (creating it).
  void Write(const std::string& path, std::int64_t bytes);
  // Adds `bytes` to file `path` (creating it).
  void Append(const std::string& path, std::int64_t bytes);
  // The size of file `path`; nullopt if absent.
  std::optional<std::int64_t> Read(const std::string& path) const;
  bool Remove(const std::string& path);
  std::int64_t TotalBytes() const { return total_; }
  const std::map<std::string, std::int64_t>& files() const { return files_; }

 private:
  std::string medium_;
  std::map<std::string, std::int64_t> files_;
  std::int64_t total_ = 0;
};

// Receives what kubelets and programs measure for the reports: the stages of a job's breakdown and
// the memory peaks of its containers. The harness implements it; it maps a pod to its job by labels.
class WorkloadObserver {
 public:
  virtual ~WorkloadObserver() = default;
  // `pod` spent [begin, end) of simulated time in `stage` of its job's breakdown. Stage names of the
  // report: "imagePull", "download", "partition", "dispatch", "load", "training"; others are kept too.
  virtual void OnStage(const kube::Json& pod, std::string_view stage, Micros begin, Micros end) = 0;
  // The memory use of `container` of `pod` was set to `bytes` (the observer keeps the peak).
  virtual void OnMemory(const kube::Json& pod, std::string_view container, std::int64_t bytes) = 0;
};

// A watch a program holds on the API (an informer it owns). Dropping it stops the watch.
class ProgramWatch {
 public:
  virtual ~ProgramWatch() = default;
  virtual kube::Informer& informer() = 0;
};

// What a program can see and do. Implemented by the kubelet (and by fakes in tests).
class ProgramContext {
 public:
  virtual ~ProgramContext() = default;

  virtual const kube::Json& pod() const = 0;
  virtual const kube::Json& container() const = 0;
  virtual const std::string& node_name() const = 0;
  // The container's command and args as in its spec (empty when unset).
  virtual const std::vector<std::string>& command() const = 0;
  virtual const std::vector<std::string>& args() const = 0;
  // The container's environment: `value`s and the fieldRefs the kubelet resolves
  // (metadata.name, metadata.namespace, metadata.uid, spec.nodeName, status.podIP, status.hostIP).
  virtual const std::map<std::string, std::string>& env() const = 0;

  virtual Micros Now() const = 0;
  // Runs `fn` after `delay` while this run lasts.
  virtual EventId After(Micros delay, std::function<void()> fn) = 0;
  virtual bool Cancel(EventId id) = 0;
  // The API as the pod's processes see it: as the pod's service account (spec.serviceAccountName,
  // else "default"), under what RBAC grants it, as their mounted token makes them on a cluster.
  virtual kube::Client& client() = 0;
  // The API as the kubelet reads the pod's volumes (a ConfigMap mounted in the pod: no RBAC of the
  // pod's own is needed). Default: client().
  virtual kube::Client& volume_client() { return client(); }
  // The API side of `kubectl exec POD` from this container into `pod` of the same namespace: whether
  // the pod's service account may create pods/exec on it (OK, or kube-apiserver's 403). Default: OK.
  virtual kube::Status Exec(const std::string& pod) {
    (void)pod;
    return kube::Status::Ok();
  }
  // An informer on `resource` narrowed by `filter`; its events arrive after the watch latency.
  // Handlers may call Exit(). The watch ends when the returned object is dropped or the run ends.
  virtual std::unique_ptr<ProgramWatch> Watch(std::string resource, kube::ListOptions filter,
                                              kube::InformerHandlers handlers) = 0;
  // Appends a line to the container's log (what `kubectl logs` prints).
  virtual void Log(std::string line) = 0;
  // The container's current memory use in bytes.
  virtual void SetMemoryUsage(std::int64_t bytes) = 0;
  // The pod's emptyDir volume `volume` (by volume name); nullptr if the pod has none of that name.
  virtual EmptyDir* Volume(std::string_view volume) = 0;
  // A random stream for this container (same seed, same draws).
  virtual RandomStream& random() = 0;
  // Ends the run with `code`. Only the first call counts.
  virtual void Exit(int code) = 0;

  // Moves `spec.bytes` over the cluster's flow network (sim/network/network.h); `spec.on_done` runs when they
  // have arrived, only while this run lasts. Every transfer still going is cancelled when the run
  // ends. Without a network (unit tests) the bytes take bytes / 1 GB/s and the FlowId is invalid.
  // Endpoints name nodes by name; node_name() is this container's machine.
  virtual FlowId Transfer(FlowSpec spec) = 0;
  // Cancels a transfer of this run; false when it is not active.
  virtual bool CancelTransfer(FlowId id) = 0;
  // The flow network, for reading rates and link figures; nullptr when the simulation has none.
  virtual Network* network() = 0;
  // What the API does not say about this machine (cpu speed, NIC and disk bandwidth); nullptr
  // when unknown (then assume the defaults of NodeSimSpec).
  virtual const NodeSimSpec* node_spec() const = 0;
  // Records that this pod spent [begin, end) in `stage` of its job (see WorkloadObserver).
  virtual void RecordStage(std::string_view stage, Micros begin, Micros end) = 0;

  // Helpers over the above.
  const std::string& container_name() const;
  std::optional<std::string> Annotation(std::string_view key) const {
    return ContainerAnnotation(pod(), container_name(), key);
  }
};

class ContainerProgram {
 public:
  virtual ~ContainerProgram() = default;
  virtual void Start(ProgramContext& ctx) = 0;
  // SIGTERM with `grace` before SIGKILL. Default: exit 143 at once.
  virtual void Stop(ProgramContext& ctx, Micros grace);
  virtual void OnNodeDown(ProgramContext&) {}
};

using ProgramFactory = std::function<std::unique_ptr<ContainerProgram>()>;

class ProgramRegistry {
 public:
  static constexpr std::string_view kProgramAnnotation = "dglsim.io/program";
  static constexpr std::string_view kGeneric = "generic";

  // A registry holding the built-in programs and their image and command rules.
  ProgramRegistry();

  // Adds or replaces program `name`.
  void Register(std::string name, ProgramFactory factory);
  // Containers whose image matches `glob` run `program`. Later rules win over earlier ones.
  void MatchImage(std::string glob, std::string program);
  // Containers whose command line (command then args, joined by spaces) matches `glob`.
  void MatchCommand(std::string glob, std::string program);

  // The program name for `container` of `pod` (see the file comment). It remembers what the rules
  // answered (resolved_), so one registry is not for two threads at once.
  std::string Resolve(const kube::Json& pod, const kube::Json& container) const;
  // A new instance of program `name`; nullptr when no such program is registered.
  std::unique_ptr<ContainerProgram> Create(std::string_view name) const;
  bool Has(std::string_view name) const { return factories_.count(name) > 0; }

 private:
  struct Rule {
    bool image;  // else command
    std::string glob;
    std::string program;
  };
  std::map<std::string, ProgramFactory, std::less<>> factories_;
  std::vector<Rule> rules_;
  // What the rules gave each image and command line met so far (image, a NUL, the line): every
  // pod of a job runs the same few containers. Cleared when a rule is added.
  mutable std::unordered_map<std::string, std::string> resolved_;
};

// --- Built-in programs (exposed for tests and for models that build on them). ---

// `sleep DURATION...`: GNU sleep, durations summed. As PID 1 it ignores SIGTERM, so deleting its
// pod takes the whole grace period (the kubelet then kills it with 137).
std::unique_ptr<ContainerProgram> MakeSleepProgram();
// Runs for `dglsim.io/duration` (default 1s), reaches `dglsim.io/peak-memory` halfway through,
// exits with `dglsim.io/exit-code` (default 0); each may be per container (`<key>.<container>`).
// On SIGTERM it exits 143 after `dglsim.io/stop-duration` (default 0).
std::unique_ptr<ContainerProgram> MakeGenericProgram();
// `cp /bin/kubectl /opt/kube/kubectl`: writes the binary into the emptyDir mounted at /opt/kube
// and exits 0 after a short copy.
std::unique_ptr<ContainerProgram> MakeKubectlDownloadProgram();
// The DGL operator's watcher-loop (WATCHERMODE ready|finished, WATCHERFILE).
std::unique_ptr<ContainerProgram> MakeWatcherLoopProgram();

// Size and copy time of the kubectl v1.20.4 binary kubectl-download copies.
constexpr std::int64_t kKubectlBinaryBytes = 40'230'912;
constexpr Micros kKubectlCopyTime = 300 * 1000;

// The pod names a watcher-loop file names: field index 2 of each space-separated line with at
// least three fields, skipping names ending in "launcher", in file order.
std::vector<std::string> WatcherLoopPodNames(std::string_view file);

}  // namespace sim
