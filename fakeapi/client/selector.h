// Label and field selectors with the syntax and semantics of k8s.io/apimachinery.
//
// Label selectors: comma-separated requirements, all of which must hold:
//   key=value, key==value, key!=value, key in (a,b), key notin (a,b), key, !key
// ("!=" and "notin" also match objects without the key, as in Kubernetes; an empty item of a set,
// as in "(a,)" or "()", is the empty value.)
// Field selectors: key=value, key==value, key!=value on a fixed set of fields per resource.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kube {

class LabelSelector {
 public:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  struct Requirement {
    std::string key;
    Op op;
    std::set<std::string> values;
  };

  // Parses the string form; BadRequest with the offending text on a syntax error.
  static Result<LabelSelector> Parse(std::string_view text);
  // From a metav1.LabelSelector object ({matchLabels, matchExpressions}).
  static Result<LabelSelector> FromJson(const kube::Json& selector);

  bool Empty() const { return requirements_.empty(); }
  // `labels` is metadata.labels (may be null or missing).
  bool Matches(const kube::Json& labels) const;
  const std::vector<Requirement>& requirements() const { return requirements_; }
  // If the selector pins `key` to one value with = or in (v), that value.
  std::optional<std::string> ExactValue(std::string_view key) const;
  std::string ToString() const;

 private:
  std::vector<Requirement> requirements_;
};

class FieldSelector {
 public:
  struct Requirement {
    std::string field;  // "metadata.name", "spec.nodeName", ...
    bool equals;        // false for !=
    std::string value;
  };

  // Parses and checks every field is supported for `plural` (e.g. "pods"); BadRequest otherwise, in
  // kube-apiserver's words: "\"spec.foo\" is not a known field selector: only \"metadata.name\",
  // \"metadata.namespace\"" for the built-in kinds without field selectors of their own (configmaps,
  // serviceaccounts, leases, the RBAC kinds), "field label not supported: spec.foo" for the others.
  static Result<FieldSelector> Parse(std::string_view text, std::string_view plural);

  bool Empty() const { return requirements_.empty(); }
  bool Matches(const kube::Json& object) const;
  const std::vector<Requirement>& requirements() const { return requirements_; }
  // If the selector pins `field` with =, that value.
  std::optional<std::string> ExactValue(std::string_view field) const;

  // The value of a selectable field in an object, as the API server compares it ("" if absent;
  // booleans as "true"/"false").
  static std::string FieldValue(const kube::Json& object, std::string_view field);
  // Whether `field` is selectable on `plural`.
  static bool Supported(std::string_view plural, std::string_view field);

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace kube
