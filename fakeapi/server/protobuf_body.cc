// See protobuf_body.h. Protobuf wire format: each field a key (number << 3 | wire type) then a
// varint (type 0), eight bytes (type 1), a length-prefixed payload (type 2) or four bytes (type 5);
// maps are repeated entry messages {key = 1, value = 2}. The kinds are tables, not code: one row per
// field, so that adding a kind is adding its rows.
#include "fakeapi/server/protobuf_body.h"

#include "clock/clock.h"
#include "fakeapi/server/wire.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace fakeapi {

using json = kube::Json;

namespace {

enum class PbType { kString, kBytes, kBool, kInt32, kInt64, kTime, kMicroTime, kIntOrString, kStringMap, kBytesMap, kMessage };

struct PbMessage;
struct PbField {
  int number;
  const char* name;
  PbType type;
  bool repeated = false;
  bool pointer = false;  // a pointer in the Go type: kept whenever present, zero or not
  const PbMessage* message = nullptr;
};
struct PbMessage {
  const char* name;
  std::span<const PbField> fields;
};

// The rows: Field(number, name, type), Many (repeated), Pointer (held by pointer), Sub (a message).
namespace protobuf_kinds {

constexpr PbField Field(int n, const char* name, PbType t) { return {n, name, t}; }
constexpr PbField Many(int n, const char* name, PbType t) { return {n, name, t, true}; }
constexpr PbField Pointer(int n, const char* name, PbType t) { return {n, name, t, false, true}; }
constexpr PbField Sub(int n, const char* name, const PbMessage& m, bool repeated = false, bool pointer = false) {
  return {n, name, PbType::kMessage, repeated, pointer, &m};
}
using T = PbType;

// k8s.io/apimachinery pkg/apis/meta/v1
constexpr PbField kOwnerReferenceFields[] = {Field(5, "apiVersion", T::kString), Field(1, "kind", T::kString),
                                             Field(3, "name", T::kString),       Field(4, "uid", T::kString),
                                             Pointer(6, "controller", T::kBool), Pointer(7, "blockOwnerDeletion", T::kBool)};
constexpr PbMessage kOwnerReference{"OwnerReference", kOwnerReferenceFields};
constexpr PbField kObjectMetaFields[] = {
    Field(1, "name", T::kString),           Field(2, "generateName", T::kString),
    Field(3, "namespace", T::kString),      Field(4, "selfLink", T::kString),
    Field(5, "uid", T::kString),            Field(6, "resourceVersion", T::kString),
    Field(7, "generation", T::kInt64),      Field(8, "creationTimestamp", T::kTime),
    Pointer(9, "deletionTimestamp", T::kTime), Pointer(10, "deletionGracePeriodSeconds", T::kInt64),
    Field(11, "labels", T::kStringMap),     Field(12, "annotations", T::kStringMap),
    Sub(13, "ownerReferences", kOwnerReference, true), Many(14, "finalizers", T::kString)};
constexpr PbMessage kObjectMeta{"ObjectMeta", kObjectMetaFields};
constexpr PbField kSelectorRequirementFields[] = {Field(1, "key", T::kString), Field(2, "operator", T::kString),
                                                  Many(3, "values", T::kString)};
constexpr PbMessage kSelectorRequirement{"SelectorRequirement", kSelectorRequirementFields};
constexpr PbField kLabelSelectorFields[] = {Field(1, "matchLabels", T::kStringMap),
                                            Sub(2, "matchExpressions", kSelectorRequirement, true)};
constexpr PbMessage kLabelSelector{"LabelSelector", kLabelSelectorFields};
constexpr PbField kPreconditionsFields[] = {Pointer(1, "uid", T::kString), Pointer(2, "resourceVersion", T::kString)};
constexpr PbMessage kPreconditions{"Preconditions", kPreconditionsFields};
constexpr PbField kDeleteOptionsFields[] = {
    Pointer(1, "gracePeriodSeconds", T::kInt64), Sub(2, "preconditions", kPreconditions, false, true),
    Pointer(3, "orphanDependents", T::kBool),    Pointer(4, "propagationPolicy", T::kString),
    Many(5, "dryRun", T::kString),               Field(6, "ignoreStoreReadErrorWithClusterBreakingPotential", T::kBool)};
constexpr PbMessage kDeleteOptions{"DeleteOptions", kDeleteOptionsFields};

// k8s.io/api authorization/v1
constexpr PbField kSelectorAttributesFields[] = {Field(1, "rawSelector", T::kString),
                                                 Sub(2, "requirements", kSelectorRequirement, true)};
constexpr PbMessage kSelectorAttributes{"SelectorAttributes", kSelectorAttributesFields};
constexpr PbField kResourceAttributesFields[] = {
    Field(1, "namespace", T::kString), Field(2, "verb", T::kString),        Field(3, "group", T::kString),
    Field(4, "version", T::kString),   Field(5, "resource", T::kString),    Field(6, "subresource", T::kString),
    Field(7, "name", T::kString),      Sub(8, "fieldSelector", kSelectorAttributes, false, true),
    Sub(9, "labelSelector", kSelectorAttributes, false, true)};
constexpr PbMessage kResourceAttributes{"ResourceAttributes", kResourceAttributesFields};
constexpr PbField kNonResourceAttributesFields[] = {Field(1, "path", T::kString), Field(2, "verb", T::kString)};
constexpr PbMessage kNonResourceAttributes{"NonResourceAttributes", kNonResourceAttributesFields};
constexpr PbField kAccessReviewSpecFields[] = {Sub(1, "resourceAttributes", kResourceAttributes, false, true),
                                               Sub(2, "nonResourceAttributes", kNonResourceAttributes, false, true)};
constexpr PbMessage kAccessReviewSpec{"SelfSubjectAccessReviewSpec", kAccessReviewSpecFields};
constexpr PbField kAccessReviewFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "spec", kAccessReviewSpec)};
constexpr PbMessage kSelfSubjectAccessReview{"SelfSubjectAccessReview", kAccessReviewFields};
constexpr PbField kRulesReviewSpecFields[] = {Field(1, "namespace", T::kString)};
constexpr PbMessage kRulesReviewSpec{"SelfSubjectRulesReviewSpec", kRulesReviewSpecFields};
constexpr PbField kRulesReviewFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "spec", kRulesReviewSpec)};
constexpr PbMessage kSelfSubjectRulesReview{"SelfSubjectRulesReview", kRulesReviewFields};
// k8s.io/api authentication/v1 and v1beta1: the request carries only metadata.
constexpr PbField kSelfSubjectReviewFields[] = {Sub(1, "metadata", kObjectMeta)};
constexpr PbMessage kSelfSubjectReview{"SelfSubjectReview", kSelfSubjectReviewFields};

