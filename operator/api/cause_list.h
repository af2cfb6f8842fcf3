// CauseList collects validation problems as Kubernetes StatusCauses, one per field, in the wording
// of k8s.io/apimachinery's field.Error types ("Required value", "Invalid value: 0: must be >= 1",
// "Unsupported value: ..."), and offers typed reads of untrusted JSON that report a wrong type as a
// cause instead of throwing.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"
#include "operator/api/json_fields.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dgl {

class CauseList {
 public:
  using json = kube::Json;

  void Required(const std::string& path, const std::string& detail = "");
  void Invalid(const std::string& path, const json& value, const std::string& detail);
  void TypeInvalid(const std::string& path, const json& value, const std::string& type);
  void NotSupported(const std::string& path, const json& value, const std::string& supported);
  void Forbidden(const std::string& path, const std::string& detail);
  std::vector<kube::StatusCause> Take() { return std::move(causes_); }

  // Typed reads: nullptr/nullopt both when absent and when of the wrong type (then with a cause).
  const json* Object(const json& parent, const std::string& key, const std::string& path, bool required);
  const json* Array(const json& parent, const std::string& key, const std::string& path, bool required);
  const std::string* String(const json& parent, const std::string& key, const std::string& path, bool required);
  std::optional<std::int64_t> Int(const json& parent, const std::string& key, const std::string& path, bool required);
  // An integer >= minimum.
  std::optional<std::int64_t> IntAtLeast(const json& parent, const std::string& key, const std::string& path,
                                         std::int64_t minimum, bool required = false);
  template <std::size_t N>
  const std::string* Enum(const json& parent, const std::string& key, const std::string& path,
                          const char* const (&values)[N]) {
    const std::string* s = String(parent, key, path, false);
    if (s != nullptr && !fields::OneOf(*s, values)) {
      NotSupported(path, *fields::Member(parent, key), fields::SupportedValues(values));
      return nullptr;
    }
    return s;
  }

 private:
  void Add(const char* type, const std::string& path, std::string message);
  std::vector<kube::StatusCause> causes_;
};

}  // namespace dgl
