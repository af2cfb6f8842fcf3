// A Network is the simulator's flow-level model of moving bytes: node NICs, node disks, the shared
// storage (where datasets and partitions are downloaded from) and, optionally, rack uplinks. Each of
// those is a link with a capacity in bytes per second. A flow moves a number of bytes from one
// endpoint to another over the links on its path and gets a rate by max-min fair sharing
// (progressive filling): every flow gets an equal share of each link unless it is held lower
// elsewhere (another link or its own rate cap), and capacity one flow cannot use goes to the others.
//
// Links and paths:
//   - each node has a NIC egress link and a NIC ingress link (full duplex: the two directions are
//     independent) and one disk link shared by reads and writes (an SSD's throughput is one budget;
//     a copy from a node's disk to the same disk crosses it once);
//   - the storage link is one budget for all transfers to and from the shared store (an NFS/EFS
//     server's throughput, docs/models.md: about 0.5-0.6 GB/s per NFS client, EFS 500 MiB/s);
//   - the image registry hangs off the spine through an optional registry link (one budget for all
//     pulls; non-blocking by default: a registry and its CDN usually outpace a node's NIC);
//   - a rack with a finite uplink capacity has an up link (rack -> spine) and a down link
//     (spine -> rack); nodes added without a rack sit on the spine itself. The default topology is
//     flat: every node on one non-blocking switch, so node-to-node flows cross only the two NICs.
//   The topology (nodes, racks, spine, storage) is a Boost.Graph; a flow's path is the BFS path
//   between its endpoints' vertices (node -> rack switch -> spine -> rack switch -> node), each edge
//   contributing the link of the direction it is crossed in. Endpoint kinds:
//     Storage() -> Disk(n):  storage, [rack down], n ingress, n disk
//     Storage() -> Memory(n): storage, [rack down], n ingress
//     Registry() -> Disk(n): [registry], [rack down], n ingress, n disk   (an image pull)
//     Disk(a) -> Memory(b), a != b: a disk, a egress, [a up, b down], b ingress   (and so on)
//     same node: Disk <-> Disk or Memory crosses the disk once; Memory -> Memory crosses nothing.
//   A flow that crosses no link and has no rate cap completes at once.
//
// Re-rating: starting or ending a flow, or changing a link's capacity (SetNodeNicFactor for a
// NetworkSlow fault, SetStorage, ...), marks links dirty and schedules one re-rate event at the
// current instant (delay 0), so everything that changes within one simulated microsecond is
// re-rated once. With NetworkConfig::rerate_window > 0, the re-rate after a flow ends (and only
// then) may wait: up to that fraction of the ended flow's age, rounded down to whole microseconds.
// Endings that close together share one re-rate, and until it runs the others keep their rates
// (the capacity the ended flows freed stays unused): an approximation, flows end up to about that
// fraction of their time off max-min fairness's exact times (tests/sim/network/network_test.cc
// bounds it). A start, a cancel or a capacity change in the meantime re-rates at once, everything
// dirty with it. A node that is down (SetNodeUp(false)) has NIC and disk capacity 0 whatever its
// factors, so its flows stall, keeping their progress, until it is up again.
//
// Two groupings keep a re-rate's cost independent of how many flows share a path or a bottleneck:
//   - Classes: the active flows with the same path and the same rate cap always get the same rate,
//     so progressive filling works on classes weighted by their number of flows. 5,000 downloads
//     from the storage to 1,000 nodes are 1,000 classes.
//   - Rate groups: every class held back by the same link (or by its own cap) moves at that one
//     rate. A group keeps a single clock of the bytes each member has moved and a heap of its
//     members by the clock reading at which each is done, with one engine event for the first of
//     them. A new rate for the group costs one clock update and one moved event; only a class whose
//     bottleneck changed moves its flows, each keeping its progress, to another group.
// The re-rate walks only the connected component of classes and links reachable from the dirty
// links (classes are joined when they share a link), runs progressive filling over it, and
// regroups the classes whose bottleneck changed. The filling keeps the links two classes or more
// cross in a heap of fair shares; a link only one class crosses (a download's NIC, a node's disk)
// has a share nothing else changes, so it and the class's cap count as one fixed bound per class,
// scanned for the least and made a heap only once one of them freezes its class first. Cost per
// re-rate: O((C*P + L) log(C*P + L)) for C classes and L links in the component and P links per
// path (P <= 6), plus O(log F) for each flow that changes group; classes outside the component are
// not touched. Which link (or cap) freezes a class, and so every rate, group and completion, is
// the same as a filling over one heap of every link and cap would give: ties go to caps, then to
// the lower link id. A group at rate 0 (a capacity-0 link, a node with NIC factor 0) has no event;
// its flows wait until a re-rate gives them capacity again.
//
// One-link re-rates: the commonest component is one shared link (the storage, a registry) whose
// classes each cross only links of their own besides (their NICs and disks), all frozen by the
// shared link, i.e. every download moving at its fair share. A re-rate that ends like that records
// it on the link (with the least fixed bound of its classes). The next re-rate whose dirty links
// are that link, links of classes crossing it and no other shared link (a download starting,
// ending or cancelled, its NIC's capacity changing) skips the walk when the link's new share is
// below every class's fixed bound (the record's, lowered by the changed classes'): the filling
// would take the link first and freeze every class at its share, so the re-rate sets that share as
// the link's group's rate, places new classes in the group and accounts the dirty links. Cost:
// O(changed classes + log F), not O(component); the rates, groups and events are the ones the
// full re-rate gives. Otherwise it falls back to the full re-rate, which writes the record again.
// Link figures make this possible: a private link of a class in a shared link's group follows the
// group's clocks instead of holding a rate sum each re-rate must update.
//
// Time: a flow completes at the first whole microsecond at or after its bytes are done (rounded up;
// float noise under about 1 ppb is ignored so that 1 GB at 0.5 GB/s takes exactly 2 s). A group's
// event always finishes the flow it was set for, so no flow can livelock on a tiny remainder;
// members due at the same microsecond finish with it, in the order of their clock readings and
// then of their start. All arithmetic runs in an order fixed by the calls made, so a run is
// deterministic.
//
// REQUIRES: external synchronization; used from the engine's thread. Flow callbacks may start and
// cancel flows and change capacities.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sim/kernel/engine.h"

