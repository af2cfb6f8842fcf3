// Leader election over a Lease, on a manual clock against the in-process store: one leader at a
// time, takeover once the leader stops renewing for the lease duration, loss of leadership when
// renewals fail for the renew deadline, and a released Lease taken over at once.
#include "fakeapi/client/faulty_client.h"
#include "fakeapi/client/leader_election.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

namespace kube {
namespace {

using json = kube::Json;

class LeaderElectionTest : public ::testing::Test {
 protected:
  LeaderElectionConfig Config(const std::string& identity) {
    return {.lease_namespace = "default", .lease_name = "dgl-operator", .identity = identity};
  }
  json Lease() { return **store.Get("leases", "default", "dgl-operator"); }

  ManualClock clock;
  fakeapi::Store store{fakeapi::StoreOptions{.clock = &clock}};
};

TEST_F(LeaderElectionTest, TheConfigurationIsCheckedAsClientGoChecksIt) {
  EXPECT_TRUE(ValidateLeaderElection(Config("a")).ok());
  auto bad = Config("a");
  bad.renew_deadline = bad.lease_duration;
  EXPECT_FALSE(ValidateLeaderElection(bad).ok());
  bad = Config("a");
  bad.retry_period = bad.renew_deadline;
  EXPECT_FALSE(ValidateLeaderElection(bad).ok());
  EXPECT_FALSE(ValidateLeaderElection(Config("")).ok());
}

TEST_F(LeaderElectionTest, OneCandidateLeadsWhileItRenewsAndTheOtherWaits) {
  LeaderElector a(store, clock, Config("a"));
  LeaderElector b(store, clock, Config("b"));
  EXPECT_EQ(a.Step(), LeaderElector::Event::kStartedLeading);
  EXPECT_EQ(b.Step(), LeaderElector::Event::kNone);
  for (int i = 0; i < 20; ++i) {  // 40 s of renewals, far past the 15 s lease
    clock.Advance(2 * kSecond);
    EXPECT_EQ(a.Step(), LeaderElector::Event::kNone);
    EXPECT_EQ(b.Step(), LeaderElector::Event::kNone);
  }
  EXPECT_TRUE(a.leading());
  EXPECT_FALSE(b.leading());
  EXPECT_EQ(b.observed_holder(), "a");
  json spec = Lease()["spec"];
  EXPECT_EQ(spec["holderIdentity"], "a");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["leaseTransitions"], 0);
  EXPECT_EQ(spec["renewTime"], FormatMicroTime(clock.Now()));
}

TEST_F(LeaderElectionTest, WhenTheLeaderStopsRenewingTheOtherTakesOverAfterTheLeaseDuration) {
  LeaderElector a(store, clock, Config("a"));
  LeaderElector b(store, clock, Config("b"));
  ASSERT_EQ(a.Step(), LeaderElector::Event::kStartedLeading);
  ASSERT_EQ(b.Step(), LeaderElector::Event::kNone);
  const Micros died = clock.Now();  // a is killed here and never renews again
  Micros took_over = 0;
  for (int i = 0; i < 20 && !took_over; ++i) {
    clock.Advance(2 * kSecond);
    if (b.Step() == LeaderElector::Event::kStartedLeading) took_over = clock.Now();
  }
  ASSERT_GT(took_over, 0);
  EXPECT_GE(took_over - died, 15 * kSecond);
  EXPECT_LE(took_over - died, 15 * kSecond + 2 * kSecond);  // within one retry period of expiry
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "b");
  EXPECT_EQ(Lease()["spec"]["leaseTransitions"], 1);
}

