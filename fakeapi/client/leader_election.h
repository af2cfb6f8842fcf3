// Leader election over a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does
// it with a LeaseLock, so that several replicas of a controller run and only one reconciles:
//
// - TryAcquireOrRenew(): reads the Lease; creates it holding it when absent; otherwise takes it
//   only when it is this candidate's, has no holder, or its holder has not renewed it for the
//   Lease's own leaseDurationSeconds (the holder's promise; this candidate's lease_duration when
//   absent), counted on this candidate's own clock from the moment it last saw the record change
//   (client-go's observedTime: never from the renewTime written by another machine, whose clock
//   may differ).
//   A taken Lease gets acquireTime now and leaseTransitions + 1; a renewed one renewTime now. The
//   write carries the Lease's resourceVersion, so two candidates racing for it cannot both win.
// - Step(): what a candidate does every retry_period: try to acquire while following; renew while
//   leading, and give leadership up when no renewal has succeeded for renew_deadline (client-go
//   stops leading then; a controller must stop writing, and dgl-operator exits).
// - Release(): the leader hands the Lease back (holder "", leaseDurationSeconds 1), as client-go's
//   ReleaseOnCancel does on shutdown, so another candidate takes over at its next try instead of
//   after lease_duration.
//
// client-go's defaults (and controller-runtime's) are kept: lease 15 s, renew deadline 10 s, retry
// 2 s. Unlike client-go, retries are not jittered.
//
// Not thread-safe: one thread drives an elector.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/status.h"

#include <string>

namespace kube {

struct LeaderElectionConfig {
  std::string lease_namespace = "default";
  std::string lease_name;
  std::string identity;  // unique per candidate (client-go: hostname + "_" + a random UUID)
  Micros lease_duration = 15 * kSecond;
  Micros renew_deadline = 10 * kSecond;
  Micros retry_period = 2 * kSecond;
};

// BadRequest unless lease_duration > renew_deadline > retry_period > 0 and name and identity are
// set (client-go's NewLeaderElector checks the same).
Status ValidateLeaderElection(const LeaderElectionConfig& config);

class LeaderElector {
 public:
  enum class Event { kNone, kStartedLeading, kStoppedLeading };

  LeaderElector(Client& client, const Clock& clock, LeaderElectionConfig config);

  // One attempt; true when this candidate holds the Lease afterwards.
  bool TryAcquireOrRenew();
  // The step a candidate takes every retry_period (see the header comment); says whether it has
  // just started or stopped leading.
  Event Step();
  // Hands the Lease back if this candidate holds it.
  Status Release();

  bool leading() const { return leading_; }
  // The holder last seen in the Lease ("" before the first read or when released).
  const std::string& observed_holder() const { return observed_holder_; }
  const Status& last_error() const { return last_error_; }
  const LeaderElectionConfig& config() const { return config_; }

 private:
  kube::Json LeaseFor(const kube::Json* current, Micros now) const;
  void Observe(const kube::Json& lease, Micros now);

  Client& client_;
  const Clock& clock_;
  const LeaderElectionConfig config_;
  bool leading_ = false;
  Micros last_renew_ = 0;          // when this candidate last held the Lease after a write
  std::string observed_spec_;      // the Lease's spec as last seen (serialised)
  std::string observed_holder_;
  Micros observed_at_ = 0;         // when the spec last changed, on this candidate's clock
  Micros observed_duration_ = 0;   // the Lease's leaseDurationSeconds as last seen
  Status last_error_;
};

}  // namespace kube
