// Type-checked reads of untrusted DGLJob JSON (user manifests, API requests), shared by conversion,
// defaulting, validation and the typed accessors of operator/api. Nothing here throws: a member of
// the wrong type or a null reads as absent, and callers decide whether that is a problem.
#pragma once

#include "fakeapi/client/json.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgl::fields {

using json = kube::Json;

// A member of an object, or nullptr when `j` is not an object, the key is absent or the value is
// null (null means "unset", as in a merge patch).
const json* Member(const json& j, std::string_view key);
json* MutableMember(json& j, std::string_view key);
bool Has(const json& j, std::string_view key);

// Integers, and floats with an integral value (YAML and JSON writers differ on "2" vs "2.0").
std::optional<std::int64_t> AsInt(const json& v);
const std::string* AsString(const json* v);

// A non-negative decimal integer written as digits only; nullopt otherwise (or when absurdly long).
std::optional<std::int64_t> ParseDigits(std::string_view text);
// A whole-number resource quantity (GPUs): 8 or "8". nullopt for anything else.
std::optional<std::int64_t> WholeQuantity(const json& v);

// The value as kubectl prints it in an error: strings quoted, numbers bare. Never throws (invalid
// UTF-8 is replaced) and stays short.
std::string Show(const json& v);
std::string Quoted(std::string_view s);

template <std::size_t N>
std::string SupportedValues(const char* const (&values)[N]) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += ", ";
    out += Quoted(values[i]);
  }
  return out;
}

template <std::size_t N>
bool OneOf(std::string_view s, const char* const (&values)[N]) {
  for (const char* v : values) {
    if (s == v) return true;
  }
  return false;
}

// spec.dglReplicaSpecs.<type> when it is an object, else nullptr.
const json* ReplicaSpec(const json& job, std::string_view type);
// <replica spec>.template.spec.containers when it is an array, else nullptr.
const json* Containers(const json* replica_spec);
// The first container of <replica spec>.template.spec.containers when it is an object, else nullptr.
const json* FirstContainer(const json* replica_spec);
// The whole-number nvidia.com/gpu limit of the first container of the replica that sets one.
std::optional<std::int64_t> GpuLimit(const json& job, const std::string& type);

// spec.<path...> read as an integer; nullopt when absent or not an integer.
std::optional<std::int64_t> SpecInt(const json& job, const std::vector<std::string>& path);

}  // namespace dgl::fields