namespace sim {

// Names one flow. A default-constructed FlowId names nothing.
class FlowId {
 public:
  constexpr FlowId() = default;
  constexpr bool valid() const { return seq_ != 0; }
  // Start order of the flow within its Network (1, 2, 3, ...).
  constexpr std::uint64_t sequence() const { return seq_; }
  friend constexpr bool operator==(const FlowId&, const FlowId&) = default;

 private:
  friend class Network;
  constexpr FlowId(std::uint64_t seq, std::uint32_t slot) : seq_(seq), slot_(slot) {}
  std::uint64_t seq_ = 0;
  std::uint32_t slot_ = 0;
};

// One end of a flow.
struct Endpoint {
  enum class Kind { kMemory, kDisk, kStorage, kRegistry };
  Kind kind = Kind::kMemory;
  std::string node;  // empty for kStorage and kRegistry

  // The node's memory, reached through its NIC (a process on that node sending or receiving).
  static Endpoint Memory(std::string node) { return {Kind::kMemory, std::move(node)}; }
  // The node's local disk (through its NIC when the other end is elsewhere).
  static Endpoint Disk(std::string node) { return {Kind::kDisk, std::move(node)}; }
  // The shared store datasets are downloaded from.
  static Endpoint Storage() { return {Kind::kStorage, {}}; }
  // The container image registry pulls come from (only ever a source).
  static Endpoint Registry() { return {Kind::kRegistry, {}}; }
};

struct FlowSpec {
  Endpoint src;
  Endpoint dst;
  double bytes = 0;
  // Upper bound on the rate in bytes/s (e.g. a downloader's own limit); <= 0 means none.
  double rate_cap = 0;
  // Runs once, at the completion time, after the flow has left the network. Not run on cancel.
  std::function<void()> on_done;
};

// The shared storage's capacity: a single NFS client, about 0.5-0.6 GB/s (docs/models.md,
// "Storage", from DGL issue #4514's partition load).
inline constexpr double kDefaultStorageBytesPerSecond = 0.55e9;

struct NetworkConfig {
  // Capacity of the shared storage link in bytes/s.
  double storage_bps = kDefaultStorageBytesPerSecond;
  // Capacity of the registry's link for all pulls together, bytes/s; <= 0 (default) means
  // non-blocking: each pull is held by its own rate cap and the node's NIC and disk.
  double registry_bps = 0;
  // 0 (the default): exact max-min fairness, every change re-rated at the instant it happens.
  // > 0 (at most 1): the re-rate after a flow ends may wait up to this fraction of the flow's age
  // (see "Re-rating" above). 0.01 makes an all-to-all epoch of 64 workers whose flows end at
  // different times re-rate 28 times instead of once per flow (3,960); its end comes about 1 %
  // later (bench/network_bench.cc measures both). Clamped to [0, 1]; not finite: 0.
  double rerate_window = 0;
};

// Per-link figures for reports.
struct LinkStats {
  std::string name;       // e.g. "node-3/nic-egress", "node-3/disk", "storage", "rack-a/up"
  double capacity_bps = 0;  // current capacity (base times any factor)
  double rate_bps = 0;      // sum of the current rates of the flows crossing it
  double bytes_carried = 0;
  Micros busy_time = 0;     // time during which flows moved bytes over the link
  std::size_t active_flows = 0;
};

class Network {
 public:
  using LinkId = std::uint32_t;