TEST_F(LeaderElectionTest, ACandidateWaitsForTheDurationTheHolderWroteNotItsOwn) {
  auto slow = Config("a");
  slow.lease_duration = 40 * kSecond;
  LeaderElector a(store, clock, slow);
  LeaderElector b(store, clock, Config("b"));  // 15 s of its own
  ASSERT_EQ(a.Step(), LeaderElector::Event::kStartedLeading);
  ASSERT_EQ(Lease()["spec"]["leaseDurationSeconds"], 40);
  ASSERT_EQ(b.Step(), LeaderElector::Event::kNone);
  clock.Advance(39 * kSecond);  // a is gone; its 40 s promise still holds
  EXPECT_EQ(b.Step(), LeaderElector::Event::kNone);
  clock.Advance(2 * kSecond);
  EXPECT_EQ(b.Step(), LeaderElector::Event::kStartedLeading);
  EXPECT_EQ(Lease()["spec"]["leaseDurationSeconds"], 15);  // the new holder's promise
}

TEST_F(LeaderElectionTest, ALeaderThatCannotRenewForTheRenewDeadlineStopsLeading) {
  FaultyClient flaky(store, /*seed=*/1);
  LeaderElector a(flaky, clock, Config("a"));
  ASSERT_EQ(a.Step(), LeaderElector::Event::kStartedLeading);
  FaultPlan broken;
  broken.error_rate = 1.0;
  broken.read_error_rate = 1.0;
  flaky.SetPlan(broken);
  LeaderElector::Event event = LeaderElector::Event::kNone;
  int steps = 0;
  while (event == LeaderElector::Event::kNone && steps < 20) {
    clock.Advance(2 * kSecond);
    event = a.Step();
    ++steps;
  }
  EXPECT_EQ(event, LeaderElector::Event::kStoppedLeading);
  EXPECT_EQ(steps, 5);  // 10 s of failed renewals at 2 s each
  EXPECT_FALSE(a.leading());
  EXPECT_FALSE(a.last_error().ok());
}

TEST_F(LeaderElectionTest, AReleasedLeaseIsTakenOverAtOnce) {
  LeaderElector a(store, clock, Config("a"));
  LeaderElector b(store, clock, Config("b"));
  ASSERT_EQ(a.Step(), LeaderElector::Event::kStartedLeading);
  ASSERT_EQ(b.Step(), LeaderElector::Event::kNone);
  ASSERT_TRUE(a.Release().ok());
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "");
  EXPECT_EQ(Lease()["spec"]["leaseDurationSeconds"], 1);
  clock.Advance(2 * kSecond);
  EXPECT_EQ(b.Step(), LeaderElector::Event::kStartedLeading);
}

TEST_F(LeaderElectionTest, AfterExpiryExactlyOneWaitingCandidateTakesTheLease) {
  LeaderElector a(store, clock, Config("a"));
  ASSERT_EQ(a.Step(), LeaderElector::Event::kStartedLeading);
  LeaderElector b(store, clock, Config("b"));
  LeaderElector c(store, clock, Config("c"));
  b.Step();
  c.Step();
  clock.Advance(16 * kSecond);
  // b takes it first; c then sees b's fresh write and waits for it to expire in turn.
  const int leaders = (b.Step() == LeaderElector::Event::kStartedLeading) + (c.Step() == LeaderElector::Event::kStartedLeading);
  EXPECT_EQ(leaders, 1);
}

// Found auditing the reads of JSON a server hands back, after the fuzzers' finds: a Lease whose
// holderIdentity some other writer set to a number, or whose spec is not a mapping, threw out of
// Step() (and out of the operator). Such a Lease names no holder, so it is free: taken at once.
TEST_F(LeaderElectionTest, ALeaseWithFieldsOfTheWrongTypeIsReadNotThrown) {
  for (const json& spec : {json{{"holderIdentity", 5}, {"leaseDurationSeconds", 1}}, json("held")}) {
    store.Delete("leases", "default", "dgl-operator");
    ASSERT_TRUE(store.Create("leases", {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"},
                                        {"metadata", {{"name", "dgl-operator"}, {"namespace", "default"}}},
                                        {"spec", spec}}).ok());
    LeaderElector a(store, clock, Config("a"));
    EXPECT_EQ(a.Step(), LeaderElector::Event::kStartedLeading) << spec.dump();
    EXPECT_EQ(Lease()["spec"]["holderIdentity"], "a") << spec.dump();
  }
}

}  // namespace
}  // namespace kube
