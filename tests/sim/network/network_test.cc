#include "sim/network/network.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/kernel/random.h"

namespace sim {
namespace {

using kube::kMillisecond;
using kube::kSecond;

constexpr double kGB = 1e9;

// A network with nodes n0..n{count-1}, each with `nic` bytes/s per NIC direction and `disk` bytes/s.
struct Fixture {
  explicit Fixture(int count = 4, double nic = 1 * kGB, double disk = 10 * kGB, NetworkConfig config = {})
      : net(engine, config) {
    for (int i = 0; i < count; ++i) net.AddNode(Name(i), nic, disk);
  }
  static std::string Name(int i) { return "n" + std::to_string(i); }

  // Starts a flow and records its completion time in done[label].
  FlowId Start(Endpoint src, Endpoint dst, double bytes, const std::string& label, double cap = 0) {
    return net.StartFlow({.src = std::move(src),
                          .dst = std::move(dst),
                          .bytes = bytes,
                          .rate_cap = cap,
                          .on_done = [this, label] { done.emplace_back(label, engine.Now()); }});
  }
  FlowId Send(int from, int to, double bytes, const std::string& label, double cap = 0) {
    return Start(Endpoint::Memory(Name(from)), Endpoint::Memory(Name(to)), bytes, label, cap);
  }
  Micros DoneAt(const std::string& label) const {
    for (const auto& [l, t] : done) {
      if (l == label) return t;
    }
    return -1;
  }

  Engine engine;
  Network net;
  std::vector<std::pair<std::string, Micros>> done;
};

TEST(NetworkTest, OneFlowRunsAtLinkCapacity) {
  Fixture fx;
  fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("a"), 1 * kSecond);
}

TEST(NetworkTest, TwoEqualFlowsOnOneLinkTakeTwiceAsLongAsOne) {
  Fixture fx;
  fx.Send(0, 1, 1 * kGB, "a");
  fx.Send(0, 1, 1 * kGB, "b");
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("a"), 2 * kSecond);
  EXPECT_EQ(fx.DoneAt("b"), 2 * kSecond);
}

TEST(NetworkTest, WhenOneOfTwoFlowsEndsTheOtherSpeedsUp) {
  Fixture fx;
  const FlowId b = fx.Send(0, 1, 2 * kGB, "b");
  fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.RunUntil(1 * kSecond);
  EXPECT_DOUBLE_EQ(fx.net.Rate(b), 0.5 * kGB);
  fx.engine.RunUntilIdle();
  // Both at 0.5 GB/s until a is done at 2 s; b then has 1 GB left at the full 1 GB/s.
  EXPECT_EQ(fx.DoneAt("a"), 2 * kSecond);
  EXPECT_EQ(fx.DoneAt("b"), 3 * kSecond);
}

TEST(NetworkTest, AFlowStartingLaterSlowsTheFirstFromThatInstant) {
  Fixture fx;
  fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.Schedule(500 * kMillisecond, [&] { fx.Send(0, 1, 0.25 * kGB, "b"); });
  fx.engine.RunUntilIdle();
  // a: 0.5 GB alone, then shares: b needs 0.25 GB at 0.5 GB/s = 0.5 s; a then finishes its last
  // 0.25 GB alone in 0.25 s.
  EXPECT_EQ(fx.DoneAt("b"), 1 * kSecond);
  EXPECT_EQ(fx.DoneAt("a"), 1250 * kMillisecond);
}

TEST(NetworkTest, MaxMinFairnessGivesAFlowLimitedElsewhereOnlyWhatItCanUse) {
  Engine engine;
  Network net(engine);
  net.AddNode("src", 3 * kGB, 10 * kGB);
  net.AddNode("slow", 0.5 * kGB, 10 * kGB);
  net.AddNode("fast1", 10 * kGB, 10 * kGB);
  net.AddNode("fast2", 10 * kGB, 10 * kGB);
  Micros fast_done = -1;
  const FlowId to_slow = net.StartFlow({Endpoint::Memory("src"), Endpoint::Memory("slow"), 1 * kGB});
  const FlowId f1 = net.StartFlow({Endpoint::Memory("src"), Endpoint::Memory("fast1"), 1 * kGB});
  net.StartFlow({Endpoint::Memory("src"), Endpoint::Memory("fast2"), 1 * kGB, 0, [&] { fast_done = engine.Now(); }});
  engine.RunUntil(0);
  // The slow receiver holds its flow at 0.5 GB/s; the 2.5 GB/s it leaves on src's egress is split.
  EXPECT_DOUBLE_EQ(net.Rate(to_slow), 0.5 * kGB);
  EXPECT_DOUBLE_EQ(net.Rate(f1), 1.25 * kGB);
  engine.RunUntilIdle();
  EXPECT_EQ(fast_done, 800 * kMillisecond);
  EXPECT_EQ(engine.Now(), 2 * kSecond);  // the slow flow was never sped up past its receiver
}

// Bounds a class alone meets (its cap, a NIC only its flows cross) interleave with the shared
// link's share as progressive filling rises: each one below the share frees capacity for the rest.
TEST(NetworkTest, DownloadsHeldByTheirOwnNicsOrCapsLeaveTheStorageToTheOthers) {
  Engine engine;
  Network net(engine, NetworkConfig{.storage_bps = 1 * kGB});
  net.AddNode("a", 0.1 * kGB, 10 * kGB);
  net.AddNode("b", 12.5 * kGB, 10 * kGB);
  net.AddNode("c", 12.5 * kGB, 10 * kGB);
  net.AddNode("d", 0.3 * kGB, 10 * kGB);
  const auto get = [&](const char* node, double cap = 0) {
    return net.StartFlow({Endpoint::Storage(), Endpoint::Memory(node), 10 * kGB, cap});
  };
  const FlowId a = get("a");
  const FlowId b = get("b");
  const FlowId c = get("c", 0.2 * kGB);
  const FlowId d = get("d");
  engine.RunUntil(0);
  // a takes its NIC's 0.1 and c its cap of 0.2; d's NIC (0.3) is below the 0.35 that leaves each
  // of b and d; b gets the rest of the store.
  EXPECT_DOUBLE_EQ(net.Rate(a), 0.1 * kGB);
  EXPECT_DOUBLE_EQ(net.Rate(c), 0.2 * kGB);
  EXPECT_DOUBLE_EQ(net.Rate(d), 0.3 * kGB);
  EXPECT_NEAR(net.Rate(b), 0.4 * kGB, 1);
  EXPECT_NEAR(net.Link("storage").rate_bps, 1 * kGB, 1);
}

