// The support objects of a reconcile pass: the ConfigMap with the hand-off files, RBAC, the
// headless Service and the PodGroup, created when missing and corrected when the fields the
// operator owns drift. Objects that are not the job's (no controller reference to it) are left alone.
// A pass that leaves every one of them as it should be (found in place, or written and returned with
// the owned fields asked for) is remembered by the Reconciler (their resourceVersions, with the
// job's uid, generation, stage and pod addresses they were checked against); the next pass with
// the same inputs skips them while none has a new resourceVersion, and a pass where only the pod
// addresses moved (pods getting their IPs, one by one) checks the ConfigMap alone, the one object
// built from them.
#include "operator/controller/reconcile_pass.h"

#include "operator/controller/builders.h"
#include "operator/controller/pod_state.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <utility>

namespace dgl {

using kube::ObjectPtr;
using kube::Status;
using json = kube::Json;

namespace {

// The value at an owned field's path ("data", or "spec.x": one level deep is enough for what we
// own) in `obj`; null when absent.
const json& OwnedField(const json& obj, std::string_view field) {
  static const json kAbsent;
  auto at = [](const json& parent, std::string_view key) -> const json& {
    if (!parent.is_object()) return kAbsent;
    auto it = parent.find(key);
    return it == parent.end() ? kAbsent : *it;
  };
  auto dot = field.find('.');
  if (dot == std::string_view::npos) return at(obj, field);
  return at(at(obj, field.substr(0, dot)), field.substr(dot + 1));
}

}  // namespace

// Most passes find every object as it should be: the owned fields are built alone (no metadata,
// no owner reference) and compared in place; the whole object is built only to create it, and the
// stored one copied only when an owned field drifted.
Status ReconcilePass::EnsureObject(const std::string& resource, const std::string& obj_name, const json& owned,
                                   const std::vector<const char*>& owned_fields, const std::function<json()>& build) {
  const auto as_asked = [&](const json& obj) {
    return std::all_of(owned_fields.begin(), owned_fields.end(),
                       [&](const char* field) { return OwnedField(obj, field) == OwnedField(owned, field); });
  };
  // Written: as the server returned it with the owned fields asked for, a pass with the same inputs
  // would leave it as it is while it keeps this resourceVersion.
  const auto written = [&](const kube::Result<ObjectPtr>& result) {
    if (result.ok() && as_asked(**result)) {
      in_place_.emplace_back(resource, obj_name, kube::ResourceVersionOf(**result));
    } else {
      support_unvouched_ = true;
    }
  };
  ObjectPtr current = r_.reader_.Get(resource, ns_, obj_name);
  if (current == nullptr) {
    auto created = r_.client_.Create(resource, build(), ns_);
    written(created);  // one that existed all along (AlreadyExists) is checked by the next pass
    if (created.ok() || created.status().IsAlreadyExists()) return Status::Ok();
    return created.status();
  }
  // Left as it is (terminating, not ours, or as it should be): while it keeps this resourceVersion,
  // a pass with the same inputs would leave it again.
  auto in_place = [&] {
    in_place_.emplace_back(resource, obj_name, kube::ResourceVersionOf(*current));
    return Status::Ok();
  };
  if (Terminating(*current)) return in_place();
  const json* owner = kube::ControllerRefOf(*current);
  if (owner == nullptr || StringField(*owner, {"uid"}) != kube::UidOf(*job_)) return in_place();  // not ours
  if (as_asked(*current)) return in_place();
  json next = *current;
  for (const char* field : owned_fields) {
    std::string_view f(field);
    auto dot = f.find('.');
    json& have = dot == std::string_view::npos ? next[field] : next[std::string(f.substr(0, dot))][std::string(f.substr(dot + 1))];
    const json& want = OwnedField(owned, field);
    if (have != want) have = want;
  }
  auto updated = r_.client_.Update(resource, std::move(next));
  written(updated);
  return updated.status();
}

// An object the operator only creates (it owns none of its fields): looked up by name, built only
// when missing.
Status ReconcilePass::EnsureCreated(const std::string& resource, const std::string& obj_name,
                                    const std::function<json()>& build) {
  return EnsureObject(resource, obj_name, json::object(), {}, build);
}

// `workers_stage`: the workers (servers, samplers, trainers) are wanted now, so the hostfile names
// every one of them, with an empty IP column until it has one (the launcher's watcher-loop reads the
// file once and must know whom to wait for). Depending only on the stage and the IPs keeps a second
// reconcile from rewriting the ConfigMap just because this one created the pods.
PodAddresses ReconcilePass::Addresses(bool workers_stage) const {
  PodAddresses a;
  auto ip_of = [](const std::optional<PodView>& p) -> std::optional<std::string> {
    if (!p || p->terminating || p->Ip().empty()) return std::nullopt;
    return p->Ip();
  };
  a.partitioner = ip_of(pods_.partitioner());
  a.partitioner_wanted = PartitionerPod();
  a.launcher = ip_of(pods_.launcher());
  for (const auto& [role, wanted] : pods_.wanted()) {
    RoleAddresses& r = a.Role(role);
    for (const auto& [i, p] : pods_.Indexed(role)) {
      if (!p.terminating && !p.Ip().empty() && p.phase != "Failed") r.ips[i] = p.Ip();
    }
    if (!workers_stage) continue;
    for (std::int64_t i = 0; i < wanted; ++i) {
      if (!r.ips.count(i)) r.without_ip.insert(i);
    }
  }
  return a;
}

// The gang: every pod of the current stage.
std::int64_t ReconcilePass::StageSize(bool workers_stage) const {
  if (auto min = GetSchedulingInt(*job_, "minAvailable")) return *min;
  if (mode_ == PartitionMode::kSkip) return 1;
  if (mode_ == PartitionMode::kDistParMetis || workers_stage) {
    std::int64_t pods = 1;
    for (const auto& [role, wanted] : pods_.wanted()) pods += wanted;
    return pods;
  }
  return PartitionerPod() ? 2 : 1;  // partitioner + launcher, or the launcher partitioning
}

Status ReconcilePass::EnsureSupportObjects(bool workers_stage) {
  PodAddresses addresses = Addresses(workers_stage);
  const std::string key = ns_ + "/" + name_;
  const json* generation = FindField(*job_, {"metadata", "generation"});
  if (generation == nullptr || !generation->is_number_integer()) {
    // Without a generation a change of spec cannot be told: every pass checks everything.
    r_.support_in_place_.erase(key);
    return EnsureEachSupportObject(workers_stage, addresses);
  }
  const std::string& uid = kube::UidOf(*job_);
  const std::int64_t gen = generation->get<std::int64_t>();
  auto memo = r_.support_in_place_.find(key);
  if (memo != r_.support_in_place_.end() && memo->second.uid == uid && memo->second.generation == gen &&
      memo->second.workers_stage == workers_stage) {
    Reconciler::SupportInPlace& m = memo->second;
    const auto unchanged = [&](const auto& o) {
      ObjectPtr current = r_.reader_.Get(std::get<0>(o), ns_, std::get<1>(o));
      return current != nullptr && kube::ResourceVersionOf(*current) == std::get<2>(o);
    };
    const auto is_config = [](const auto& o) { return std::get<0>(o) == "configmaps"; };
    const bool others_unchanged =
        std::all_of(m.objects.begin(), m.objects.end(), [&](const auto& o) { return is_config(o) || unchanged(o); });
    if (others_unchanged) {
      const auto config = std::find_if(m.objects.begin(), m.objects.end(), is_config);
      if (m.addresses == addresses && config != m.objects.end() && unchanged(*config)) return Status::Ok();
      // Only the ConfigMap depends on the addresses: the rest, unchanged against the same uid,
      // generation and stage, is as a full check would leave it (and it would write nothing).
      in_place_.clear();
      support_unvouched_ = false;
      Status s = EnsureConfigMap(addresses);
      if (s.ok() && !support_unvouched_ && in_place_.size() == 1) {
        if (config != m.objects.end()) *config = std::move(in_place_.front());
        else m.objects.insert(m.objects.begin(), std::move(in_place_.front()));
        m.addresses = std::move(addresses);
      } else {
        r_.support_in_place_.erase(memo);
      }
      return s;
    }
  }
  in_place_.clear();
  support_unvouched_ = false;
  Status s = EnsureEachSupportObject(workers_stage, addresses);
  if (s.ok() && !support_unvouched_) {
    r_.support_in_place_[key] = {uid, gen, workers_stage, std::move(addresses), std::move(in_place_)};
  } else {
    r_.support_in_place_.erase(key);
  }
  return s;
}

Status ReconcilePass::EnsureConfigMap(const PodAddresses& addresses) {
  return EnsureObject("configmaps", ConfigMapName(name_), {{"data", BuildConfigData(*job_, addresses)}}, {"data"},
                      [&] { return BuildConfigMap(*job_, addresses); });
}

Status ReconcilePass::EnsureEachSupportObject(bool workers_stage, const PodAddresses& addresses) {
  if (Status s = EnsureConfigMap(addresses); !s.ok()) return s;
  if (mode_ != PartitionMode::kSkip) {
    for (const char* role : {kRoleLauncher, kRolePartitioner}) {
      if (std::string_view(role) == kRolePartitioner && !PartitionerPod()) continue;
      const std::string rbac_name = name_ + "-" + role;  // the builders' name of the role's RBAC
      if (Status s = EnsureCreated("serviceaccounts", rbac_name, [&] { return BuildServiceAccount(*job_, role); });
          !s.ok()) {
        return s;
      }
      if (Status s = EnsureObject("roles", rbac_name, {{"rules", BuildRoleRules(*job_, role)}}, {"rules"},
                                  [&] { return BuildRole(*job_, role); });
          !s.ok()) {
        return s;
      }
      if (Status s = EnsureCreated("rolebindings", rbac_name, [&] { return BuildRoleBinding(*job_, role); }); !s.ok()) {
        return s;
      }
    }
    // One headless Service per role that serves DGL.
    for (const char* role : {kRoleWorker, kRoleServer}) {
      if (pods_.Wanted(role) == 0) continue;
      if (Status s = EnsureObject("services", RoleServiceName(name_, role), {{"spec", BuildRoleServiceSpec(*job_, role)}},
                                  {"spec.ports", "spec.selector"}, [&] { return BuildRoleService(*job_, role); });
          !s.ok()) {
        return s;
      }
    }
  }
  if (r_.options_.build.gang_scheduling) {
    const std::int64_t min_member = StageSize(workers_stage);
    if (Status s = EnsureObject("podgroups", name_, {{"spec", BuildPodGroupSpec(*job_, min_member)}}, {"spec.minMember"},
                                [&] { return BuildPodGroup(*job_, min_member); });
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace dgl