  Network(Engine& engine, NetworkConfig config = {});
  ~Network();

  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Adds a rack whose uplink carries `uplink_bps` in each direction; <= 0 means non-blocking
  // (no uplink links). Returns false if the rack exists.
  bool AddRack(const std::string& rack, double uplink_bps);
  // Adds a node with `nic_bps` in each NIC direction and `disk_bps` for its disk. An empty `rack`
  // puts the node on the spine (flat topology); an unknown rack is created non-blocking.
  // Returns false if the node exists.
  bool AddNode(const std::string& node, double nic_bps, double disk_bps, const std::string& rack = "");
  bool HasNode(const std::string& node) const { return nodes_.contains(node); }

  // Sets the storage link's capacity; flows on it are re-rated.
  void SetStorage(double bps);
  // Multiplies the node's NIC capacity (both directions) by `factor` (>= 0) relative to the
  // capacity it was added with: 0.1 for a NetworkSlow fault, 0 for a node that is down, 1 to
  // restore. Returns false for an unknown node.
  bool SetNodeNicFactor(const std::string& node, double factor);
  // The same for the node's disk.
  bool SetNodeDiskFactor(const std::string& node, double factor);
  // A node that is down has NIC and disk capacity 0 (its flows stall and keep their progress);
  // back up, the factors set above apply again. Returns false for an unknown node.
  bool SetNodeUp(const std::string& node, bool up);

  // Starts a flow now. Returns an invalid FlowId if an endpoint names an unknown node, neither end
  // is a node, the registry is the destination, or `bytes` is negative or not finite. A flow of 0 bytes completes at once (at the
  // current instant, as an engine event).
  FlowId StartFlow(FlowSpec spec);
  // Removes an active flow without running its callback. Returns the bytes it moved, or -1 if
  // `id` is not active (done, cancelled or never started).
  double CancelFlow(FlowId id);

  bool IsActive(FlowId id) const;
  // Bytes an active flow has moved so far (fractional: rates are real numbers); -1 if not active.
  double BytesMoved(FlowId id) const;
  // An active flow's current rate in bytes/s; -1 if not active. Changes made within the current
  // instant are reflected once the re-rate event has run (with a rerate_window, an ending's re-rate
  // may come later).
  double Rate(FlowId id) const;