// A class whose own bound is the least of all may still be frozen first by a shared link below it;
// the filling goes on with the other classes' bounds.
TEST(NetworkTest, AFlowHeldByTheStorageBelowItsOwnNicLeavesTheRestToTheNextBound) {
  Engine engine;
  Network net(engine, NetworkConfig{.storage_bps = 1 * kGB});
  net.AddNode("p", 0.5 * kGB, 10 * kGB);
  net.AddNode("q", 12.5 * kGB, 10 * kGB);
  net.AddNode("r", 12.5 * kGB, 10 * kGB);
  const FlowId x = net.StartFlow({Endpoint::Storage(), Endpoint::Memory("p"), 10 * kGB});
  const FlowId z1 = net.StartFlow({Endpoint::Storage(), Endpoint::Memory("q"), 10 * kGB});
  const FlowId z2 = net.StartFlow({Endpoint::Storage(), Endpoint::Memory("q"), 10 * kGB});
  const FlowId rq = net.StartFlow({Endpoint::Memory("r"), Endpoint::Memory("q"), 10 * kGB});
  engine.RunUntil(0);
  // The store splits three ways (1/3 each, under p's 0.5); q's ingress then has 12.5 - 2/3 left
  // for the flow from r, below r's own egress of 12.5.
  EXPECT_DOUBLE_EQ(net.Rate(x), 1 * kGB / 3);
  EXPECT_DOUBLE_EQ(net.Rate(z1), 1 * kGB / 3);
  EXPECT_DOUBLE_EQ(net.Rate(z2), 1 * kGB / 3);
  EXPECT_NEAR(net.Rate(rq), 12.5 * kGB - 2 * kGB / 3, 1);
  EXPECT_NEAR(net.Link("q/nic-ingress").rate_bps, 12.5 * kGB, 1);
}

TEST(NetworkTest, StorageLinkIsSharedByAllDownloads) {
  Fixture fx(10, 10 * kGB, 10 * kGB, NetworkConfig{.storage_bps = 1 * kGB});
  for (int i = 0; i < 10; ++i) {
    fx.Start(Endpoint::Storage(), Endpoint::Disk(Fixture::Name(i)), (i < 5 ? 1 : 2) * kGB, "d" + std::to_string(i));
  }
  fx.engine.RunUntilIdle();
  // Ten downloads at 0.1 GB/s each; the five small ones end at 10 s, the others then get
  // 0.2 GB/s for their last 1 GB.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(fx.DoneAt("d" + std::to_string(i)), 10 * kSecond);
  for (int i = 5; i < 10; ++i) EXPECT_EQ(fx.DoneAt("d" + std::to_string(i)), 15 * kSecond);
  EXPECT_DOUBLE_EQ(fx.net.Link("storage").bytes_carried, 15 * kGB);
  EXPECT_EQ(fx.net.Link("storage").busy_time, 15 * kSecond);
}

TEST(NetworkTest, DefaultStorageIsASingleNfsClient) {
  Engine engine;
  Network net(engine);
  EXPECT_DOUBLE_EQ(net.Link("storage").capacity_bps, 0.55e9);
}

TEST(NetworkTest, DownloadToDiskIsLimitedByTheSlowDisk) {
  Fixture fx(1, 10 * kGB, 0.25 * kGB, NetworkConfig{.storage_bps = 1 * kGB});
  fx.Start(Endpoint::Storage(), Endpoint::Disk("n0"), 1 * kGB, "disk");
  fx.Start(Endpoint::Storage(), Endpoint::Memory("n0"), 1 * kGB, "mem");
  fx.engine.RunUntilIdle();
  // The disk holds its flow at 0.25 GB/s; the in-memory download gets the other 0.75 GB/s.
  EXPECT_EQ(fx.DoneAt("mem"), 1333334);  // 4/3 s, rounded up to the microsecond
  EXPECT_EQ(fx.DoneAt("disk"), 4 * kSecond);
}

TEST(NetworkTest, NicEgressAndIngressAreIndependent) {
  Fixture fx;
  fx.Send(0, 1, 1 * kGB, "0to1");
  fx.Send(1, 0, 1 * kGB, "1to0");
  fx.Send(2, 0, 0.5 * kGB, "2to0");  // shares n0's ingress with 1to0, not its egress with 0to1
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("0to1"), 1 * kSecond);
  EXPECT_EQ(fx.DoneAt("2to0"), 1 * kSecond);
  EXPECT_EQ(fx.DoneAt("1to0"), 1500 * kMillisecond);
}

TEST(NetworkTest, NetworkSlowFactorMidFlowStretchesTheRest) {
  Fixture fx;
  fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.Schedule(500 * kMillisecond, [&] { fx.net.SetNodeNicFactor("n0", 0.1); });
  fx.engine.RunUntilIdle();
  // 0.5 GB at 1 GB/s, then 0.5 GB at 0.1 GB/s.
  EXPECT_EQ(fx.DoneAt("a"), 5500 * kMillisecond);
}

TEST(NetworkTest, NetworkSlowEndingRestoresFullSpeed) {
  Fixture fx;
  const FlowId a = fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.Schedule(500 * kMillisecond, [&] { fx.net.SetNodeNicFactor("n1", 0.1); });
  fx.engine.Schedule(1500 * kMillisecond, [&] { fx.net.SetNodeNicFactor("n1", 1); });
  fx.engine.RunUntil(1500 * kMillisecond);
  EXPECT_DOUBLE_EQ(fx.net.BytesMoved(a), 0.6 * kGB);
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("a"), 1900 * kMillisecond);
  EXPECT_FALSE(fx.net.SetNodeNicFactor("nope", 0.5));
}

TEST(NetworkTest, CancelReturnsBytesMovedSkipsTheCallbackAndFreesTheLink) {
  Fixture fx;
  const FlowId a = fx.Send(0, 1, 1 * kGB, "a");
  fx.Send(0, 1, 1 * kGB, "b");
  double moved = 0;
  fx.engine.Schedule(500 * kMillisecond, [&] { moved = fx.net.CancelFlow(a); });
  fx.engine.RunUntilIdle();
  EXPECT_DOUBLE_EQ(moved, 0.25 * kGB);
  EXPECT_EQ(fx.DoneAt("a"), -1);
  EXPECT_EQ(fx.DoneAt("b"), 1250 * kMillisecond);
  EXPECT_FALSE(fx.net.IsActive(a));
  EXPECT_EQ(fx.net.CancelFlow(a), -1);
  EXPECT_EQ(fx.net.BytesMoved(a), -1);
}

