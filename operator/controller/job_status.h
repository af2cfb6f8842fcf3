// JobStatus: the status a reconcile pass builds for a DGLJob, starting from the stored one: the
// phase with exactly its condition True, the other conditions kept (a condition that never held is
// not listed), completionTime on the first terminal phase, and the Events the changes call for,
// queued until the status they describe is stored. No API calls: the pass writes it.
#pragma once

#include "fakeapi/client/clock.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dgl {

class JobPods;

class JobStatus {
 public:
  struct Event {
    std::string type, reason, message;
  };

  JobStatus(nlohmann::json stored, kube::Micros now);

  nlohmann::json& value() { return status_; }
  const nlohmann::json& value() const { return status_; }
  std::string Phase() const;

  // Sets condition `type` (lastTransitionTime only when its status changes; a False condition
  // that was never listed stays unlisted).
  void SetCondition(const std::string& type, bool true_status, const std::string& reason, const std::string& message);
  // Moves to `phase`: its condition True, the other phase conditions False, an Event on change.
  void SetPhase(const std::string& phase, const std::string& reason, const std::string& message);
  void Fail(const std::string& reason, const std::string& message);
  bool HasCondition(const std::string& type) const;
  // The reason of condition `type`; "" when absent.
  std::string ConditionReason(const std::string& type) const;

  void AddEvent(const std::string& type, const std::string& reason, const std::string& message);
  std::vector<Event> TakeEvents();

  // Whether the status differs from the stored one (lastReconcileTime aside).
  bool Changed() const;
  // The status as now stored.
  void Stored(const nlohmann::json& status);

 private:
  nlohmann::json stored_;
  nlohmann::json status_;
  kube::Micros now_;
  std::vector<Event> events_;
};

}  // namespace dgl