// k8s.io/api core/v1
constexpr PbField kObjectReferenceFields[] = {
    Field(1, "kind", T::kString), Field(2, "namespace", T::kString),       Field(3, "name", T::kString),
    Field(4, "uid", T::kString),  Field(5, "apiVersion", T::kString),      Field(6, "resourceVersion", T::kString),
    Field(7, "fieldPath", T::kString)};
constexpr PbMessage kObjectReference{"ObjectReference", kObjectReferenceFields};
constexpr PbField kLocalObjectReferenceFields[] = {Field(1, "name", T::kString)};
constexpr PbMessage kLocalObjectReference{"LocalObjectReference", kLocalObjectReferenceFields};
constexpr PbField kConfigMapFields[] = {Sub(1, "metadata", kObjectMeta), Pointer(4, "immutable", T::kBool),
                                        Field(2, "data", T::kStringMap), Field(3, "binaryData", T::kBytesMap)};
constexpr PbMessage kConfigMap{"ConfigMap", kConfigMapFields};
constexpr PbField kNamespaceSpecFields[] = {Many(1, "finalizers", T::kString)};
constexpr PbMessage kNamespaceSpec{"NamespaceSpec", kNamespaceSpecFields};
constexpr PbField kNamespaceFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "spec", kNamespaceSpec)};
constexpr PbMessage kNamespace{"Namespace", kNamespaceFields};
constexpr PbField kServiceAccountFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "secrets", kObjectReference, true),
                                             Sub(3, "imagePullSecrets", kLocalObjectReference, true),
                                             Pointer(4, "automountServiceAccountToken", T::kBool)};
constexpr PbMessage kServiceAccount{"ServiceAccount", kServiceAccountFields};
constexpr PbField kServicePortFields[] = {Field(1, "name", T::kString),       Field(2, "protocol", T::kString),
                                          Pointer(6, "appProtocol", T::kString), Field(3, "port", T::kInt32),
                                          Field(4, "targetPort", T::kIntOrString), Field(5, "nodePort", T::kInt32)};