TEST(NetworkTest, RateCapLimitsAFlowAndLeavesTheRestToOthers) {
  Fixture fx;
  const FlowId capped = fx.Send(0, 1, 1 * kGB, "capped", 0.2 * kGB);
  const FlowId free = fx.Send(0, 2, 0.8 * kGB, "free");
  fx.engine.RunUntil(0);
  EXPECT_DOUBLE_EQ(fx.net.Rate(capped), 0.2 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.Rate(free), 0.8 * kGB);
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("free"), 1 * kSecond);
  EXPECT_EQ(fx.DoneAt("capped"), 5 * kSecond);  // the cap holds even on an idle link
}

TEST(NetworkTest, RateCapAboveTheFairShareDoesNotBind) {
  Fixture fx;
  fx.Send(0, 1, 1 * kGB, "a", 0.9 * kGB);
  fx.Send(0, 2, 1 * kGB, "b");
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("a"), 2 * kSecond);
  EXPECT_EQ(fx.DoneAt("b"), 2 * kSecond);
}

TEST(NetworkTest, ZeroCapacityFlowWaitsUntilCapacityReturns) {
  Fixture fx;
  fx.net.SetNodeNicFactor("n1", 0);  // node down
  const FlowId a = fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.RunUntil(10 * kSecond);
  EXPECT_EQ(fx.DoneAt("a"), -1);
  EXPECT_EQ(fx.net.Rate(a), 0);
  EXPECT_EQ(fx.net.BytesMoved(a), 0);
  EXPECT_TRUE(fx.engine.idle());  // no event spins while it waits
  fx.net.SetNodeNicFactor("n1", 1);
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("a"), 11 * kSecond);
}

TEST(NetworkTest, NodeDownMidFlowKeepsProgressAndResumes) {
  Fixture fx;
  const FlowId a = fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.Schedule(300 * kMillisecond, [&] { fx.net.SetNodeNicFactor("n0", 0); });
  fx.engine.Schedule(5 * kSecond, [&] { fx.net.SetNodeNicFactor("n0", 1); });
  fx.engine.RunUntil(4 * kSecond);
  EXPECT_DOUBLE_EQ(fx.net.BytesMoved(a), 0.3 * kGB);
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("a"), 5700 * kMillisecond);
}

TEST(NetworkTest, ANodeThatIsDownStallsItsFlowsBothWaysAndResumesWithItsFactorsKept) {
  Fixture fx;
  fx.net.SetNodeNicFactor("n0", 0.5);  // a NetworkSlow in effect: 0.5 GB/s
  const FlowId out = fx.Send(0, 1, 1 * kGB, "out");
  const FlowId in = fx.Send(2, 0, 1 * kGB, "in");
  fx.engine.Schedule(1 * kSecond, [&] { fx.net.SetNodeUp("n0", false); });
  fx.engine.Schedule(11 * kSecond, [&] { fx.net.SetNodeUp("n0", true); });
  fx.engine.RunUntil(10 * kSecond);
  EXPECT_DOUBLE_EQ(fx.net.BytesMoved(out), 0.5 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.BytesMoved(in), 0.5 * kGB);
  EXPECT_EQ(fx.net.Rate(out), 0);
  EXPECT_EQ(fx.net.Link("n0/disk").capacity_bps, 0);
  fx.engine.RunUntilIdle();
  // Back at 11 s still slowed to 0.5 GB/s: the other half takes 1 s more.
  EXPECT_EQ(fx.DoneAt("out"), 12 * kSecond);
  EXPECT_EQ(fx.DoneAt("in"), 12 * kSecond);
  EXPECT_EQ(fx.net.Link("n0/disk").capacity_bps, 10 * kGB);
}

TEST(NetworkTest, ARegistryPullCrossesTheNodesIngressAndDiskAndItsOwnCap) {
  Fixture fx(2, 1 * kGB, 0.5 * kGB);
  fx.Start(Endpoint::Registry(), Endpoint::Disk("n0"), 1 * kGB, "capped", 0.2 * kGB);
  fx.Start(Endpoint::Registry(), Endpoint::Disk("n1"), 1 * kGB, "disk-bound");
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("capped"), 5 * kSecond);
  EXPECT_EQ(fx.DoneAt("disk-bound"), 2 * kSecond);  // the 0.5 GB/s disk, not the 1 GB/s NIC
  EXPECT_DOUBLE_EQ(fx.net.Link("n0/nic-ingress").bytes_carried, 1 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.Link("n0/nic-egress").bytes_carried, 0);
  EXPECT_DOUBLE_EQ(fx.net.Link("storage").bytes_carried, 0);  // pulls do not touch the data store
}

TEST(NetworkTest, ARegistryLinkIsSharedByEveryPull) {
  Fixture fx(4, 10 * kGB, 10 * kGB, NetworkConfig{.registry_bps = 1 * kGB});
  for (int i = 0; i < 4; ++i) fx.Start(Endpoint::Registry(), Endpoint::Disk(Fixture::Name(i)), 1 * kGB, Fixture::Name(i));
  fx.engine.RunUntilIdle();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(fx.DoneAt(Fixture::Name(i)), 4 * kSecond);
  EXPECT_DOUBLE_EQ(fx.net.Link("registry").bytes_carried, 4 * kGB);
}

TEST(NetworkTest, TheRegistryIsOnlyASource) {
  Fixture fx;
  EXPECT_FALSE(fx.net.StartFlow({Endpoint::Disk("n0"), Endpoint::Registry(), 1 * kGB, 0, nullptr}).valid());
  EXPECT_FALSE(fx.net.StartFlow({Endpoint::Registry(), Endpoint::Storage(), 1 * kGB, 0, nullptr}).valid());
  EXPECT_FALSE(fx.net.StartFlow({Endpoint::Registry(), Endpoint::Registry(), 1 * kGB, 0, nullptr}).valid());
  EXPECT_FALSE(fx.net.SetNodeUp("nope", false));
}

TEST(NetworkTest, FlowsStartedInACallbackChainRunBackToBack) {
  Fixture fx;
  int remaining = 3;
  std::function<void()> next = [&] {
    if (--remaining >= 0) {
      fx.net.StartFlow({Endpoint::Memory("n0"), Endpoint::Memory("n1"), 0.1 * kGB, 0, next});
    }
  };
  next();
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.engine.Now(), 300 * kMillisecond);
  EXPECT_EQ(fx.net.flows_completed(), 3u);
}

TEST(NetworkTest, CopiesWithinANodeCrossOnlyItsDisk) {
  Fixture fx(1, 1 * kGB, 2 * kGB);
  fx.Start(Endpoint::Disk("n0"), Endpoint::Disk("n0"), 2 * kGB, "disk-to-disk");
  fx.Start(Endpoint::Memory("n0"), Endpoint::Memory("n0"), 5 * kGB, "memory");
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("memory"), 0);
  EXPECT_EQ(fx.DoneAt("disk-to-disk"), 1 * kSecond);
  EXPECT_DOUBLE_EQ(fx.net.Link("n0/nic-egress").bytes_carried, 0);
}