  std::size_t active_flows() const { return active_; }
  std::uint64_t flows_started() const { return started_; }
  std::uint64_t flows_completed() const { return completed_; }
  std::uint64_t rerates() const { return rerates_; }
  // Of those, the ones done by the one-link re-rate (see "One-link re-rates").
  std::uint64_t rerates_one_link() const { return rerates_one_link_; }
  // Flows re-rated in total (sum of component sizes), a measure of re-rating work.
  std::uint64_t flows_rerated() const { return flows_rerated_; }

  // Every link in creation order, with its figures accounted up to Now().
  std::vector<LinkStats> Links() const;
  // One link by name; a default LinkStats (empty name) if there is none.
  LinkStats Link(const std::string& name) const;

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  static constexpr LinkId kNoLink = ~LinkId{0};

  // What collecting a component and filling it read sits in the first cache line (the struct is
  // aligned to one); the rest in the second.
  struct alignas(64) LinkState {
    // Flow classes crossing the link: (class, index of this link in the class's path).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> classes;
    std::uint32_t flow_count = 0;  // active flows crossing it: the sum of its classes' sizes
    std::uint32_t fill_unfrozen = 0;  // re-rate scratch: flows not yet frozen
    std::uint64_t visit = 0;          // re-rate scratch: stamped when the walk reaches it
    double capacity = 0;
    double fill_capacity = 0;  // re-rate scratch: capacity not yet frozen
    double fill_sum = 0;       // re-rate scratch: rates frozen on the link so far
    // Second line: the shared links' heap, the group, the one-link re-rate's record.
    std::uint32_t fill_heap_pos = kNone;  // index in the shared links' heap; kNone when not in it
    std::uint32_t group = kNone;   // the rate group of the flows this link holds back, once made
    double fill_share = 0;                // fill_capacity / fill_unfrozen, that heap's key
    std::uint64_t touch = 0;              // re-rate scratch: stamped when its share must move
    // Set by the last re-rate of this link's component when the link was the component's only
    // shared link and froze every class in it (see "One-link re-rates"); `lone_bound` is then at
    // most the least fixed bound (cap or private link's share) of any class in the component.
    double lone_bound = 0;
    // The group whose clocks its figures follow (LinkLedger); kNone when it holds its rate sum.
    std::uint32_t follows = kNone;
    bool lone = false;
    bool dirty = false;
  };
  static_assert(sizeof(LinkState) <= 128);
  // A link's figures for reports, accounted lazily, kept apart from links_ (the re-rate reads
  // those). A link either holds its rate sum, set by each re-rate that reaches it, or follows a
  // rate group: a private link whose class moves in a shared link's group carries `follow_flows`
  // times the group's rate, read off the group's clocks, so a re-rate that only changes that
  // group's rate need not visit it. Marking the link dirty turns it back into a held sum.
  struct LinkLedger {
    double rate_sum = 0;  // while holding it (LinkState::follows is kNone)
    Micros stats_at = 0;
    double bytes_carried = 0;
    Micros busy_time = 0;
    std::uint32_t follow_flows = 0;
    double follow_served = 0;  // the group's served clock at stats_at
    Micros follow_busy = 0;    // the group's busy clock at stats_at
  };
  // The longest path: disk, NIC egress, rack up, rack down, NIC ingress, disk.
  static constexpr std::size_t kMaxPath = 6;
  // A path kept inline, saving the re-rate a pointer chase per class.
  struct InlinePath {
    std::array<LinkId, kMaxPath> ids{};
    std::uint32_t count = 0;
    const LinkId* begin() const { return ids.data(); }
    const LinkId* end() const { return ids.data() + count; }
    std::size_t size() const { return count; }
    bool empty() const { return count == 0; }
    LinkId operator[](std::size_t i) const { return ids[i]; }
    friend bool operator==(const InlinePath&, const InlinePath&) = default;
  };
  // What makes a class: its path (unused entries zero) and its cap.
  struct ClassKey {
    InlinePath path;
    double rate_cap = 0;
    friend bool operator==(const ClassKey&, const ClassKey&) = default;
  };
  struct ClassKeyHash {
    std::size_t operator()(const ClassKey& key) const;
  };
  // The active flows with one path and one rate cap. Max-min fairness gives them one rate, so
  // progressive filling treats them as a single unit weighted by their number.
  struct alignas(64) FlowClass {
    // First cache line (the struct is aligned to one): the path, members and groups, which the
    // walk, the filling and the regrouping all read; the second holds the stamps and rates.
    InlinePath path;
    std::uint32_t group = kNone;  // the group its flows progress in; kNone before its first re-rate
    std::vector<std::uint32_t> members;  // flow slots
    LinkId frozen_by = kNoLink;  // the link whose share froze it; kNoLink for its cap
    std::uint32_t own_group = kNone;  // its group while its own cap holds it back, once made
    std::uint64_t visit = 0;   // re-rate scratch: stamped when the walk reaches it
    std::uint64_t frozen = 0;  // re-rate scratch: stamped when the filling freezes it
    double new_rate = 0;
    double rate_cap = 0;
    std::array<std::uint32_t, kMaxPath> pos_in_link{};  // index of this class in links_[path[i]].classes
  };
  static_assert(sizeof(FlowClass) <= 128);
  // Flows moving at one common rate: held back by the same link, or by their class's cap. The
  // group keeps one clock, `served`: the bytes any member has moved since the group was last
  // empty. A member is done when `served` reaches its tag, so a new rate costs one update and one
  // moved event for the whole group, not one per flow.
  struct RateGroup {
    double rate = 0;
    double served = 0;      // at served_at
    Micros served_at = 0;
    std::vector<std::uint32_t> heap;  // member flow slots, a min-heap on (tag, seq)
    EventId event;          // completes the member at the top of the heap
    Micros event_at = -1;
    std::uint64_t promised = 0;  // seq of the flow the pending event was set for
    std::uint32_t generation = 0;  // bumped when the group is freed
    Micros busy = 0;        // time at a rate above 0, up to served_at (links following it read it)
    // Re-rate scratch.
    std::uint64_t touch = 0;
    std::uint64_t assigned = 0;
    double new_rate = 0;
  };
  struct FlowState {
    std::uint64_t seq = 0;  // 0 while the slot is free
    std::uint32_t cls = kNone;
    std::uint32_t pos_in_class = 0;
    std::uint32_t heap_pos = kNone;  // index in its group's heap; kNone while its class has no group
    double bytes = 0;
    Micros started = 0;
    // In a group: the group's `served` at which the flow is done. Otherwise: the bytes left.
    double tag = 0;
    std::function<void()> on_done;
  };
  struct NodeState {
    LinkId egress, ingress, disk;
    double nic_base, disk_base;
    double nic_factor = 1, disk_factor = 1;
    bool up = true;
    std::size_t vertex;
  };

