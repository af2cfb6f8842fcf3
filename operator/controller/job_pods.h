// JobPods: the pods of one DGLJob as one reconcile pass sees them, slotted by name into the
// partitioner, the launcher and the indexed replicas of each replica type (J-worker-0 .. n-1), with
// the pods that fit no slot (an index beyond the wanted count) kept apart. The pass updates it as
// it creates and deletes pods, so later steps of the same pass see the result of earlier ones.
#pragma once

#include "operator/controller/pod_state.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dgl {

class JobPods {
 public:
  // `indexed`: for each replica-type label with indexed pods ("worker"), how many are wanted.
  JobPods(std::string job_name, std::map<std::string, std::int64_t> indexed);

  // Slots `pod` by its name, replacing what held that slot; `node_lost`: its node is lost
  // (PodView::node_lost).
  void Put(kube::ObjectPtr pod, bool node_lost = false);
  // The same for a view already made of the pod (MakePodView).
  void Put(PodView view);
  // Removes the pod named `pod_name` from whatever slot holds it.
  void Forget(const std::string& pod_name);

  const std::optional<PodView>& partitioner() const { return partitioner_; }
  const std::optional<PodView>& launcher() const { return launcher_; }
  // The pods of replica-type label `role` by index (numeric order); empty for an unknown role.
  const std::map<std::int64_t, PodView>& Indexed(const std::string& role) const;
  // How many pods of `role` are wanted (0 for an unknown role).
  std::int64_t Wanted(const std::string& role) const;
  const std::map<std::string, std::int64_t>& wanted() const { return wanted_; }
  // Every wanted pod of `role` exists, none terminating, all Running.
  bool AllRunning(const std::string& role) const;

  // A snapshot (copies) of every pod: deleting pods while iterating must not invalidate it.
  std::vector<PodView> All() const;
  // Whether some pod satisfies `pred`, asked without a snapshot: the cheap test a pass makes before
  // it takes one to act on.
  template <class Pred>
  bool AnyOf(Pred pred) const {
    if (partitioner_ && pred(*partitioner_)) return true;
    if (launcher_ && pred(*launcher_)) return true;
    for (const auto& [role, pods] : indexed_)
      for (const auto& [index, pod] : pods)
        if (pred(pod)) return true;
    for (const auto& p : other_)
      if (pred(p)) return true;
    return false;
  }
  bool IsLauncher(const PodView& p) const { return p.Name() == launcher_name_; }
  bool IsPartitioner(const PodView& p) const { return p.Name() == partitioner_name_; }

 private:
  std::string job_name_, launcher_name_, partitioner_name_;
  std::map<std::string, std::int64_t> wanted_;
  // For each role of wanted_, in its order: the prefix of its pods' names ("J-worker-").
  std::vector<std::string> prefixes_;
  std::optional<PodView> partitioner_;
  std::optional<PodView> launcher_;
  std::map<std::string, std::map<std::int64_t, PodView>> indexed_;
  std::vector<PodView> other_;
};

}  // namespace dgl