TEST(NetworkTest, ReadAndWriteShareTheDisk) {
  Fixture fx(2, 10 * kGB, 1 * kGB);
  fx.Start(Endpoint::Disk("n0"), Endpoint::Memory("n0"), 1 * kGB, "read");
  fx.Start(Endpoint::Storage(), Endpoint::Disk("n0"), 0.1 * kGB, "write");  // storage 0.55 GB/s
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("write"), 200 * kMillisecond);
  EXPECT_EQ(fx.DoneAt("read"), 1100 * kMillisecond);
}

TEST(NetworkTest, ZeroByteFlowCompletesAtOnceEvenWithoutCapacity) {
  Fixture fx;
  fx.net.SetNodeNicFactor("n0", 0);
  fx.engine.RunUntil(7);
  fx.Send(0, 1, 0, "empty");
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("empty"), 7);
}

TEST(NetworkTest, RejectsUnknownNodesAndStorageToStorage) {
  Fixture fx;
  EXPECT_FALSE(fx.Send(0, 9, 1, "x").valid());
  EXPECT_FALSE(fx.net.StartFlow({Endpoint::Storage(), Endpoint::Storage(), 1}).valid());
  EXPECT_FALSE(fx.net.StartFlow({Endpoint::Storage(), Endpoint::Disk("n0"), -1}).valid());
  EXPECT_FALSE(fx.net.AddNode("n0", 1, 1));
  EXPECT_EQ(fx.net.active_flows(), 0u);
}

TEST(NetworkTest, CompletionTimesRoundUpToTheMicrosecond) {
  Fixture fx(2, 3.0);  // 3 bytes/s
  fx.Send(0, 1, 1, "third");
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("third"), 333334);
}

TEST(NetworkTest, LinkStatsCountBytesAndBusyTime) {
  Fixture fx;
  fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.RunUntil(3 * kSecond);
  const LinkStats egress = fx.net.Link("n0/nic-egress");
  EXPECT_DOUBLE_EQ(egress.bytes_carried, 1 * kGB);
  EXPECT_EQ(egress.busy_time, 1 * kSecond);
  EXPECT_EQ(egress.active_flows, 0u);
  EXPECT_DOUBLE_EQ(fx.net.Link("n1/nic-ingress").bytes_carried, 1 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.Link("n1/nic-egress").bytes_carried, 0);
  EXPECT_EQ(fx.net.Link("nope").name, "");
  // storage + 3 links per node, in creation order.
  const std::vector<LinkStats> links = fx.net.Links();
  ASSERT_EQ(links.size(), 13u);
  EXPECT_EQ(links[0].name, "storage");
  EXPECT_EQ(links[1].name, "n0/nic-egress");
}

TEST(NetworkTest, RackUplinkIsTheBottleneckAcrossRacks) {
  Engine engine;
  Network net(engine);
  net.AddRack("r1", 1 * kGB);
  net.AddRack("r2", 1 * kGB);
  for (int i = 0; i < 6; ++i) {
    net.AddNode("a" + std::to_string(i), 10 * kGB, 10 * kGB, "r1");
    net.AddNode("b" + std::to_string(i), 10 * kGB, 10 * kGB, "r2");
  }
  std::vector<Micros> cross(4, -1);
  for (int i = 0; i < 4; ++i) {
    net.StartFlow({Endpoint::Memory("a" + std::to_string(i)), Endpoint::Memory("b" + std::to_string(i)), 1 * kGB, 0,
                   [&, i] { cross[i] = engine.Now(); }});
  }
  Micros local = -1;
  net.StartFlow({Endpoint::Memory("a4"), Endpoint::Memory("a5"), 10 * kGB, 0, [&] { local = engine.Now(); }});
  engine.RunUntilIdle();
  // Four flows share r1's 1 GB/s uplink; the flow inside the rack never touches it.
  for (Micros t : cross) EXPECT_EQ(t, 4 * kSecond);
  EXPECT_EQ(local, 1 * kSecond);
  EXPECT_DOUBLE_EQ(net.Link("r1/up").bytes_carried, 4 * kGB);
  EXPECT_DOUBLE_EQ(net.Link("r2/down").bytes_carried, 4 * kGB);
  EXPECT_DOUBLE_EQ(net.Link("r1/down").bytes_carried, 0);
}

TEST(NetworkTest, DownloadsIntoARackShareItsDownlinkAndTheStorage) {
  Engine engine;
  Network net(engine, NetworkConfig{.storage_bps = 10 * kGB});
  net.AddRack("r1", 1 * kGB);
  net.AddNode("a0", 10 * kGB, 10 * kGB, "r1");
  net.AddNode("a1", 10 * kGB, 10 * kGB, "r1");
  net.AddNode("flat", 10 * kGB, 10 * kGB);  // on the spine
  const FlowId r0 = net.StartFlow({Endpoint::Storage(), Endpoint::Disk("a0"), 1 * kGB});
  net.StartFlow({Endpoint::Storage(), Endpoint::Disk("a1"), 1 * kGB});
  const FlowId spine = net.StartFlow({Endpoint::Storage(), Endpoint::Disk("flat"), 100 * kGB});
  engine.RunUntil(0);
  EXPECT_DOUBLE_EQ(net.Rate(r0), 0.5 * kGB);
  EXPECT_DOUBLE_EQ(net.Rate(spine), 9 * kGB);
}

TEST(NetworkTest, ManyDownloadsFinishTogetherOnTheStorage) {
  Fixture fx(1000, 10 * kGB, 10 * kGB, NetworkConfig{.storage_bps = 1 * kGB});
  for (int i = 0; i < 1000; ++i) fx.Start(Endpoint::Storage(), Endpoint::Disk(Fixture::Name(i)), 1e6, "d");
  fx.engine.RunUntilIdle();
  ASSERT_EQ(fx.done.size(), 1000u);
  for (const auto& [label, t] : fx.done) EXPECT_EQ(t, 1 * kSecond);
  EXPECT_EQ(fx.net.rerates(), 2u);  // once when they all started, once when they all ended
}