  // The topology graph. An edge between a and b (a < b) carries the link used when crossing it from
  // a to b and from b to a; kNoLink where the hop is non-blocking.
  struct Hop {
    std::size_t a = 0;
    LinkId a_to_b = kNoLink;
    LinkId b_to_a = kNoLink;
  };
  using Topology = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                         boost::no_property, Hop>;

  LinkId NewLink(std::string name, double capacity);
  void SetLinkCapacity(LinkId link, double capacity);
  // Applies a node's factors and up state to its links.
  void ApplyNodeCapacity(NodeState& node);
  std::size_t AddVertex();
  void Connect(std::size_t a, std::size_t b, LinkId a_to_b, LinkId b_to_a);
  // Appends the links crossed from vertex `from` to vertex `to`.
  void AppendSwitchedPath(std::size_t from, std::size_t to, std::vector<LinkId>& path);
  bool ResolvePath(const Endpoint& src, const Endpoint& dst, std::vector<LinkId>& path);

  // The class of flows with this path and cap, made (and attached to its links) if there is none.
  std::uint32_t ClassFor(const InlinePath& path, double rate_cap);
  void FreeClass(std::uint32_t cls);
  std::uint32_t NewGroup(double rate);
  std::uint32_t LinkGroup(LinkId link);
  std::uint32_t OwnGroup(std::uint32_t cls);
  // The group's clock brought to Now() at its current rate.
  void Advance(RateGroup& group);
  // A group's heap (indexed_heap): members by (tag, seq), each flow's index in heap_pos.
  auto MemberBefore() const {
    return [this](std::uint32_t a, std::uint32_t b) {
      const FlowState& fa = flows_[a];
      const FlowState& fb = flows_[b];
      return fa.tag != fb.tag ? fa.tag < fb.tag : fa.seq < fb.seq;
    };
  }
  auto MemberPlaced() {
    return [this](std::uint32_t slot, std::size_t i) { flows_[slot].heap_pos = static_cast<std::uint32_t>(i); };
  }
  void HeapPush(RateGroup& group, std::uint32_t slot);
  void HeapErase(RateGroup& group, std::uint32_t slot);
  // Sets (or moves, or cancels) the group's event for the member at the top of its heap. With
  // `keep_due_now`, an event due at this very instant stays: the flow it was set for is done.
  void ScheduleGroup(std::uint32_t g, bool keep_due_now);
  // The group's event: completes the flow it was set for and every other member due now.
  void CompleteDue(std::uint32_t g);