constexpr PbMessage kServicePort{"ServicePort", kServicePortFields};
constexpr PbField kClientIpConfigFields[] = {Pointer(1, "timeoutSeconds", T::kInt32)};
constexpr PbMessage kClientIpConfig{"ClientIPConfig", kClientIpConfigFields};
constexpr PbField kSessionAffinityConfigFields[] = {Sub(1, "clientIP", kClientIpConfig, false, true)};
constexpr PbMessage kSessionAffinityConfig{"SessionAffinityConfig", kSessionAffinityConfigFields};
constexpr PbField kServiceSpecFields[] = {
    Sub(1, "ports", kServicePort, true),
    Field(2, "selector", T::kStringMap),
    Field(3, "clusterIP", T::kString),
    Many(18, "clusterIPs", T::kString),
    Field(4, "type", T::kString),
    Many(5, "externalIPs", T::kString),
    Field(7, "sessionAffinity", T::kString),
    Field(8, "loadBalancerIP", T::kString),
    Many(9, "loadBalancerSourceRanges", T::kString),
    Field(10, "externalName", T::kString),
    Field(11, "externalTrafficPolicy", T::kString),
    Field(12, "healthCheckNodePort", T::kInt32),
    Field(13, "publishNotReadyAddresses", T::kBool),
    Sub(14, "sessionAffinityConfig", kSessionAffinityConfig, false, true),
    Many(19, "ipFamilies", T::kString),
    Pointer(17, "ipFamilyPolicy", T::kString),
    Pointer(20, "allocateLoadBalancerNodePorts", T::kBool),
    Pointer(21, "loadBalancerClass", T::kString),
    Pointer(22, "internalTrafficPolicy", T::kString),
    Pointer(23, "trafficDistribution", T::kString)};
constexpr PbMessage kServiceSpec{"ServiceSpec", kServiceSpecFields};
constexpr PbField kServiceFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "spec", kServiceSpec)};
constexpr PbMessage kService{"Service", kServiceFields};
constexpr PbField kEventSourceFields[] = {Field(1, "component", T::kString), Field(2, "host", T::kString)};
constexpr PbMessage kEventSource{"EventSource", kEventSourceFields};
constexpr PbField kEventSeriesFields[] = {Field(1, "count", T::kInt32), Field(2, "lastObservedTime", T::kMicroTime)};
constexpr PbMessage kEventSeries{"EventSeries", kEventSeriesFields};
constexpr PbField kCoreEventFields[] = {
    Sub(1, "metadata", kObjectMeta),         Sub(2, "involvedObject", kObjectReference),
    Field(3, "reason", T::kString),          Field(4, "message", T::kString),
    Sub(5, "source", kEventSource),          Field(6, "firstTimestamp", T::kTime),
    Field(7, "lastTimestamp", T::kTime),     Field(8, "count", T::kInt32),
    Field(9, "type", T::kString),            Field(10, "eventTime", T::kMicroTime),
    Sub(11, "series", kEventSeries, false, true), Field(12, "action", T::kString),
    Sub(13, "related", kObjectReference, false, true), Field(14, "reportingComponent", T::kString),
    Field(15, "reportingInstance", T::kString)};
constexpr PbMessage kCoreEvent{"Event", kCoreEventFields};
constexpr PbField kBindingFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "target", kObjectReference)};
constexpr PbMessage kBinding{"Binding", kBindingFields};

// k8s.io/api events/v1, rbac/v1, coordination/v1, policy/v1
constexpr PbField kEventsV1EventFields[] = {
    Sub(1, "metadata", kObjectMeta),          Field(2, "eventTime", T::kMicroTime),
    Sub(3, "series", kEventSeries, false, true), Field(4, "reportingController", T::kString),
    Field(5, "reportingInstance", T::kString), Field(6, "action", T::kString),
    Field(7, "reason", T::kString),           Sub(8, "regarding", kObjectReference),
    Sub(9, "related", kObjectReference, false, true), Field(10, "note", T::kString),
    Field(11, "type", T::kString),            Sub(12, "deprecatedSource", kEventSource),
    Field(13, "deprecatedFirstTimestamp", T::kTime), Field(14, "deprecatedLastTimestamp", T::kTime),
    Field(15, "deprecatedCount", T::kInt32)};