TEST(NetworkTest, ReratingTouchesOnlyTheAffectedComponent) {
  Fixture fx(20);
  for (int i = 0; i < 10; ++i) fx.Send(2 * i, 2 * i + 1, 1 * kGB, "pair" + std::to_string(i));
  fx.engine.RunUntil(0);
  const std::uint64_t before = fx.net.flows_rerated();
  fx.Send(0, 1, 1 * kGB, "extra");
  fx.engine.RunUntil(1);
  EXPECT_EQ(fx.net.flows_rerated() - before, 2u);  // pair0 and the new flow, not the other nine
}

// Runs a seeded mixed workload and returns every completion as (label, time). Every 100 ms it
// checks that no link carries more than its capacity and counts the links that are saturated.
std::vector<std::pair<std::string, Micros>> RunMixedWorkload(std::uint64_t seed, int* saturated_samples = nullptr) {
  Engine engine;
  Network net(engine, NetworkConfig{.storage_bps = 2 * kGB});
  net.AddRack("r0", 5 * kGB);
  net.AddRack("r1", 5 * kGB);
  for (int i = 0; i < 40; ++i) net.AddNode("n" + std::to_string(i), 3 * kGB, 1 * kGB, "r" + std::to_string(i % 2));
  RandomStream rng(seed);
  std::vector<std::pair<std::string, Micros>> done;
  std::vector<FlowId> ids;
  for (int k = 0; k < 300; ++k) {
    const Micros at = rng.UniformInt(0, 20 * kSecond);
    const int a = static_cast<int>(rng.UniformInt(0, 39));
    const int b = static_cast<int>(rng.UniformInt(0, 39));
    const double bytes = rng.Uniform(1e6, 3e9);
    const bool from_storage = rng.Bernoulli(0.3);
    const double cap = rng.Bernoulli(0.2) ? rng.Uniform(1e8, 1e9) : 0;
    engine.ScheduleAt(at, [&, k, a, b, bytes, from_storage, cap] {
      const std::string label = "f" + std::to_string(k);
      ids.push_back(net.StartFlow({from_storage ? Endpoint::Storage() : Endpoint::Disk("n" + std::to_string(a)),
                                   Endpoint::Disk("n" + std::to_string(b)), bytes, cap,
                                   [&, label] { done.emplace_back(label, engine.Now()); }}));
    });
  }
  engine.ScheduleAt(7 * kSecond, [&] { net.SetNodeNicFactor("n3", 0.2); });
  engine.ScheduleAt(12 * kSecond, [&] {
    for (std::size_t i = 0; i < ids.size(); i += 7) net.CancelFlow(ids[i]);
    net.SetNodeNicFactor("n3", 1);
  });
  std::function<void()> check = [&] {
    for (const LinkStats& link : net.Links()) {
      EXPECT_LE(link.rate_bps, link.capacity_bps * (1 + 1e-9)) << link.name << " at " << engine.Now();
      if (saturated_samples != nullptr && link.active_flows > 0 && link.rate_bps >= link.capacity_bps * (1 - 1e-9)) {
        ++*saturated_samples;
      }
    }
    if (net.active_flows() > 0 || engine.Now() < 20 * kSecond) engine.Schedule(100 * kMillisecond, check);
  };
  engine.Schedule(50 * kMillisecond, check);
  engine.RunUntilIdle();
  return done;
}

TEST(NetworkTest, NoLinkIsEverOversubscribedAndBusyLinksAreFull) {
  int saturated = 0;
  RunMixedWorkload(7, &saturated);
  EXPECT_GT(saturated, 100);
}

TEST(NetworkTest, SameWorkloadAndSeedGiveTheSameCompletions) {
  const auto first = RunMixedWorkload(42);
  EXPECT_GT(first.size(), 200u);
  EXPECT_EQ(RunMixedWorkload(42), first);
  EXPECT_EQ(RunMixedWorkload(42), first);
  EXPECT_NE(RunMixedWorkload(43), first);
}

// Flows that share their bottleneck move at one rate with one clock: a re-rate of a thousand of
// them moves one completion event, not a thousand.
TEST(NetworkTest, ARerateOfFlowsSharingTheirBottleneckMovesOneEvent) {
  Fixture fx(1000, 10 * kGB, 10 * kGB, NetworkConfig{.storage_bps = 1 * kGB});
  for (int i = 0; i < 1000; ++i) fx.Start(Endpoint::Storage(), Endpoint::Memory(Fixture::Name(i)), 1e6, "d");
  fx.engine.RunUntil(0);
  const std::uint64_t scheduled = fx.engine.events_scheduled();
  const FlowId extra = fx.Start(Endpoint::Storage(), Endpoint::Memory(Fixture::Name(7)), 1e6, "extra");
  fx.engine.RunUntil(1);
  // The re-rate event and the storage group's moved completion; before, one move per flow.
  EXPECT_LE(fx.engine.events_scheduled() - scheduled, 3u);
  EXPECT_EQ(fx.net.flows_rerated(), 1000u + 1001u);
  EXPECT_DOUBLE_EQ(fx.net.Rate(extra), 1 * kGB / 1001);
  fx.engine.RunUntilIdle();
  ASSERT_EQ(fx.done.size(), 1001u);
  for (const auto& [label, t] : fx.done) EXPECT_EQ(t, 1001 * kMillisecond) << label;
}

// Ten downloads share the storage, each alone on its node's NIC. A start and an ending on the
// storage re-rate it without visiting the other nine downloads' NICs; their figures still follow
// the storage's share.
TEST(NetworkTest, AChangeOnALoneSharedLinkLeavesTheOtherNicsFiguresRight) {
  Fixture fx(10, 10 * kGB, 10 * kGB, NetworkConfig{.storage_bps = 1 * kGB});
  for (int i = 0; i < 10; ++i) fx.Start(Endpoint::Storage(), Endpoint::Memory(Fixture::Name(i)), 1 * kGB, "d" + std::to_string(i));
  fx.engine.Schedule(1 * kSecond, [&] { fx.Start(Endpoint::Storage(), Endpoint::Memory(Fixture::Name(0)), 0.5 * kGB, "extra"); });
  fx.engine.RunUntil(3 * kSecond);
  // 0.1 GB/s for a second, then 1/11 GB/s each.
  const LinkStats nic5 = fx.net.Link("n5/nic-ingress");
  EXPECT_NEAR(nic5.bytes_carried, 0.1 * kGB + 2 * kGB / 11, 1);
  EXPECT_NEAR(nic5.rate_bps, 1 * kGB / 11, 1e-3);
  EXPECT_EQ(nic5.busy_time, 3 * kSecond);
  EXPECT_NEAR(fx.net.Link("n0/nic-ingress").rate_bps, 2 * kGB / 11, 1e-3);
  fx.engine.RunUntilIdle();
  // extra: 0.5 GB at 1/11 GB/s from 1 s; the others 0.6 GB by then, their last 0.4 GB at 0.1 GB/s.
  EXPECT_EQ(fx.DoneAt("extra"), 6500 * kMillisecond);
  EXPECT_EQ(fx.DoneAt("d5"), 10500 * kMillisecond);
  EXPECT_NEAR(fx.net.Link("n5/nic-ingress").bytes_carried, 1 * kGB, 1);
  EXPECT_EQ(fx.net.Link("n5/nic-ingress").busy_time, 10500 * kMillisecond);
  EXPECT_NEAR(fx.net.Link("n0/nic-ingress").bytes_carried, 1.5 * kGB, 1);
  EXPECT_NEAR(fx.net.Link("storage").bytes_carried, 10.5 * kGB, 1);
  EXPECT_EQ(fx.net.Link("n5/nic-ingress").rate_bps, 0);
  // The first re-rate and the last (nothing left on the storage) are full ones; the start and the
  // ending of `extra` are one-link re-rates.
  EXPECT_EQ(fx.net.rerates(), 4u);
  EXPECT_EQ(fx.net.rerates_one_link(), 2u);
}

