// JobStatus: the status a reconcile pass builds for a DGLJob, starting from the stored one: the
// phase with exactly its condition True, the other conditions kept (a condition that never held is
// not listed), completionTime on the first terminal phase, and the Events the changes call for,
// queued until the status they describe is stored. No API calls: the pass writes it.
//
// The stored status is read in place from the job object that holds it (kept alive here), not
// copied: a pass makes one copy, the one it edits, and hands that copy to the write.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/json.h"

#include <string>
#include <vector>

namespace dgl {

class JobPods;

class JobStatus {
 public:
  struct Event {
    std::string type, reason, message;
  };

  // From the stored job: its status (an empty one when it has none or it is not an object).
  JobStatus(kube::ObjectPtr job, kube::Micros now);
  // From a status on its own.
  JobStatus(kube::Json stored, kube::Micros now);

  kube::Json& value() { return status_; }
  const kube::Json& value() const { return status_; }
  std::string Phase() const;

  // Sets condition `type` (lastTransitionTime only when its status changes; a False condition
  // that was never listed stays unlisted; turning False with an empty `reason` keeps the reason).
  void SetCondition(const std::string& type, bool true_status, const std::string& reason, const std::string& message);
  // Moves to `phase`: its condition True (with `reason` and `message`), the other phase conditions
  // False (each keeping its reason, its message "No longer T: the job moved on to PHASE"), an Event
  // on change.
  void SetPhase(const std::string& phase, const std::string& reason, const std::string& message);
  void Fail(const std::string& reason, const std::string& message);
  bool HasCondition(const std::string& type) const;
  // The reason of condition `type`; "" when absent.
  std::string ConditionReason(const std::string& type) const;

  void AddEvent(const std::string& type, const std::string& reason, const std::string& message);
  std::vector<Event> TakeEvents();

  // Whether the status differs from the stored one (lastReconcileTime aside).
  bool Changed() const;
  // The edited status, moved out to be written; value() is empty until Stored.
  kube::Json TakeValue();
  // The job as now stored: its status becomes the reference and the value to edit from here on.
  void Stored(kube::ObjectPtr job);

 private:
  kube::ObjectPtr holder_;         // the object *stored_ lies in
  const kube::Json* stored_;   // the stored status, read in place
  kube::Json status_;
  kube::Micros now_;
  std::vector<Event> events_;
};

}  // namespace dgl