constexpr PbMessage kEventsV1Event{"Event", kEventsV1EventFields};
constexpr PbField kPolicyRuleFields[] = {Many(1, "verbs", T::kString), Many(2, "apiGroups", T::kString),
                                         Many(3, "resources", T::kString), Many(4, "resourceNames", T::kString),
                                         Many(5, "nonResourceURLs", T::kString)};
constexpr PbMessage kPolicyRule{"PolicyRule", kPolicyRuleFields};
constexpr PbField kAggregationRuleFields[] = {Sub(1, "clusterRoleSelectors", kLabelSelector, true)};
constexpr PbMessage kAggregationRule{"AggregationRule", kAggregationRuleFields};
constexpr PbField kRoleFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "rules", kPolicyRule, true)};
constexpr PbMessage kRole{"Role", kRoleFields};
constexpr PbField kClusterRoleFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "rules", kPolicyRule, true),
                                          Sub(3, "aggregationRule", kAggregationRule, false, true)};
constexpr PbMessage kClusterRole{"ClusterRole", kClusterRoleFields};
constexpr PbField kSubjectFields[] = {Field(1, "kind", T::kString), Field(2, "apiGroup", T::kString),
                                      Field(3, "name", T::kString), Field(4, "namespace", T::kString)};
constexpr PbMessage kSubject{"Subject", kSubjectFields};
constexpr PbField kRoleRefFields[] = {Field(1, "apiGroup", T::kString), Field(2, "kind", T::kString),
                                      Field(3, "name", T::kString)};
constexpr PbMessage kRoleRef{"RoleRef", kRoleRefFields};
constexpr PbField kRoleBindingFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "subjects", kSubject, true),
                                          Sub(3, "roleRef", kRoleRef)};
constexpr PbMessage kRoleBinding{"RoleBinding", kRoleBindingFields};
constexpr PbField kLeaseSpecFields[] = {
    Pointer(1, "holderIdentity", T::kString), Pointer(2, "leaseDurationSeconds", T::kInt32),
    Pointer(3, "acquireTime", T::kMicroTime), Pointer(4, "renewTime", T::kMicroTime),
    Pointer(5, "leaseTransitions", T::kInt32), Pointer(6, "strategy", T::kString),
    Pointer(7, "preferredHolder", T::kString)};
constexpr PbMessage kLeaseSpec{"LeaseSpec", kLeaseSpecFields};
constexpr PbField kLeaseFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "spec", kLeaseSpec)};
constexpr PbMessage kLease{"Lease", kLeaseFields};
constexpr PbField kEvictionFields[] = {Sub(1, "metadata", kObjectMeta),
                                       Sub(2, "deleteOptions", kDeleteOptions, false, true)};
constexpr PbMessage kEviction{"Eviction", kEvictionFields};

// authentication.k8s.io/v1 TokenRequest (`kubectl create token`).
constexpr PbField kBoundObjectReferenceFields[] = {Field(1, "kind", T::kString), Field(2, "apiVersion", T::kString),
                                                   Field(3, "name", T::kString), Field(4, "uid", T::kString)};
constexpr PbMessage kBoundObjectReference{"BoundObjectReference", kBoundObjectReferenceFields};
constexpr PbField kTokenRequestSpecFields[] = {Many(1, "audiences", T::kString),
                                               Sub(3, "boundObjectRef", kBoundObjectReference, false, true),
                                               Pointer(4, "expirationSeconds", T::kInt64)};
constexpr PbMessage kTokenRequestSpec{"TokenRequestSpec", kTokenRequestSpecFields};
constexpr PbField kTokenRequestFields[] = {Sub(1, "metadata", kObjectMeta), Sub(2, "spec", kTokenRequestSpec)};
constexpr PbMessage kTokenRequest{"TokenRequest", kTokenRequestFields};