// A cancel raises the storage's share above a slowed NIC: that download is no longer held by the
// storage, so the one-link re-rate must give way to the full one.
TEST(NetworkTest, AShareRisingAboveAPrivateBoundTakesTheFullRerate) {
  Fixture fx(4, 1 * kGB, 10 * kGB, NetworkConfig{.storage_bps = 1 * kGB});
  std::vector<FlowId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(fx.Start(Endpoint::Storage(), Endpoint::Memory(Fixture::Name(i)), 10 * kGB, "d"));
  fx.engine.RunUntil(0);
  fx.net.SetNodeNicFactor(Fixture::Name(0), 0.3);  // 0.3 GB/s, still above the storage's 0.25
  fx.engine.RunUntil(1);
  EXPECT_DOUBLE_EQ(fx.net.Rate(ids[0]), 0.25 * kGB);
  const std::uint64_t one_link = fx.net.rerates_one_link();
  fx.net.CancelFlow(ids[3]);  // the storage's share would be 1/3 GB/s: n0's NIC holds it at 0.3
  fx.engine.RunUntil(2);
  EXPECT_EQ(fx.net.rerates_one_link(), one_link);
  EXPECT_DOUBLE_EQ(fx.net.Rate(ids[0]), 0.3 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.Rate(ids[1]), 0.35 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.Link("storage").rate_bps, 1 * kGB);
}

// A group's completion event is set for the member due first. Cancelling that member must move
// the event to the next one's own time, not complete the next one early.
TEST(NetworkTest, CancellingTheFlowDueFirstLeavesItsNeighbourItsOwnTime) {
  Fixture fx;
  const FlowId a = fx.Send(0, 1, 1 * kGB, "a");
  fx.Send(0, 1, 2 * kGB, "b");
  fx.engine.Schedule(1 * kSecond, [&] { EXPECT_DOUBLE_EQ(fx.net.CancelFlow(a), 0.5 * kGB); });
  fx.engine.RunUntilIdle();
  // b: 0.5 GB in its first second at half the link, then 1.5 GB alone.
  EXPECT_EQ(fx.DoneAt("a"), -1);
  EXPECT_EQ(fx.DoneAt("b"), 2500 * kMillisecond);
}

// Flows that cross no link (capped copies within a node's memory) are never re-rated: cancelling
// the one their group's event was set for must not end the other one early when the event fires.
TEST(NetworkTest, CancellingTheFirstOfTwoLocalCopiesLeavesTheOtherItsOwnTime) {
  Fixture fx;
  const FlowId a = fx.Start(Endpoint::Memory(Fixture::Name(0)), Endpoint::Memory(Fixture::Name(0)), 1 * kGB, "a", 1 * kGB);
  fx.Start(Endpoint::Memory(Fixture::Name(0)), Endpoint::Memory(Fixture::Name(0)), 2 * kGB, "b", 1 * kGB);
  fx.engine.Schedule(500 * kMillisecond, [&] { EXPECT_DOUBLE_EQ(fx.net.CancelFlow(a), 0.5 * kGB); });
  fx.engine.RunUntilIdle();
  EXPECT_EQ(fx.DoneAt("a"), -1);
  EXPECT_EQ(fx.DoneAt("b"), 2 * kSecond);
  EXPECT_EQ(fx.net.rerates(), 0u);
}

// A flow joining a class already moving (same path, same cap) starts from zero, not from the
// progress the others have made.
TEST(NetworkTest, AFlowJoiningFlowsOnItsPathStartsFromItsOwnBytes) {
  Fixture fx;
  const FlowId a = fx.Send(0, 1, 2 * kGB, "a");
  FlowId b;
  fx.engine.Schedule(1 * kSecond, [&] { b = fx.Send(0, 1, 0.5 * kGB, "b"); });
  fx.engine.RunUntil(1500 * kMillisecond);
  EXPECT_DOUBLE_EQ(fx.net.BytesMoved(a), 1.25 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.BytesMoved(b), 0.25 * kGB);
  fx.engine.RunUntilIdle();
  // b: 0.5 GB at 0.5 GB/s from 1 s; a: 1 GB alone, 0.5 GB shared, 0.5 GB alone.
  EXPECT_EQ(fx.DoneAt("b"), 2 * kSecond);
  EXPECT_EQ(fx.DoneAt("a"), 2500 * kMillisecond);
}

// An independent reference: the same max-min fair sharing computed the plain way, per flow, in
// continuous time. Nodes have one NIC capacity per direction; flows go from the storage or a node
// to a node's memory, some with a rate cap, some cancelled, and one node's NIC slows for a while.
struct PlannedFlow {
  double start = 0;
  int src = -1;  // -1 for the storage
  int dst = 0;
  double bytes = 0;
  double cap = 0;
  double cancel_at = -1;
};
constexpr int kRefNodes = 8;
constexpr double kRefNic = 1 * kGB;
constexpr double kRefStorage = 2 * kGB;
constexpr double kSlowFrom = 4, kSlowUntil = 7, kSlowFactor = 0.25;
constexpr int kSlowNode = 3;