  // Marks the link for the next re-rate, which runs at `rerate_at` at the latest (Now() or later).
  void MarkDirty(LinkId link, Micros rerate_at);
  void Rerate();
  // What can freeze classes next in progressive filling, ordered by `value` (a link's fair share or
  // a class's cap), then caps before links, then caps by class and links by id: the order the
  // filling takes them in.
  struct FillEntry {
    double value = 0;
    LinkId link = kNoLink;       // kNoLink for a cap
    std::uint32_t cls = kNone;   // the class it bounds (kNone for a shared link)
  };
  static bool FillBefore(const FillEntry& a, const FillEntry& b) {
    if (a.value != b.value) return a.value < b.value;
    // kNoLink + 1 wraps to 0: caps first, then links by id.
    const LinkId ka = a.link + 1;
    const LinkId kb = b.link + 1;
    return ka != kb ? ka < kb : a.cls < b.cls;
  }
  // std::make_heap's order for a heap whose front is the least entry.
  static bool FixedAfter(const FillEntry& a, const FillEntry& b) { return FillBefore(b, a); }
  // A shared link's entry, as it compares with the fixed bounds.
  FillEntry SharedEntry(LinkId link) const { return {links_[link].fill_share, link, kNone}; }
  void CollectComponent(std::uint64_t mark);
  void FillRates(std::uint64_t mark);
  // The classes' fixed bounds in scratch_fixed_, least first (FillBefore): FixedTop is the least of
  // a class not yet frozen in the filling stamped `mark` (null when none is left), PopFixed takes it.
  void StartFixedBounds();
  void MakeFixedHeap();
  const FillEntry* FixedTop(std::uint64_t mark);
  void PopFixed();
  // The shared links' heap (indexed_heap): links by (fill_share, link id), each index in
  // fill_heap_pos.
  auto ShareBefore() const {
    return [this](LinkId a, LinkId b) {
      const double sa = links_[a].fill_share;
      const double sb = links_[b].fill_share;
      return sa != sb ? sa < sb : a < b;
    };
  }
  auto SharePlaced() {
    return [this](LinkId l, std::size_t i) { links_[l].fill_heap_pos = static_cast<std::uint32_t>(i); };
  }
  void ApplyRates(std::uint64_t mark);
  // The component's classes moved to the groups their new rates put them in.
  void RegroupClasses(std::uint64_t mark);
  // The one shared link of the component just filled if it froze every class, else kNoLink.
  LinkId LoneLink(std::uint64_t mark) const;
  // The one-link re-rate (see "One-link re-rates"): true if it applied and did the whole re-rate,
  // false (having changed nothing) when the full one is needed.
  bool RerateOneLink();
  // Whether class `c` crosses `shared` and only links no other class crosses besides; if so,
  // `bound` is lowered to the class's least fixed bound.
  bool InLoneComponent(std::uint32_t c, LinkId shared, double& bound) const;
  // A group's clocks as Advance would bring them to Now(), without moving them.
  double ServedNow(const RateGroup& group) const;
  Micros BusyNow(const RateGroup& group) const;
  // The link's figures brought to Now(), holding its rate sum (a following link's is its group's
  // current rate times its flows).
  LinkLedger SettledLedger(LinkId link) const;
  // Stores SettledLedger(link): the link holds its rate sum from now. Inline: every link a full
  // re-rate reaches passes here.
  void AccountStats(LinkId link) {
    if (links_[link].follows != kNone) return SettleFollower(link);
    AccountHeld(ledgers_[link], engine_.Now());
  }
  // AccountStats of a link that follows a group.
  void SettleFollower(LinkId link);
  // A holding link's figures brought to `now` at its rate sum.
  static void AccountHeld(LinkLedger& ledger, Micros now) {
    if (const Micros dt = now - ledger.stats_at; dt > 0 && ledger.rate_sum > 0) {
      ledger.bytes_carried += ledger.rate_sum * static_cast<double>(dt) / static_cast<double>(kube::kSecond);
      ledger.busy_time += dt;
    }
    ledger.stats_at = now;
  }
  // Makes the (private) link follow group `g` from Now(); its figures are accounted to Now().
  void Follow(LinkId link, std::uint32_t g);
  LinkStats StatsOf(LinkId link) const;
  // Bytes an active flow has left at Now().
  double RemainingNow(const FlowState& f) const;
  // Detaches the flow from its class and group (marking its links dirty for a re-rate at
  // `rerate_at` at the latest) and frees the slot. The group's event is not moved.
  void Remove(std::uint32_t slot, Micros rerate_at);
  const FlowState* Find(FlowId id) const;

