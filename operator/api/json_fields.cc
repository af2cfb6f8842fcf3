#include "operator/api/json_fields.h"

#include "operator/api/types.h"

#include <cmath>
#include <limits>

namespace dgl::fields {

const json* Member(const json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

json* MutableMember(json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

bool Has(const json& j, std::string_view key) { return Member(j, key) != nullptr; }

std::optional<std::int64_t> AsInt(const json& v) {
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::numeric_limits<std::int64_t>::max();
    }
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) {
      return static_cast<std::int64_t>(d);
    }
  }
  return std::nullopt;
}

const std::string* AsString(const json* v) {
  return v != nullptr && v->is_string() ? v->get_ptr<const std::string*>() : nullptr;
}

std::optional<std::int64_t> ParseDigits(std::string_view text) {
  if (text.empty() || text.size() > 15) return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::optional<std::int64_t> WholeQuantity(const json& v) {
  if (v.is_string()) return ParseDigits(v.get_ref<const std::string&>());
  auto n = AsInt(v);
  if (n && *n >= 0) return n;
  return std::nullopt;
}

std::string Show(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  constexpr std::size_t kMax = 80;
  if (s.size() > kMax) s = s.substr(0, kMax) + "...";
  return s;
}

std::string Quoted(std::string_view s) { return Show(json(std::string(s))); }

const json* ReplicaSpec(const json& job, std::string_view type) {
  const json* spec = Member(job, "spec");
  if (spec == nullptr) return nullptr;
  const json* replicas = Member(*spec, "dglReplicaSpecs");
  if (replicas == nullptr) return nullptr;
  const json* replica = Member(*replicas, type);
  return replica != nullptr && replica->is_object() ? replica : nullptr;
}

const json* Containers(const json* replica_spec) {
  if (replica_spec == nullptr) return nullptr;
  const json* tmpl = Member(*replica_spec, "template");
  if (tmpl == nullptr) return nullptr;
  const json* pod_spec = Member(*tmpl, "spec");
  if (pod_spec == nullptr) return nullptr;
  const json* containers = Member(*pod_spec, "containers");
  return containers != nullptr && containers->is_array() ? containers : nullptr;
}

const json* FirstContainer(const json* replica_spec) {
  const json* containers = Containers(replica_spec);
  if (containers == nullptr || containers->empty() || !(*containers)[0].is_object()) return nullptr;
  return &(*containers)[0];
}

std::optional<std::int64_t> GpuLimit(const json& job, const std::string& type) {
  const json* containers = Containers(ReplicaSpec(job, type));
  if (containers == nullptr) return std::nullopt;
  for (const json& container : *containers) {
    const json* resources = Member(container, "resources");
    const json* limits = resources != nullptr ? Member(*resources, "limits") : nullptr;
    const json* gpus = limits != nullptr ? Member(*limits, kGpuResource) : nullptr;
    if (gpus == nullptr) continue;
    if (auto n = WholeQuantity(*gpus)) return n;
  }
  return std::nullopt;
}

std::optional<std::int64_t> SpecInt(const json& job, const std::vector<std::string>& path) {
  const json* node = Member(job, "spec");
  for (const std::string& key : path) {
    if (node == nullptr) return std::nullopt;
    node = Member(*node, key);
  }
  return node != nullptr ? AsInt(*node) : std::nullopt;
}

}  // namespace dgl::fields
