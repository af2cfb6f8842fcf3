// See leader_election.h.
#include "fakeapi/client/leader_election.h"

#include "fakeapi/client/json_path.h"

namespace kube {

using json = kube::Json;

namespace {

constexpr const char* kLeases = "leases.coordination.k8s.io";

std::int64_t IntOf(const json& spec, const char* key) {
  auto it = spec.find(key);
  return it != spec.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

}  // namespace

Status ValidateLeaderElection(const LeaderElectionConfig& c) {
  if (c.lease_name.empty()) return Status::BadRequest("leader election needs a lease name");
  if (c.identity.empty()) return Status::BadRequest("leader election needs an identity");
  if (c.retry_period <= 0) return Status::BadRequest("the retry period must be positive");
  if (c.renew_deadline <= c.retry_period) return Status::BadRequest("the renew deadline must be longer than the retry period");
  if (c.lease_duration <= c.renew_deadline) return Status::BadRequest("the lease duration must be longer than the renew deadline");
  return Status::Ok();
}

LeaderElector::LeaderElector(Client& client, const Clock& clock, LeaderElectionConfig config)
    : client_(client), clock_(clock), config_(std::move(config)) {}

void LeaderElector::Observe(const json& lease, Micros now) {
  const json spec = lease.value("spec", json::object());
  const std::string text = spec.dump();
  if (text != observed_spec_) {
    observed_spec_ = text;
    observed_at_ = now;
  }
  observed_holder_ = JsonString(spec, {"holderIdentity"});  // whatever another writer left there
  // The holder's own promise, as client-go reads it; a missing or nonsensical one counts as ours.
  const std::int64_t seconds = IntOf(spec, "leaseDurationSeconds");
  observed_duration_ = seconds > 0 ? seconds * kSecond : config_.lease_duration;
}

// The Lease this candidate writes: held by it, renewed now; acquired now when it was not its own.
json LeaderElector::LeaseFor(const json* current, Micros now) const {
  json lease = current ? *current : json{{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"},
                                         {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}}};
  json& spec = lease["spec"];
  if (!spec.is_object()) spec = json::object();
  const bool mine = current && JsonString(spec, {"holderIdentity"}) == config_.identity;
  const std::string stamp = FormatMicroTime(now);
  if (!mine) {
    spec["acquireTime"] = stamp;
    spec["leaseTransitions"] = current ? IntOf(spec, "leaseTransitions") + 1 : 0;
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = config_.lease_duration / kSecond;
  spec["renewTime"] = stamp;
  return lease;
}

bool LeaderElector::TryAcquireOrRenew() {
  const Micros now = clock_.Now();
  auto current = client_.Get(kLeases, config_.lease_namespace, config_.lease_name);
  if (!current.ok() && !current.status().IsNotFound()) {
    last_error_ = current.status();
    return false;
  }
  if (!current.ok()) {
    auto created = client_.Create(kLeases, LeaseFor(nullptr, now), config_.lease_namespace);
    last_error_ = created.status();
    if (!created.ok()) return false;
    Observe(**created, now);
    return true;
  }
  Observe(**current, now);
  const bool held_by_other = !observed_holder_.empty() && observed_holder_ != config_.identity;
  if (held_by_other && observed_at_ + observed_duration_ > now) {
    last_error_ = Status::Ok();
    return false;  // another candidate holds it and has renewed it recently enough
  }
  auto written = client_.Update(kLeases, LeaseFor(&**current, now));
  last_error_ = written.status();
  if (!written.ok()) return false;
  Observe(**written, now);
  return true;
}

LeaderElector::Event LeaderElector::Step() {
  const Micros now = clock_.Now();
  const bool held = TryAcquireOrRenew();
  if (held) last_renew_ = now;
  if (!leading_ && held) {
    leading_ = true;
    return Event::kStartedLeading;
  }
  if (leading_ && !held && now - last_renew_ >= config_.renew_deadline) {
    leading_ = false;
    return Event::kStoppedLeading;
  }
  return Event::kNone;
}

Status LeaderElector::Release() {
  if (!leading_) return Status::Ok();
  leading_ = false;
  auto current = client_.Get(kLeases, config_.lease_namespace, config_.lease_name);
  if (!current.ok()) return current.status();
  json lease = **current;
  json& spec = lease["spec"];
  if (!spec.is_object() || JsonString(spec, {"holderIdentity"}) != config_.identity) return Status::Ok();
  const std::string stamp = FormatMicroTime(clock_.Now());
  spec["holderIdentity"] = "";
  spec["leaseDurationSeconds"] = 1;
  spec["renewTime"] = stamp;
  spec["acquireTime"] = stamp;
  return client_.Update(kLeases, std::move(lease)).status();
}

}  // namespace kube