// `from_storage`: the chance that a flow is a download from the storage (the rest go node to node);
// `capped`: the chance that it has a rate cap.
std::vector<PlannedFlow> PlanReferenceWorkload(std::uint64_t seed, double from_storage = 0.4, double capped = 0.25) {
  RandomStream rng(seed);
  std::vector<PlannedFlow> plan(150);
  for (PlannedFlow& p : plan) {
    p.start = static_cast<double>(rng.UniformInt(0, 10'000)) / 1000;  // whole milliseconds
    p.dst = static_cast<int>(rng.UniformInt(0, kRefNodes - 1));
    p.src = rng.Bernoulli(from_storage) ? -1 : static_cast<int>((p.dst + rng.UniformInt(1, kRefNodes - 1)) % kRefNodes);
    p.bytes = rng.Uniform(0.05, 1.5) * kGB;
    p.cap = rng.Bernoulli(capped) ? rng.Uniform(0.05, 0.6) * kGB : 0;
    if (rng.Bernoulli(0.1)) p.cancel_at = p.start + static_cast<double>(rng.UniformInt(1, 3000)) / 1000;
  }
  return plan;
}

// Completion time in seconds of each planned flow; -1 for one cancelled first.
std::vector<double> ReferenceCompletions(const std::vector<PlannedFlow>& plan) {
  // Links: 0 storage, 1 + 2n egress of node n, 2 + 2n ingress of node n.
  const int links = 1 + 2 * kRefNodes;
  std::vector<double> done(plan.size(), -1), left(plan.size());
  std::vector<bool> active(plan.size(), false), started(plan.size(), false);
  for (std::size_t i = 0; i < plan.size(); ++i) left[i] = plan[i].bytes;
  const auto path = [&](std::size_t i) {
    return std::vector<int>{plan[i].src < 0 ? 0 : 1 + 2 * plan[i].src, 2 + 2 * plan[i].dst};
  };
  double t = 0;
  while (true) {
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (!started[i] && plan[i].start <= t + 1e-12) started[i] = active[i] = true;
      if (active[i] && plan[i].cancel_at >= 0 && plan[i].cancel_at <= t + 1e-12) active[i] = false;
    }
    // Progressive filling, one flow at a time.
    std::vector<double> capacity(links, kRefNic), rate(plan.size(), 0);
    capacity[0] = kRefStorage;
    if (t >= kSlowFrom - 1e-12 && t < kSlowUntil - 1e-12) {
      capacity[1 + 2 * kSlowNode] = capacity[2 + 2 * kSlowNode] = kRefNic * kSlowFactor;
    }
    std::vector<bool> frozen(plan.size(), true);
    for (std::size_t i = 0; i < plan.size(); ++i) frozen[i] = !active[i];
    while (true) {
      std::vector<int> unfrozen(links, 0);
      bool any = false;
      for (std::size_t i = 0; i < plan.size(); ++i) {
        if (frozen[i]) continue;
        any = true;
        for (int l : path(i)) ++unfrozen[l];
      }
      if (!any) break;
      double share = 1e300;
      for (int l = 0; l < links; ++l) {
        if (unfrozen[l] > 0) share = std::min(share, capacity[l] / unfrozen[l]);
      }
      for (std::size_t i = 0; i < plan.size(); ++i) {
        if (!frozen[i] && plan[i].cap > 0) share = std::min(share, plan[i].cap);
      }
      // Freeze every flow held at `share`: by its cap, or crossing a link whose share it is.
      for (std::size_t i = 0; i < plan.size(); ++i) {
        if (frozen[i]) continue;
        bool held = plan[i].cap > 0 && plan[i].cap <= share * (1 + 1e-12);
        for (int l : path(i)) held = held || capacity[l] / unfrozen[l] <= share * (1 + 1e-12);
        if (!held) continue;
        frozen[i] = true;
        rate[i] = share;
      }
      for (std::size_t i = 0; i < plan.size(); ++i) {
        if (frozen[i] && active[i] && rate[i] == share) {
          for (int l : path(i)) capacity[l] -= share;
        }
      }
    }
    double next = 1e300;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (!started[i]) next = std::min(next, plan[i].start);
      if (!active[i]) continue;
      if (plan[i].cancel_at >= 0) next = std::min(next, plan[i].cancel_at);
      if (rate[i] > 0) next = std::min(next, t + left[i] / rate[i]);
    }
    for (double change : {kSlowFrom, kSlowUntil}) {
      if (change > t + 1e-12) next = std::min(next, change);
    }
    if (next >= 1e299) break;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (!active[i]) continue;
      left[i] -= rate[i] * (next - t);
      if (left[i] <= 1e-6 * plan[i].bytes) {
        active[i] = false;
        done[i] = next;
      }
    }
    t = next;
  }
  return done;
}

// Runs the plan in a Network and checks every completion against the reference; returns the
// network's (re-rates, one-link re-rates).
std::pair<std::uint64_t, std::uint64_t> CheckAgainstReference(const std::vector<PlannedFlow>& plan, std::uint64_t seed) {
  const std::vector<double> expected = ReferenceCompletions(plan);
  Fixture fx(kRefNodes, kRefNic, 10 * kGB, NetworkConfig{.storage_bps = kRefStorage});
  std::vector<FlowId> ids(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedFlow& p = plan[i];
    fx.engine.ScheduleAt(static_cast<Micros>(std::llround(p.start * kSecond)), [&, i, p] {
      ids[i] = fx.Start(p.src < 0 ? Endpoint::Storage() : Endpoint::Memory(Fixture::Name(p.src)),
                        Endpoint::Memory(Fixture::Name(p.dst)), p.bytes, std::to_string(i), p.cap);
    });
    if (p.cancel_at >= 0) {
      fx.engine.ScheduleAt(static_cast<Micros>(std::llround(p.cancel_at * kSecond)), [&, i] { fx.net.CancelFlow(ids[i]); });
    }
  }
  fx.engine.ScheduleAt(static_cast<Micros>(kSlowFrom * kSecond), [&] { fx.net.SetNodeNicFactor(Fixture::Name(kSlowNode), kSlowFactor); });
  fx.engine.ScheduleAt(static_cast<Micros>(kSlowUntil * kSecond), [&] { fx.net.SetNodeNicFactor(Fixture::Name(kSlowNode), 1); });
  fx.engine.RunUntilIdle();
  int compared = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Micros at = fx.DoneAt(std::to_string(i));
    if (expected[i] < 0) {
      EXPECT_EQ(at, -1) << "seed " << seed << " flow " << i << " was cancelled first";
      continue;
    }
    // Completions round up to whole microseconds, which shifts later ones by a few microseconds.
    EXPECT_NEAR(static_cast<double>(at) / kSecond, expected[i], 1e-3) << "seed " << seed << " flow " << i;
    ++compared;
  }
  EXPECT_GT(compared, 120) << "seed " << seed;
  return {fx.net.rerates(), fx.net.rerates_one_link()};
}

TEST(NetworkTest, CompletionsMatchAPlainPerFlowMaxMinReference) {
  for (std::uint64_t seed : {1, 2, 3}) CheckAgainstReference(PlanReferenceWorkload(seed), seed);
}