struct DecodableKind {
  const char* api_version;  // nullptr: any (DeleteOptions is registered in every group version)
  const char* kind;
  const PbMessage* message;
};
constexpr DecodableKind kDecodable[] = {
    {"authorization.k8s.io/v1", "SelfSubjectAccessReview", &kSelfSubjectAccessReview},
    {"authorization.k8s.io/v1", "SelfSubjectRulesReview", &kSelfSubjectRulesReview},
    {"authentication.k8s.io/v1", "SelfSubjectReview", &kSelfSubjectReview},
    {"authentication.k8s.io/v1beta1", "SelfSubjectReview", &kSelfSubjectReview},
    {"v1", "ConfigMap", &kConfigMap},
    {"v1", "Namespace", &kNamespace},
    {"v1", "ServiceAccount", &kServiceAccount},
    {"v1", "Service", &kService},
    {"v1", "Event", &kCoreEvent},
    {"v1", "Binding", &kBinding},
    {"events.k8s.io/v1", "Event", &kEventsV1Event},
    {"rbac.authorization.k8s.io/v1", "Role", &kRole},
    {"rbac.authorization.k8s.io/v1", "ClusterRole", &kClusterRole},
    {"rbac.authorization.k8s.io/v1", "RoleBinding", &kRoleBinding},
    {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &kRoleBinding},
    {"coordination.k8s.io/v1", "Lease", &kLease},
    {"policy/v1", "Eviction", &kEviction},
    {"authentication.k8s.io/v1", "TokenRequest", &kTokenRequest},
    {nullptr, "DeleteOptions", &kDeleteOptions},
};

}  // namespace protobuf_kinds

constexpr int kVarint = 0, kFixed64 = 1, kDelimited = 2, kFixed32 = 5;

