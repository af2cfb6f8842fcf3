#include "operator/controller/job_pods.h"

#include "operator/api/vocabulary.h"

#include <algorithm>
#include <string_view>

namespace dgl {

JobPods::JobPods(std::string job_name, std::map<std::string, std::int64_t> indexed)
    : job_name_(std::move(job_name)),
      launcher_name_(LauncherName(job_name_)),
      partitioner_name_(PartitionerName(job_name_)),
      wanted_(std::move(indexed)) {
  for (const auto& [role, count] : wanted_) prefixes_.push_back(job_name_ + "-" + role + "-");
}

namespace {

// The index a pod name's tail spells in canonical decimal ("0", "12"; not "012", "+1", "1a" or
// ""), or -1: read in place, for every pod of every pass.
std::int64_t CanonicalIndex(std::string_view digits) {
  if (digits.empty() || digits.size() > 18 || (digits.size() > 1 && digits[0] == '0')) return -1;
  std::int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

void JobPods::Put(kube::ObjectPtr pod, bool node_lost) { Put(MakePodView(std::move(pod), node_lost)); }

void JobPods::Put(PodView v) {
  const std::string& pod_name = v.Name();
  if (pod_name == partitioner_name_) {
    partitioner_ = std::move(v);
    return;
  }
  if (pod_name == launcher_name_) {
    launcher_ = std::move(v);
    return;
  }
  auto prefix = prefixes_.begin();
  for (const auto& [role, count] : wanted_) {
    const std::string& p = *prefix++;
    if (pod_name.rfind(p, 0) != 0) continue;
    const std::int64_t index = CanonicalIndex(std::string_view(pod_name).substr(p.size()));
    if (index >= 0 && index < count) {
      indexed_[role][index] = std::move(v);
      return;
    }
  }
  other_.push_back(std::move(v));
}

void JobPods::Forget(const std::string& pod_name) {
  if (partitioner_ && partitioner_->Name() == pod_name) partitioner_.reset();
  if (launcher_ && launcher_->Name() == pod_name) launcher_.reset();
  for (auto& [role, pods] : indexed_) {
    std::erase_if(pods, [&](const auto& entry) { return entry.second.Name() == pod_name; });
  }
  std::erase_if(other_, [&](const PodView& v) { return v.Name() == pod_name; });
}

const std::map<std::int64_t, PodView>& JobPods::Indexed(const std::string& role) const {
  static const std::map<std::int64_t, PodView> kNone;
  auto it = indexed_.find(role);
  return it == indexed_.end() ? kNone : it->second;
}

std::int64_t JobPods::Wanted(const std::string& role) const {
  auto it = wanted_.find(role);
  return it == wanted_.end() ? 0 : it->second;
}

bool JobPods::AllRunning(const std::string& role) const {
  const auto& pods = Indexed(role);
  if (static_cast<std::int64_t>(pods.size()) < Wanted(role)) return false;
  return std::all_of(pods.begin(), pods.end(), [](const auto& entry) { return entry.second.Running(); });
}

std::vector<PodView> JobPods::All() const {
  std::vector<PodView> out;
  std::size_t n = other_.size() + (partitioner_ ? 1 : 0) + (launcher_ ? 1 : 0);
  for (const auto& [role, pods] : indexed_) n += pods.size();
  out.reserve(n);
  if (partitioner_) out.push_back(*partitioner_);
  if (launcher_) out.push_back(*launcher_);
  for (const auto& [role, pods] : indexed_) {
    for (const auto& [index, pod] : pods) out.push_back(pod);
  }
  for (const auto& p : other_) out.push_back(p);
  return out;
}

}  // namespace dgl