  Engine& engine_;
  NetworkConfig config_;
  std::vector<LinkState> links_;
  std::vector<std::string> link_names_;  // by LinkId, apart from links_ to keep those small
  std::vector<LinkLedger> ledgers_;      // by LinkId
  std::map<std::string, LinkId> link_by_name_;
  std::vector<FlowState> flows_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<FlowClass> classes_;
  std::vector<std::uint32_t> free_classes_;
  // Looked up only, never iterated: its order cannot reach a result.
  std::unordered_map<ClassKey, std::uint32_t, ClassKeyHash> class_by_key_;
  std::vector<RateGroup> groups_;
  std::vector<std::uint32_t> free_groups_;
  // Looked up only (by every flow's start, by node name), never iterated: hashed, so a lookup costs
  // the same with 10,000 nodes as with 100.
  std::unordered_map<std::string, NodeState> nodes_;
  std::map<std::string, std::size_t> rack_vertex_;
  Topology topology_;
  std::size_t spine_vertex_ = 0;
  std::size_t storage_vertex_ = 0;
  std::size_t registry_vertex_ = 0;
  LinkId storage_link_ = 0;
  // BFS predecessor maps by source vertex, computed on demand; cleared when the topology changes.
  std::vector<std::vector<std::size_t>> predecessors_;

  std::vector<LinkId> dirty_links_;
  // Classes made since the last re-rate (some may be freed again): the one-link re-rate places them.
  std::vector<std::uint32_t> new_classes_;
  // Re-rate scratch, kept to avoid allocating on every pass.
  std::vector<LinkId> scratch_links_, scratch_stack_, scratch_touched_;
  std::vector<std::uint32_t> scratch_classes_, scratch_groups_;
  std::vector<LinkId> scratch_heap_;
  std::size_t scratch_shared_ = 0;  // links two classes or more cross in the collected component
  std::vector<FillEntry> scratch_fixed_;
  std::vector<std::uint32_t> fixed_of_class_;  // by class: its index in scratch_fixed_, or kNone
  bool fixed_is_heap_ = false;
  std::size_t fixed_least_ = 0;
  EventId rerate_event_;
  Micros rerate_at_ = -1;  // when rerate_event_ runs, while it is pending
  std::uint64_t epoch_ = 0;  // stamps for visit / dirty / frozen marks

  std::size_t active_ = 0;
  std::uint64_t next_seq_ = 1;
  std::uint64_t started_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t rerates_ = 0;
  std::uint64_t rerates_one_link_ = 0;
  std::uint64_t flows_rerated_ = 0;
};

}  // namespace sim