// Reads the wire format of one message; every read checks what is left.
class ProtobufReader {
 public:
  explicit ProtobufReader(std::string_view in) : in_(in) {}
  bool AtEnd() const { return pos_ >= in_.size(); }
  // A base-128 varint of at most ten bytes.
  bool Varint(std::uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= in_.size()) return false;
      const auto byte = static_cast<unsigned char>(in_[pos_++]);
      *v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  }
  bool Delimited(std::string_view* out) {
    std::uint64_t n;
    if (!Varint(&n) || n > in_.size() - pos_) return false;
    *out = in_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Skip(int wire_type) {
    std::uint64_t ignored;
    std::string_view payload;
    switch (wire_type) {
      case kVarint: return Varint(&ignored);
      case kDelimited: return Delimited(&payload);
      case kFixed64: return Advance(8);
      case kFixed32: return Advance(4);
      default: return false;  // groups (3, 4) are not used by Kubernetes' messages
    }
  }

 private:
  bool Advance(std::size_t n) {
    if (n > in_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

kube::Status Malformed(const std::string& what) {
  return kube::Status::BadRequest("the body of the request could not be decoded: protobuf: " + what);
}

bool ValidUtf8(std::string_view s) {
  try {
    (void)json(std::string(s)).dump();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

// Calls `on_field(number, wire_type, reader)` for each field of a message; `on_field` must consume
// the field's value. A malformed key or value is an error naming `where`.
template <typename OnField>
kube::Status ForEachField(std::string_view bytes, const std::string& where, OnField on_field) {
  ProtobufReader in(bytes);
  while (!in.AtEnd()) {
    std::uint64_t key;
    if (!in.Varint(&key) || (key >> 3) == 0 || (key >> 3) > 536870911) return Malformed("a malformed field key in " + where);
    if (kube::Status s = on_field(static_cast<int>(key >> 3), static_cast<int>(key & 7), in); !s.ok()) return s;
  }
  return kube::Status::Ok();
}

// metav1.Time and MicroTime {seconds = 1, nanos = 2}; null for the zero time.
kube::Result<json> DecodeTime(std::string_view bytes, bool micro, const std::string& where) {
  std::int64_t seconds = 0, nanos = 0;
  kube::Status s = ForEachField(bytes, where, [&](int number, int wire, ProtobufReader& in) {
    std::uint64_t v;
    if (wire != kVarint) return in.Skip(wire) ? kube::Status::Ok() : Malformed("a truncated field in " + where);
    if (!in.Varint(&v)) return Malformed("a truncated varint in " + where);
    if (number == 1) seconds = static_cast<std::int64_t>(v);
    if (number == 2) nanos = static_cast<std::int32_t>(v);
    return kube::Status::Ok();
  });
  if (!s.ok()) return s;
  if (seconds == 0 && nanos == 0) return json(nullptr);
  // 9999-12-31T23:59:59Z; Go's encoding/json refuses a year past 9999 too.
  constexpr std::int64_t kLastSecond = 253402300799;
  if (seconds < 0 || seconds > kLastSecond || nanos < 0 || nanos > 999999999)
    return Malformed(where + " is not a time between 1970 and 9999");
  const kube::Micros t = seconds * kube::kSecond + nanos / 1000;
  return json(micro ? kube::FormatMicroTime(t) : kube::FormatTime(t));
}

// intstr.IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}.
kube::Result<json> DecodeIntOrString(std::string_view bytes, const std::string& where) {
  std::uint64_t type = 0, int_val = 0;
  std::string_view str_val;
  kube::Status s = ForEachField(bytes, where, [&](int number, int wire, ProtobufReader& in) {
    const bool ok = number == 1 && wire == kVarint   ? in.Varint(&type)
                    : number == 2 && wire == kVarint ? in.Varint(&int_val)
                    : number == 3 && wire == kDelimited ? in.Delimited(&str_val)
                                                        : in.Skip(wire);
    return ok ? kube::Status::Ok() : Malformed("a truncated field in " + where);
  });
  if (!s.ok()) return s;
  if (type != 1) return json(static_cast<std::int32_t>(int_val));
  if (!ValidUtf8(str_val)) return Malformed(where + " is not UTF-8");
  return json(std::string(str_val));
}

// A map entry {key = 1, value = 2}: strings, or bytes (base64) when `bytes_value`.
kube::Status DecodeMapEntry(std::string_view bytes, bool bytes_value, const std::string& where, json& map) {
  std::string_view key, value;
  kube::Status s = ForEachField(bytes, where, [&](int number, int wire, ProtobufReader& in) {
    const bool ok = number == 1 && wire == kDelimited   ? in.Delimited(&key)
                    : number == 2 && wire == kDelimited ? in.Delimited(&value)
                                                        : in.Skip(wire);
    return ok ? kube::Status::Ok() : Malformed("a truncated field in " + where);
  });
  if (!s.ok()) return s;
  if (!ValidUtf8(key) || (!bytes_value && !ValidUtf8(value))) return Malformed(where + " holds a string that is not UTF-8");
  map[std::string(key)] = bytes_value ? wire::Base64(value) : std::string(value);
  return kube::Status::Ok();
}

bool IsZero(const json& v) {
  return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()) || (v.is_boolean() && !v.get<bool>()) ||
         (v.is_number() && v == 0);
}

kube::Status DecodeMessage(const PbMessage& message, std::string_view bytes, json& out);

// One occurrence of `field`, of wire type `wire`, into `out` (the message's JSON object).
kube::Status DecodeField(const PbField& field, int wire, ProtobufReader& in, const std::string& where, json& out) {
  const bool scalar = field.type == PbType::kBool || field.type == PbType::kInt32 || field.type == PbType::kInt64;
  if (wire != (scalar ? kVarint : kDelimited)) return Malformed(where + " has wire type " + std::to_string(wire));
  json value;
  std::uint64_t number = 0;
  std::string_view payload;
  if (scalar ? !in.Varint(&number) : !in.Delimited(&payload)) return Malformed("a truncated value in " + where);
  switch (field.type) {
    case PbType::kBool: value = number != 0; break;
    case PbType::kInt32: value = static_cast<std::int32_t>(number); break;
    case PbType::kInt64: value = static_cast<std::int64_t>(number); break;
    case PbType::kString:
      if (!ValidUtf8(payload)) return Malformed(where + " is not UTF-8");
      value = std::string(payload);
      break;
    case PbType::kBytes: value = wire::Base64(payload); break;
    case PbType::kStringMap:
    case PbType::kBytesMap:
      if (!out[field.name].is_object()) out[field.name] = json::object();
      return DecodeMapEntry(payload, field.type == PbType::kBytesMap, where, out[field.name]);
    case PbType::kTime:
    case PbType::kMicroTime: {
      auto t = DecodeTime(payload, field.type == PbType::kMicroTime, where);
      if (!t.ok()) return t.status();
      value = std::move(t.value());
      break;
    }
    case PbType::kIntOrString: {
      auto v = DecodeIntOrString(payload, where);
      if (!v.ok()) return v.status();
      value = std::move(v.value());
      break;
    }
    case PbType::kMessage:
      value = json::object();
      if (kube::Status s = DecodeMessage(*field.message, payload, value); !s.ok()) return s;
      break;
  }
  if (field.repeated) {
    out[field.name].push_back(std::move(value));
  } else if (field.pointer ? !value.is_null() : !IsZero(value)) {
    out[field.name] = std::move(value);
  } else {
    out.erase(field.name);  // a later zero replaces an earlier value, as the last occurrence wins
  }
  return kube::Status::Ok();
}

kube::Status DecodeMessage(const PbMessage& message, std::string_view bytes, json& out) {
  return ForEachField(bytes, message.name, [&](int number, int wire, ProtobufReader& in) {
    for (const PbField& field : message.fields)
      if (field.number == number) return DecodeField(field, wire, in, std::string(message.name) + "." + field.name, out);
    return in.Skip(wire) ? kube::Status::Ok() : Malformed("a truncated unknown field in " + std::string(message.name));
  });
}

// runtime.Unknown {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3, contentType = 4}.
struct Envelope {
  std::string_view api_version, kind, raw, content_encoding, content_type;
};

kube::Result<Envelope> DecodeEnvelope(std::string_view unknown) {
  Envelope e;
  kube::Status s = ForEachField(unknown, "runtime.Unknown", [&](int number, int wire, ProtobufReader& in) {
    if (wire != kDelimited || number > 4) return in.Skip(wire) ? kube::Status::Ok() : Malformed("a truncated runtime.Unknown");
    std::string_view payload;
    if (!in.Delimited(&payload)) return Malformed("a truncated runtime.Unknown");
    if (number == 2) e.raw = payload;
    if (number == 3) e.content_encoding = payload;
    if (number == 4) e.content_type = payload;
    if (number != 1) return kube::Status::Ok();
    return ForEachField(payload, "runtime.TypeMeta", [&](int n, int w, ProtobufReader& r) {
      std::string_view* to = w == kDelimited && n == 1 ? &e.api_version : w == kDelimited && n == 2 ? &e.kind : nullptr;
      const bool ok = to ? r.Delimited(to) : r.Skip(w);
      return ok ? kube::Status::Ok() : Malformed("a truncated runtime.TypeMeta");
    });
  });
  if (!s.ok()) return s;
  return e;
}

}  // namespace

std::string DecodableProtobufKinds() {
  std::string out;
  for (const auto& k : protobuf_kinds::kDecodable) {
    if (!out.empty()) out += ", ";
    out += k.api_version ? std::string(k.api_version) + " " + k.kind : std::string(k.kind);
  }
  return out;
}

kube::Result<json> DecodeProtobufBody(std::string_view body) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, kMagic.size()) != kMagic)
    return Malformed("the body does not start with the protobuf envelope's bytes \"k8s\\x00\"");
  auto envelope = DecodeEnvelope(body.substr(kMagic.size()));
  if (!envelope.ok()) return envelope.status();
  const Envelope& e = *envelope;
  if (!e.content_encoding.empty() || (!e.content_type.empty() && e.content_type != kProtobufContentType))
    return kube::Status::UnsupportedMediaType("the body of the request was in an unknown format - the envelope's raw object is " +
                                              std::string(e.content_type.empty() ? "protobuf" : e.content_type) +
                                              (e.content_encoding.empty() ? "" : " in " + std::string(e.content_encoding)) +
                                              "; accepted media types include: application/json, application/yaml");
  for (const auto& k : protobuf_kinds::kDecodable) {
    if (e.kind != k.kind || (k.api_version && e.api_version != k.api_version)) continue;
    json out = json::object();
    if (kube::Status s = DecodeMessage(*k.message, e.raw, out); !s.ok()) return s;
    if (!ValidUtf8(e.api_version)) return Malformed("runtime.TypeMeta.apiVersion is not UTF-8");
    out["apiVersion"] = std::string(e.api_version);
    out["kind"] = std::string(e.kind);
    return out;
  }
  const bool nameable = e.kind.size() <= 253 && ValidUtf8(e.kind) && ValidUtf8(e.api_version) && e.api_version.size() <= 253;
  return kube::Status::UnsupportedMediaType(
      "the body of the request was in an unknown format - accepted media types include: application/json, "
      "application/yaml; application/vnd.kubernetes.protobuf only for " + DecodableProtobufKinds() +
      (nameable ? ", not " + std::string(e.api_version) + " " + std::string(e.kind) : std::string()));
}

}  // namespace fakeapi
