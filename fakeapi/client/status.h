// A Status is the outcome of an API call: OK, or a Kubernetes-style error with an HTTP code, a
// CamelCase reason and, for validation errors, one cause per offending field. Errors are values:
// nothing in fakeapi throws across its interface.
#pragma once

#include "fakeapi/client/json.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kube {

using json = kube::Json;

// One offending field of an Invalid error, as in metav1.StatusCause.
struct StatusCause {
  std::string type;     // e.g. "FieldValueInvalid", "FieldValueRequired", "FieldValueNotSupported"
  std::string field;    // field path, e.g. "spec.dglReplicaSpecs.Worker.replicas"
  std::string message;  // e.g. "Invalid value: 0: must be >= 1"
  bool operator==(const StatusCause&) const = default;
};

class Status {
 public:
  Status() = default;  // OK

  static Status Ok() { return Status(); }
  static Status NotFound(const std::string& resource, const std::string& name);
  static Status AlreadyExists(const std::string& resource, const std::string& name);
  static Status Conflict(const std::string& resource, const std::string& name, const std::string& why);
  static Status Invalid(const std::string& kind, const std::string& name, std::vector<StatusCause> causes);
  static Status Expired(const std::string& message);
  static Status BadRequest(const std::string& message);
  static Status Forbidden(const std::string& message);
  // 405, 406 and 415 carry an empty `details` object, as kube-apiserver's generic responses do; so
  // does any Status whose details were set (even to nothing) or read from JSON that had them.
  static Status MethodNotAllowed(const std::string& message);
  static Status Timeout(const std::string& message);
  static Status Internal(const std::string& message);
  static Status TooLarge(const std::string& message);
  static Status UnsupportedMediaType(const std::string& message);
  static Status NotAcceptable(const std::string& message);
  // 429, with details.retryAfterSeconds (kube-apiserver's max-in-flight and storage limits).
  static Status TooManyRequests(const std::string& message, int retry_after_seconds = 1);
  // 504 Timeout for a resourceVersion newer than the server has: "Too large resource version: N,
  // current: C", cause ResourceVersionTooLarge, as kube-apiserver's watch cache answers.
  static Status TooLargeResourceVersion(std::int64_t wanted, std::int64_t current);

  bool ok() const { return code_ == 200; }
  int code() const { return code_; }
  // "" when ok, else NotFound, AlreadyExists, Conflict, Invalid, Expired, BadRequest, Forbidden,
  // MethodNotAllowed, Timeout, InternalError, RequestEntityTooLarge, UnsupportedMediaType,
  // NotAcceptable, TooManyRequests, or "Unknown" for a Status without a reason (its JSON then has
  // none, as kube-apiserver's StatusReasonUnknown).
  const std::string& reason() const { return reason_; }
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }
  bool IsNotFound() const { return reason_ == "NotFound"; }
  bool IsConflict() const { return reason_ == "Conflict"; }
  bool IsAlreadyExists() const { return reason_ == "AlreadyExists"; }
  bool IsExpired() const { return reason_ == "Expired"; }
  bool IsInvalid() const { return reason_ == "Invalid"; }
  bool IsTimeout() const { return reason_ == "Timeout"; }
  bool HasCause(const std::string& type) const;

  // A copy with a details member set ("retryAfterSeconds", "uid", ...).
  Status WithDetail(const std::string& key, json value) const;
  // A copy with a ListMeta member set: metadata.continue on an expired continue token.
  Status WithListMeta(const std::string& key, json value) const;

  // The metav1.Status object a real API server returns (kind Status, status Failure, ...).
  json ToJson() const;
  static Status FromJson(const json& j);
  std::string ToString() const;  // "409 Conflict: ..." for logs and test failures

 private:
  Status(int code, std::string reason, std::string message) : code_(code), reason_(std::move(reason)), message_(std::move(message)) {}
  static Status WithEmptyDetails(Status s);
  int code_ = 200;
  std::string reason_;
  std::string message_;
  json details_;  // name, group, kind, uid, retryAfterSeconds of the object concerned
  json list_meta_;  // metadata of the Status (ListMeta), when not empty
  std::vector<StatusCause> causes_;
};

// A value or the Status explaining its absence.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}                  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}          // NOLINT: implicit by design
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  const T& value() const& { return value_; }
  T& value() & { return value_; }
  T&& value() && { return std::move(value_); }
  const T& operator*() const { return value_; }
  const T* operator->() const { return &value_; }

 private:
  Status status_;
  T value_{};
};

}  // namespace kube