// Uncapped downloads only: the storage is the one link two classes cross, so most re-rates take
// the one-link way; the others (the first, a NIC slowing or recovering, a share rising above the
// slowed NIC, nothing left) take the full one. Both must give the reference's times.
TEST(NetworkTest, OneLinkReratesMatchThePlainReferenceOnDownloads) {
  for (std::uint64_t seed : {4, 5, 6}) {
    const auto [rerates, one_link] = CheckAgainstReference(PlanReferenceWorkload(seed, 1.0, 0.0), seed);
    EXPECT_GT(one_link, rerates / 2) << "seed " << seed;
    EXPECT_LT(one_link, rerates) << "seed " << seed;
  }
}

// rerate_window: the re-rate after an ending waits its share of the ended flow's age.
TEST(NetworkTest, WithARerateWindowAnEndingsRerateWaitsItsShareOfTheFlowsAge) {
  Fixture fx(4, 1 * kGB, 10 * kGB, NetworkConfig{.rerate_window = 0.1});
  const FlowId b = fx.Send(0, 1, 2 * kGB, "b");
  fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.RunUntil(2100 * kMillisecond);
  // a ends at 2 s, aged 2 s: the re-rate waits 0.2 s, b keeps 0.5 GB/s until 2.2 s.
  EXPECT_EQ(fx.DoneAt("a"), 2 * kSecond);
  EXPECT_DOUBLE_EQ(fx.net.Rate(b), 0.5 * kGB);
  fx.engine.RunUntil(2200 * kMillisecond);
  EXPECT_DOUBLE_EQ(fx.net.Rate(b), 1 * kGB);
  fx.engine.RunUntilIdle();
  // b: 1.1 GB by 2.2 s, its last 0.9 GB alone: 3.1 s against the exact 3 s.
  EXPECT_EQ(fx.DoneAt("b"), 3100 * kMillisecond);
  // The starts' at 0 s, a's ending's at 2.2 s, b's ending's.
  EXPECT_EQ(fx.net.rerates(), 3u);
}

TEST(NetworkTest, AStartInsideTheWindowReratesAtOnceWithTheEndingsBeforeIt) {
  Fixture fx(4, 1 * kGB, 10 * kGB, NetworkConfig{.rerate_window = 0.1});
  const FlowId b = fx.Send(0, 1, 2 * kGB, "b");
  fx.Send(0, 1, 1 * kGB, "a");
  FlowId c;
  fx.engine.ScheduleAt(2100 * kMillisecond, [&] { c = fx.Send(0, 1, 0.5 * kGB, "c"); });
  fx.engine.RunUntil(2100 * kMillisecond);
  EXPECT_DOUBLE_EQ(fx.net.Rate(b), 0.5 * kGB);
  EXPECT_DOUBLE_EQ(fx.net.Rate(c), 0.5 * kGB);
  fx.engine.RunUntilIdle();
  // From 2.1 s b (0.95 GB left) and c share the link: c is done at 3.1 s, aged 1 s; b keeps
  // 0.5 GB/s until 3.2 s and has 0.4 GB left: 3.6 s.
  EXPECT_EQ(fx.DoneAt("c"), 3100 * kMillisecond);
  EXPECT_EQ(fx.DoneAt("b"), 3600 * kMillisecond);
  // The starts' at 0 s, a's ending's and c's start's at 2.1 s (the pending one moved there), c's
  // ending's at 3.2 s, b's ending's.
  EXPECT_EQ(fx.net.rerates(), 4u);
}

// An all-to-all exchange between 16 nodes whose flows differ in size by +-20 %: every ending
// re-rates the rest. With a window of 1 %, endings close together share re-rates, and each flow's
// time stays within about that share of its exact time.
TEST(NetworkTest, ARerateWindowSharesReratesAndKeepsEachFlowNearItsExactTime) {
  const auto run = [](double window, std::uint64_t* rerates) {
    Fixture fx(16, 1 * kGB, 10 * kGB, NetworkConfig{.rerate_window = window});
    RandomStream rng(3);
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        if (i != j) fx.Send(i, j, 0.1 * kGB * (1 + rng.Uniform(-0.2, 0.2)), std::to_string(i * 16 + j));
      }
    }
    fx.engine.RunUntilIdle();
    *rerates = fx.net.rerates();
    std::sort(fx.done.begin(), fx.done.end());
    return fx.done;
  };
  std::uint64_t exact_rerates = 0, window_rerates = 0, finer_rerates = 0;
  const auto exact = run(0, &exact_rerates);
  const auto approx = run(0.01, &window_rerates);
  const auto finer = run(0.001, &finer_rerates);
  ASSERT_EQ(exact.size(), 240u);
  ASSERT_EQ(approx.size(), 240u);
  EXPECT_GT(exact_rerates, 200u);
  EXPECT_LT(window_rerates * 4, exact_rerates);
  EXPECT_LT(finer_rerates, exact_rerates);
  EXPECT_GT(finer_rerates, window_rerates);
  double worst = 0, worst_finer = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    ASSERT_EQ(approx[i].first, exact[i].first);
    const auto t = static_cast<double>(exact[i].second);
    worst = std::max(worst, std::abs(static_cast<double>(approx[i].second) - t) / t);
    worst_finer = std::max(worst_finer, std::abs(static_cast<double>(finer[i].second) - t) / t);
  }
  EXPECT_GT(worst, 0);
  EXPECT_LT(worst, 0.02);
  EXPECT_LT(worst_finer, worst);
}

TEST(NetworkTest, ARerateWindowOutsideZeroToOneIsClamped) {
  for (double window : {-1.0, std::nan(""), 0.0}) {
    Fixture fx(4, 1 * kGB, 10 * kGB, NetworkConfig{.rerate_window = window});
    fx.Send(0, 1, 2 * kGB, "b");
    fx.Send(0, 1, 1 * kGB, "a");
    fx.engine.RunUntilIdle();
    EXPECT_EQ(fx.DoneAt("b"), 3 * kSecond) << window;
  }
  Fixture fx(4, 1 * kGB, 10 * kGB, NetworkConfig{.rerate_window = 5});
  fx.Send(0, 1, 2 * kGB, "b");
  fx.Send(0, 1, 1 * kGB, "a");
  fx.engine.RunUntilIdle();
  // A window of 1: a's re-rate would wait its whole age, 2 s; b, at 0.5 GB/s, is done first at 4 s.
  EXPECT_EQ(fx.DoneAt("b"), 4 * kSecond);
}

}  // namespace
}  // namespace sim
