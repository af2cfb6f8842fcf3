#include "sim/network/network.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include "sim/kernel/indexed_heap.h"

namespace sim {
namespace {

constexpr double kMicrosPerSecond = 1e6;
// Completion delays beyond this (about 126,000 years) are treated as never: no event is scheduled
// and the flow waits for a re-rate, like a flow at rate 0.
constexpr double kMaxDelayMicros = 4e18;

// Whole microseconds needed to move `bytes` at `rate`, rounded up, ignoring float noise below
// about one part per billion (so 1e9 bytes at 5e8 B/s is exactly 2 s, not 2 s + 1 us).
Micros DelayFor(double bytes, double rate) {
  const double x = bytes * kMicrosPerSecond / rate;
  const double rounded = std::ceil(x - 1e-9 * std::max(1.0, x));
  return rounded <= 0 ? 0 : static_cast<Micros>(rounded);
}

// A free slot of `items` (the last one freed) or a new one at the end.
template <class T>
std::uint32_t TakeSlot(std::vector<T>& items, std::vector<std::uint32_t>& free) {
  if (free.empty()) {
    items.emplace_back();
    return static_cast<std::uint32_t>(items.size() - 1);
  }
  const std::uint32_t slot = free.back();
  free.pop_back();
  return slot;
}

}  // namespace

Network::Network(Engine& engine, NetworkConfig config) : engine_(engine), config_(config) {
  const double w = config_.rerate_window;
  config_.rerate_window = std::isfinite(w) ? std::clamp(w, 0.0, 1.0) : 0.0;
  spine_vertex_ = AddVertex();
  storage_vertex_ = AddVertex();
  storage_link_ = NewLink("storage", config_.storage_bps);
  // One budget for reads and writes of the store: both directions cross the same link.
  Connect(storage_vertex_, spine_vertex_, storage_link_, storage_link_);
  registry_vertex_ = AddVertex();
  const LinkId registry = config_.registry_bps > 0 ? NewLink("registry", config_.registry_bps) : kNoLink;
  // Pulls only leave the registry; the way back is never used.
  Connect(registry_vertex_, spine_vertex_, registry, kNoLink);
}

Network::~Network() {
  engine_.Cancel(rerate_event_);
  for (RateGroup& g : groups_) engine_.Cancel(g.event);
}

Network::LinkId Network::NewLink(std::string name, double capacity) {
  const auto id = static_cast<LinkId>(links_.size());
  LinkState& link = links_.emplace_back();
  link.capacity = std::max(0.0, capacity);
  ledgers_.emplace_back().stats_at = engine_.Now();
  link_by_name_.emplace(name, id);
  link_names_.push_back(std::move(name));
  return id;
}

std::size_t Network::AddVertex() {
  predecessors_.clear();
  return boost::add_vertex(topology_);
}

void Network::Connect(std::size_t a, std::size_t b, LinkId a_to_b, LinkId b_to_a) {
  predecessors_.clear();
  boost::add_edge(a, b, Hop{a, a_to_b, b_to_a}, topology_);
}

bool Network::AddRack(const std::string& rack, double uplink_bps) {
  if (rack.empty() || rack_vertex_.contains(rack)) return false;
  const std::size_t v = AddVertex();
  LinkId up = kNoLink;
  LinkId down = kNoLink;
  if (uplink_bps > 0) {
    up = NewLink(rack + "/up", uplink_bps);
    down = NewLink(rack + "/down", uplink_bps);
  }
  Connect(v, spine_vertex_, up, down);
  rack_vertex_.emplace(rack, v);
  return true;
}

bool Network::AddNode(const std::string& node, double nic_bps, double disk_bps, const std::string& rack) {
  if (node.empty() || nodes_.contains(node)) return false;
  std::size_t attach = spine_vertex_;
  if (!rack.empty()) {
    if (!rack_vertex_.contains(rack)) AddRack(rack, 0);
    attach = rack_vertex_.at(rack);
  }
  NodeState state;
  state.nic_base = std::max(0.0, nic_bps);
  state.disk_base = std::max(0.0, disk_bps);
  state.egress = NewLink(node + "/nic-egress", state.nic_base);
  state.ingress = NewLink(node + "/nic-ingress", state.nic_base);
  state.disk = NewLink(node + "/disk", state.disk_base);
  state.vertex = AddVertex();
  Connect(state.vertex, attach, state.egress, state.ingress);
  nodes_.emplace(node, state);
  return true;
}

void Network::SetLinkCapacity(LinkId link, double capacity) {
  LinkState& l = links_[link];
  const double c = std::max(0.0, capacity);
  if (c == l.capacity) return;
  l.capacity = c;
  MarkDirty(link, engine_.Now());
}

void Network::SetStorage(double bps) {
  SetLinkCapacity(storage_link_, bps);
}

void Network::ApplyNodeCapacity(NodeState& node) {
  const double nic = node.up ? node.nic_base * node.nic_factor : 0;
  const double disk = node.up ? node.disk_base * node.disk_factor : 0;
  SetLinkCapacity(node.egress, nic);
  SetLinkCapacity(node.ingress, nic);
  SetLinkCapacity(node.disk, disk);
}

bool Network::SetNodeNicFactor(const std::string& node, double factor) {
  const auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  it->second.nic_factor = std::max(0.0, factor);
  ApplyNodeCapacity(it->second);
  return true;
}

bool Network::SetNodeDiskFactor(const std::string& node, double factor) {
  const auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  it->second.disk_factor = std::max(0.0, factor);
  ApplyNodeCapacity(it->second);
  return true;
}

bool Network::SetNodeUp(const std::string& node, bool up) {
  const auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  it->second.up = up;
  ApplyNodeCapacity(it->second);
  return true;
}

void Network::AppendSwitchedPath(std::size_t from, std::size_t to, std::vector<LinkId>& path) {
  if (predecessors_.size() < boost::num_vertices(topology_)) {
    predecessors_.resize(boost::num_vertices(topology_));
  }
  std::vector<std::size_t>& pred = predecessors_[from];
  if (pred.empty()) {
    pred.resize(boost::num_vertices(topology_));
    for (std::size_t v = 0; v < pred.size(); ++v) pred[v] = v;
    boost::breadth_first_search(
        topology_, from,
        boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(pred.data(), boost::on_tree_edge()))));
  }
  // Every vertex hangs off the spine, so the walk back always reaches `from`.
  std::size_t hops[16];
  std::size_t n = 0;
  for (std::size_t v = to; v != from && n < 16; v = pred[v]) hops[n++] = v;
  std::size_t u = from;
  for (std::size_t i = n; i-- > 0;) {
    const std::size_t v = hops[i];
    // An undirected edge is found from either end: search the one with fewer edges (the spine has
    // one per rack or flat node).
    const bool from_u = boost::out_degree(u, topology_) <= boost::out_degree(v, topology_);
    const auto [edge, found] = from_u ? boost::edge(u, v, topology_) : boost::edge(v, u, topology_);
    if (found) {
      const Hop& hop = topology_[edge];
      const LinkId link = hop.a == u ? hop.a_to_b : hop.b_to_a;
      if (link != kNoLink) path.push_back(link);
    }
    u = v;
  }
}

bool Network::ResolvePath(const Endpoint& src, const Endpoint& dst, std::vector<LinkId>& path) {
  using Kind = Endpoint::Kind;
  // The vertex of an end that is not a node; npos for a node.
  constexpr std::size_t kNode = ~std::size_t{0};
  const auto outside = [this](const Endpoint& e) {
    return e.kind == Kind::kStorage ? storage_vertex_ : e.kind == Kind::kRegistry ? registry_vertex_ : kNode;
  };
  const std::size_t src_outside = outside(src);
  const std::size_t dst_outside = outside(dst);
  if (src_outside != kNode && dst_outside != kNode) return false;
  if (dst.kind == Kind::kRegistry) return false;
  const NodeState* s = nullptr;
  const NodeState* d = nullptr;
  if (src_outside == kNode) {
    const auto it = nodes_.find(src.node);
    if (it == nodes_.end()) return false;
    s = &it->second;
  }
  if (dst_outside == kNode) {
    const auto it = nodes_.find(dst.node);
    if (it == nodes_.end()) return false;
    d = &it->second;
  }
  if (s != nullptr && s == d) {
    // Within a node: memory copies are free; anything touching the disk crosses it once.
    if (src.kind == Kind::kDisk || dst.kind == Kind::kDisk) path.push_back(s->disk);
    return true;
  }
  if (src.kind == Kind::kDisk) path.push_back(s->disk);
  AppendSwitchedPath(s == nullptr ? src_outside : s->vertex, d == nullptr ? dst_outside : d->vertex, path);
  if (dst.kind == Kind::kDisk) path.push_back(d->disk);
  return true;
}

std::size_t Network::ClassKeyHash::operator()(const ClassKey& key) const {
  std::uint64_t h = std::hash<double>{}(key.rate_cap) ^ key.path.count;
  for (LinkId l : key.path) h = (h ^ l) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

std::uint32_t Network::ClassFor(const InlinePath& path, double rate_cap) {
  const ClassKey key{path, rate_cap};
  const auto it = class_by_key_.find(key);
  if (it != class_by_key_.end()) return it->second;
  const std::uint32_t c = TakeSlot(classes_, free_classes_);
  FlowClass& k = classes_[c];
  k.path = path;
  k.rate_cap = rate_cap;
  k.group = kNone;
  for (std::size_t i = 0; i < k.path.size(); ++i) {
    LinkState& link = links_[k.path[i]];
    k.pos_in_link[i] = static_cast<std::uint32_t>(link.classes.size());
    link.classes.emplace_back(c, static_cast<std::uint32_t>(i));
  }
  if (k.path.empty()) {
    // Crosses no link: never re-rated, it runs at its cap from the start (an uncapped one has
    // nothing left to move, see StartFlow).
    k.group = OwnGroup(c);
    groups_[k.group].rate = rate_cap;
  } else {
    new_classes_.push_back(c);
  }
  class_by_key_.emplace(key, c);
  return c;
}

void Network::FreeClass(std::uint32_t c) {
  FlowClass& k = classes_[c];
  for (std::size_t i = 0; i < k.path.size(); ++i) {
    LinkState& link = links_[k.path[i]];
    const std::uint32_t pos = k.pos_in_link[i];
    const auto moved = link.classes.back();
    link.classes[pos] = moved;
    classes_[moved.first].pos_in_link[moved.second] = pos;
    link.classes.pop_back();
  }
  class_by_key_.erase(ClassKey{k.path, k.rate_cap});
  if (k.own_group != kNone) {
    RateGroup& g = groups_[k.own_group];
    engine_.Cancel(g.event);
    g = RateGroup{.generation = g.generation + 1};
    free_groups_.push_back(k.own_group);
  }
  k.path.count = 0;
  k.own_group = kNone;
  k.group = kNone;
  free_classes_.push_back(c);
}

std::uint32_t Network::NewGroup(double rate) {
  const std::uint32_t g = TakeSlot(groups_, free_groups_);
  groups_[g].rate = rate;
  groups_[g].served_at = engine_.Now();
  return g;
}

std::uint32_t Network::LinkGroup(LinkId link) {
  if (links_[link].group == kNone) links_[link].group = NewGroup(0);
  return links_[link].group;
}

std::uint32_t Network::OwnGroup(std::uint32_t c) {
  if (classes_[c].own_group == kNone) {
    const std::uint32_t g = NewGroup(0);
    classes_[c].own_group = g;
  }
  return classes_[c].own_group;
}

void Network::Advance(RateGroup& group) {
  const Micros now = engine_.Now();
  if (now != group.served_at && group.rate > 0) {
    group.served += group.rate * static_cast<double>(now - group.served_at) / kMicrosPerSecond;
    group.busy += now - group.served_at;
  }
  group.served_at = now;
}

double Network::ServedNow(const RateGroup& group) const {
  const Micros now = engine_.Now();
  if (now == group.served_at || group.rate <= 0) return group.served;
  return group.served + group.rate * static_cast<double>(now - group.served_at) / kMicrosPerSecond;
}

Micros Network::BusyNow(const RateGroup& group) const {
  return group.rate > 0 ? group.busy + (engine_.Now() - group.served_at) : group.busy;
}

// A group's heap orders its members by (tag, seq); each flow keeps its index in heap_pos.
void Network::HeapPush(RateGroup& group, std::uint32_t slot) {
  indexed_heap::Push(group.heap, slot, MemberBefore(), MemberPlaced());
}

void Network::HeapErase(RateGroup& group, std::uint32_t slot) {
  const std::size_t i = flows_[slot].heap_pos;
  flows_[slot].heap_pos = kNone;
  indexed_heap::Erase(group.heap, i, MemberBefore(), MemberPlaced());
}

FlowId Network::StartFlow(FlowSpec spec) {
  if (!(spec.bytes >= 0) || !std::isfinite(spec.bytes)) return {};
  std::vector<LinkId> path;
  if (!ResolvePath(spec.src, spec.dst, path) || path.size() > kMaxPath) return {};
  const double cap = spec.rate_cap > 0 && std::isfinite(spec.rate_cap) ? spec.rate_cap : 0;
  // Nothing shared to wait for: a capped local copy runs at its cap, anything else is instant.
  double left = spec.bytes;
  if (spec.bytes == 0 || path.empty()) {
    path.clear();
    if (cap == 0) left = 0;
  }

  const std::uint32_t slot = TakeSlot(flows_, free_slots_);
  InlinePath inline_path;
  std::copy(path.begin(), path.end(), inline_path.ids.begin());
  inline_path.count = static_cast<std::uint32_t>(path.size());
  const std::uint32_t c = ClassFor(inline_path, cap);
  FlowClass& k = classes_[c];
  FlowState& f = flows_[slot];
  f.seq = next_seq_++;
  f.cls = c;
  f.pos_in_class = static_cast<std::uint32_t>(k.members.size());
  f.heap_pos = kNone;
  f.bytes = spec.bytes;
  f.started = engine_.Now();
  f.on_done = std::move(spec.on_done);
  k.members.push_back(slot);
  ++active_;
  ++started_;
  for (LinkId l : k.path) {
    ++links_[l].flow_count;
    MarkDirty(l, engine_.Now());
  }
  if (k.group == kNone) {
    f.tag = left;  // placed by the re-rate this start has scheduled
  } else {
    // Joins its class's group now at the class's rate; the re-rate at this instant corrects it.
    RateGroup& g = groups_[k.group];
    Advance(g);
    f.tag = g.served + left;
    HeapPush(g, slot);
    if (g.heap.front() == slot) ScheduleGroup(k.group, true);
  }
  return FlowId(f.seq, slot);
}

const Network::FlowState* Network::Find(FlowId id) const {
  if (!id.valid() || id.slot_ >= flows_.size()) return nullptr;
  const FlowState& f = flows_[id.slot_];
  return f.seq == id.seq_ ? &f : nullptr;
}

bool Network::IsActive(FlowId id) const { return Find(id) != nullptr; }

double Network::RemainingNow(const FlowState& f) const {
  const FlowClass& k = classes_[f.cls];
  if (f.heap_pos == kNone) return f.tag;
  const RateGroup& g = groups_[k.group];
  const double served = g.served + g.rate * static_cast<double>(engine_.Now() - g.served_at) / kMicrosPerSecond;
  return std::max(0.0, f.tag - served);
}

double Network::BytesMoved(FlowId id) const {
  const FlowState* f = Find(id);
  if (f == nullptr) return -1;
  return f->bytes - RemainingNow(*f);
}

double Network::Rate(FlowId id) const {
  const FlowState* f = Find(id);
  if (f == nullptr) return -1;
  // Every class in a group moves at the group's rate; one not yet re-rated has none.
  const std::uint32_t g = classes_[f->cls].group;
  return g == kNone ? 0 : groups_[g].rate;
}

double Network::CancelFlow(FlowId id) {
  const FlowState* f = Find(id);
  if (f == nullptr) return -1;
  const double moved = f->bytes - RemainingNow(*f);
  // Its group's event may have been set for it. That event completes only the flow it was set
  // for or members due by then; the re-rate this cancel schedules moves it, and a group of flows
  // that cross no link (so no re-rate) finds nothing due when it fires and sets it for the next.
  Remove(id.slot_, engine_.Now());
  return moved;
}

void Network::MarkDirty(LinkId link, Micros rerate_at) {
  LinkState& l = links_[link];
  if (!l.dirty) {
    l.dirty = true;
    dirty_links_.push_back(link);
    // Its flows or capacity change: it holds its rate sum until the re-rate sets the next.
    if (l.follows != kNone) AccountStats(link);
  }
  if (!engine_.IsPending(rerate_event_)) {
    rerate_at_ = rerate_at;
    rerate_event_ = engine_.ScheduleAt(rerate_at, [this] { Rerate(); });
  } else if (rerate_at < rerate_at_) {
    rerate_at_ = rerate_at;
    rerate_event_ = engine_.Reschedule(rerate_event_, rerate_at);
  }
}

void Network::Remove(std::uint32_t slot, Micros rerate_at) {
  FlowState& f = flows_[slot];
  const std::uint32_t c = f.cls;
  FlowClass& k = classes_[c];
  if (f.heap_pos != kNone) HeapErase(groups_[k.group], slot);
  const std::uint32_t last = k.members.back();
  k.members[f.pos_in_class] = last;
  flows_[last].pos_in_class = f.pos_in_class;
  k.members.pop_back();
  for (LinkId l : k.path) {
    --links_[l].flow_count;
    MarkDirty(l, rerate_at);
  }
  f.seq = 0;
  f.cls = kNone;
  f.on_done = nullptr;
  free_slots_.push_back(slot);
  --active_;
  if (k.members.empty()) FreeClass(c);
}

void Network::ScheduleGroup(std::uint32_t gi, bool keep_due_now) {
  RateGroup& g = groups_[gi];
  const Micros now = engine_.Now();
  const bool pending = engine_.IsPending(g.event);
  if (keep_due_now && pending && g.event_at == now) return;
  Micros at = -1;
  if (!g.heap.empty()) {
    Advance(g);
    const FlowState& top = flows_[g.heap.front()];
    const double left = top.tag - g.served;
    if (left <= 0) {
      at = now;
    } else if (g.rate > 0 && left * kMicrosPerSecond / g.rate < kMaxDelayMicros) {
      at = now + DelayFor(left, g.rate);
    }
    g.promised = top.seq;
  } else {
    g.served = 0;  // an empty group restarts its clock, keeping the tags small
  }
  if (at < 0) {
    // No member, or the top one waits for capacity: no event.
    engine_.Cancel(g.event);
    g.event = {};
    g.event_at = -1;
    return;
  }
  g.event_at = at;
  // A pending event moves (the engine keeps its callback). Capturing only (this, gi) keeps the
  // callback inside std::function's small buffer. A group is not freed while its event is pending:
  // FreeClass cancels it first.
  if (pending) {
    g.event = engine_.Reschedule(g.event, at);
  } else {
    g.event = engine_.ScheduleAt(at, [this, gi] { CompleteDue(gi); });
  }
}

void Network::CompleteDue(std::uint32_t gi) {
  RateGroup& group = groups_[gi];
  group.event = {};  // running now
  group.event_at = -1;
  Advance(group);
  const std::uint64_t promised = group.promised;
  const std::uint32_t generation = group.generation;
  // Callbacks may start and cancel flows, which can grow groups_ or free this group: look it up
  // again after each one.
  while (groups_[gi].generation == generation && !groups_[gi].heap.empty()) {
    const RateGroup& g = groups_[gi];
    const std::uint32_t slot = g.heap.front();
    FlowState& f = flows_[slot];
    const double left = f.tag - g.served;
    const bool due = left <= 0 || (g.rate > 0 && DelayFor(left, g.rate) == 0);
    if (f.seq != promised && !due) break;
    std::function<void()> on_done = std::move(f.on_done);
    const Micros now = engine_.Now();
    const auto wait = static_cast<Micros>(config_.rerate_window * static_cast<double>(now - f.started));
    Remove(slot, now + wait);
    ++completed_;
    if (on_done) on_done();
  }
  if (groups_[gi].generation == generation && !engine_.IsPending(groups_[gi].event)) ScheduleGroup(gi, false);
}

Network::LinkLedger Network::SettledLedger(LinkId id) const {
  LinkLedger out = ledgers_[id];
  const Micros now = engine_.Now();
  if (const std::uint32_t follows = links_[id].follows; follows != kNone) {
    const RateGroup& g = groups_[follows];
    const double flows = out.follow_flows;
    out.rate_sum = g.rate * flows;
    out.bytes_carried += (ServedNow(g) - out.follow_served) * flows;
    out.busy_time += BusyNow(g) - out.follow_busy;
    out.stats_at = now;
  } else {
    AccountHeld(out, now);
  }
  return out;
}

void Network::SettleFollower(LinkId id) {
  ledgers_[id] = SettledLedger(id);
  links_[id].follows = kNone;
}

LinkStats Network::StatsOf(LinkId id) const {
  const LinkLedger ledger = SettledLedger(id);
  LinkStats s;
  s.name = link_names_[id];
  s.capacity_bps = links_[id].capacity;
  s.rate_bps = ledger.rate_sum;
  s.bytes_carried = ledger.bytes_carried;
  s.busy_time = ledger.busy_time;
  s.active_flows = links_[id].flow_count;
  return s;
}

void Network::Follow(LinkId id, std::uint32_t g) {
  LinkLedger& ledger = ledgers_[id];
  links_[id].follows = g;
  ledger.follow_flows = links_[id].flow_count;
  ledger.follow_served = ServedNow(groups_[g]);
  ledger.follow_busy = BusyNow(groups_[g]);
}

void Network::Rerate() {
  rerate_event_ = {};
  rerate_at_ = -1;
  ++rerates_;
  if (RerateOneLink()) {
    ++rerates_one_link_;
  } else {
    const std::uint64_t mark = ++epoch_;
    CollectComponent(mark);
    FillRates(mark);
    ApplyRates(mark);
  }
  new_classes_.clear();
}

bool Network::InLoneComponent(std::uint32_t c, LinkId shared, double& bound) const {
  const FlowClass& k = classes_[c];
  bool crosses = false;
  double least = k.rate_cap > 0 ? k.rate_cap : std::numeric_limits<double>::infinity();
  for (LinkId m : k.path) {
    if (m == shared) {
      crosses = true;
      continue;
    }
    const LinkState& link = links_[m];
    if (link.classes.size() != 1) return false;
    least = std::min(least, link.capacity / link.flow_count);
  }
  bound = std::min(bound, least);
  return crosses;
}

// The one-link re-rate. Its record on the shared link L (`lone`, `lone_bound`) says: after the
// last re-rate of L's component, L was its only link two classes or more cross and froze every
// class in it, so all of them move in L's group at L's fair share, and no class's fixed bound is
// below `lone_bound`. Any change to that component marks one of its links dirty. When the links
// dirty now are L, links no class crosses any more, and private links of classes that cross L
// (classes made since included) with only private links besides, the component is still L's
// alone; if L's new share is below every fixed bound (the record's, lowered by the changed
// classes' new ones), progressive filling would take L first and freeze every class at that share,
// so the re-rate is: L's share as its group's rate, the new classes moved into that group, and the
// dirty links' figures. Private links of classes that did not change follow the group's rate
// without being visited (LinkLedger). Anything else, or a share not below the bound: false,
// nothing changed, and the full re-rate runs and writes the record again.
bool Network::RerateOneLink() {
  LinkId shared = kNoLink;
  for (LinkId l : dirty_links_) {
    if (links_[l].classes.size() < 2) continue;
    if (shared != kNoLink) return false;
    shared = l;
  }
  if (shared == kNoLink || !links_[shared].lone) return false;
  LinkState& lone = links_[shared];
  double bound = lone.lone_bound;
  for (LinkId l : dirty_links_) {
    const LinkState& link = links_[l];
    if (link.classes.size() == 1 && !InLoneComponent(link.classes.front().first, shared, bound)) return false;
  }
  for (std::uint32_t c : new_classes_) {
    if (!classes_[c].members.empty() && !InLoneComponent(c, shared, bound)) return false;
  }
  const double share = std::max(0.0, lone.capacity / lone.flow_count);
  if (!(share < bound)) return false;

  // The full re-rate's steps, for this component: figures, groups, the group's event.
  lone.lone_bound = bound;
  flows_rerated_ += lone.flow_count;
  for (LinkId l : dirty_links_) {
    links_[l].dirty = false;
    AccountStats(l);
  }
  ledgers_[shared].rate_sum = share * lone.flow_count;
  const std::uint32_t gi = LinkGroup(shared);
  RateGroup& group = groups_[gi];
  Advance(group);
  for (std::uint32_t c : new_classes_) {
    FlowClass& k = classes_[c];
    if (k.members.empty() || k.group == gi) continue;
    // Not yet in a group: each member's tag holds its bytes left.
    for (std::uint32_t slot : k.members) {
      FlowState& f = flows_[slot];
      f.tag += group.served;
      HeapPush(group, slot);
    }
    k.group = gi;
    k.frozen_by = shared;
  }
  group.rate = share;
  ScheduleGroup(gi, true);
  for (LinkId l : dirty_links_) {
    const LinkState& link = links_[l];
    if (l == shared) continue;
    if (link.classes.empty()) {
      ledgers_[l].rate_sum = 0;
    } else {
      Follow(l, gi);
    }
  }
  dirty_links_.clear();
  return true;
}

// 1. The connected component of links and classes reachable from the dirty links, into
// scratch_links_ and scratch_classes_, each visited once (stamped with `mark`), with the filling's
// starting point: the links crossed by two classes or more in the shared links' heap
// (scratch_heap_, not yet a heap), and for each class with a cap or a private link (one only it
// crosses) its fixed entry (scratch_fixed_): the least of its cap and its private links' fair
// shares, offered as each private link is popped. A private link's share cannot change before its
// class is frozen (no other class takes from it), so only the least of a class's bounds can ever be
// the one that freezes it.
void Network::CollectComponent(std::uint64_t mark) {
  std::vector<LinkId>& comp_links = scratch_links_;
  std::vector<std::uint32_t>& comp_classes = scratch_classes_;
  std::vector<LinkId>& stack = scratch_stack_;
  std::vector<LinkId>& heap = scratch_heap_;
  std::vector<FillEntry>& fixed = scratch_fixed_;
  comp_links.clear();
  comp_classes.clear();
  heap.clear();
  fixed.clear();
  for (LinkId l : dirty_links_) {
    links_[l].dirty = false;
    if (links_[l].visit != mark) {
      links_[l].visit = mark;
      stack.push_back(l);
    }
  }
  dirty_links_.clear();
  std::uint64_t flows = 0;
  if (fixed_of_class_.size() < classes_.size()) fixed_of_class_.resize(classes_.size());
  while (!stack.empty()) {
    const LinkId l = stack.back();
    stack.pop_back();
    comp_links.push_back(l);
    // The filling's starting point, set while the link is at hand.
    LinkState& link = links_[l];
    link.fill_capacity = link.capacity;
    link.fill_unfrozen = link.flow_count;
    link.fill_sum = 0;
    link.fill_heap_pos = kNone;
    if (link.classes.size() > 1) {
      link.fill_share = link.capacity / link.flow_count;
      heap.push_back(l);
    }
    for (const auto& [c, index] : link.classes) {
      FlowClass& k = classes_[c];
      if (k.visit == mark) continue;
      k.visit = mark;
      comp_classes.push_back(c);
      flows += k.members.size();
      fixed_of_class_[c] = kNone;
      if (k.rate_cap > 0) {
        fixed_of_class_[c] = static_cast<std::uint32_t>(fixed.size());
        fixed.push_back({k.rate_cap, kNoLink, c});
      }
      for (LinkId m : k.path) {
        if (links_[m].visit != mark) {
          links_[m].visit = mark;
          stack.push_back(m);
        }
      }
    }
    if (link.classes.size() == 1) {
      // A private link: its class (visited by now) takes its share as a bound if it is the least.
      const std::uint32_t c = link.classes.front().first;
      const FillEntry own{link.capacity / link.flow_count, l, c};
      std::uint32_t& at = fixed_of_class_[c];
      if (at == kNone) {
        at = static_cast<std::uint32_t>(fixed.size());
        fixed.push_back(own);
      } else if (FillBefore(own, fixed[at])) {
        fixed[at] = own;
      }
    }
  }
  flows_rerated_ += flows;
  scratch_shared_ = heap.size();
}

// The classes' fixed bounds (scratch_fixed_) are scanned for the least; they become a heap
// (least first) only once one is taken, or the least belongs to a class already frozen.
void Network::StartFixedBounds() {
  const std::vector<FillEntry>& fixed = scratch_fixed_;
  fixed_is_heap_ = false;
  fixed_least_ = 0;
  for (std::size_t i = 1; i < fixed.size(); ++i) {
    if (FillBefore(fixed[i], fixed[fixed_least_])) fixed_least_ = i;
  }
}

void Network::MakeFixedHeap() {
  std::make_heap(scratch_fixed_.begin(), scratch_fixed_.end(), FixedAfter);
  fixed_is_heap_ = true;
}

const Network::FillEntry* Network::FixedTop(std::uint64_t mark) {
  std::vector<FillEntry>& fixed = scratch_fixed_;
  const auto frozen = [&](const FillEntry& e) { return classes_[e.cls].frozen == mark; };
  if (fixed.empty()) return nullptr;
  if (!fixed_is_heap_) {
    if (!frozen(fixed[fixed_least_])) return &fixed[fixed_least_];
    MakeFixedHeap();
  }
  while (!fixed.empty() && frozen(fixed.front())) PopFixed();
  return fixed.empty() ? nullptr : &fixed.front();
}

void Network::PopFixed() {
  if (!fixed_is_heap_) MakeFixedHeap();
  std::pop_heap(scratch_fixed_.begin(), scratch_fixed_.end(), FixedAfter);
  scratch_fixed_.pop_back();
}

// 2. Progressive filling over the component: each class's new_rate and what froze it.
void Network::FillRates(std::uint64_t mark) {
  std::vector<std::uint32_t>& comp_classes = scratch_classes_;
  // Two sources of what freezes next, the least of them first (FillBefore): the shared links'
  // heap of fair shares for their unfrozen flows, an indexed min-heap whose entries move as shares
  // change (each link at links_[l].fill_heap_pos), and the classes' fixed entries, which never
  // change. Freezing classes at the least share (or cap) lowers the remaining capacity of the other
  // links they cross. The fixed entries are scanned for their least first and made a heap only
  // once one is taken or the least goes stale: often a shared link freezes every class first.
  std::vector<LinkId>& heap = scratch_heap_;
  const auto before = ShareBefore();
  const auto placed = SharePlaced();
  const auto erase = [&](std::size_t i) {
    links_[heap[i]].fill_heap_pos = kNone;
    indexed_heap::Erase(heap, i, before, placed);
  };
  indexed_heap::Build(heap, before, placed);
  StartFixedBounds();
  std::vector<LinkId>& touched = scratch_touched_;
  touched.clear();
  std::uint64_t batch = 0;
  // Once every class is frozen the links left in the heap have no unfrozen flow: stop there.
  std::size_t unfrozen = comp_classes.size();
  auto freeze = [&](std::uint32_t c, double rate, LinkId by) {
    FlowClass& k = classes_[c];
    k.frozen = mark;
    --unfrozen;
    k.new_rate = rate;
    k.frozen_by = by;
    const auto n = static_cast<std::uint32_t>(k.members.size());
    const double total = rate * n;
    for (LinkId m : k.path) {
      if (m == by) continue;  // the link whose share froze it is settled once, by its caller
      LinkState& link = links_[m];
      link.fill_capacity = std::max(0.0, link.fill_capacity - total);
      link.fill_sum += total;
      link.fill_unfrozen -= n;
      // Only a shared link in the heap with flows still unfrozen has a share left to move.
      if (link.fill_heap_pos != kNone && link.fill_unfrozen > 0 && link.touch != batch) {
        link.touch = batch;
        touched.push_back(m);
      }
    }
  };
  auto flush = [&] {
    for (LinkId m : touched) {
      LinkState& link = links_[m];
      // A link left with no unfrozen flow stays where it is, dead, until it reaches the top (or
      // the filling ends first, as when one link freezes everything).
      if (link.fill_heap_pos == kNone || link.fill_unfrozen == 0) continue;
      link.fill_share = link.fill_capacity / link.fill_unfrozen;
      indexed_heap::Update(heap, link.fill_heap_pos, before, placed);
    }
    touched.clear();
  };
  // Batch stamps must not collide with earlier re-rates' stamps: derive them from the epoch.
  std::uint64_t batch_base = mark << 32;
  // Freezes the unfrozen classes of a link at `share`: the link is full (or has no flow left).
  const auto fill_link = [&](LinkId l, double share) {
    LinkState& link = links_[l];
    link.fill_sum += share * link.fill_unfrozen;
    link.fill_capacity = 0;
    link.fill_unfrozen = 0;
    for (const auto& [c, index] : link.classes) {
      if (classes_[c].frozen != mark) freeze(c, share, l);
    }
  };
  while (unfrozen > 0) {
    while (!heap.empty() && links_[heap.front()].fill_unfrozen == 0) erase(0);
    const FillEntry* own = FixedTop(mark);
    if (heap.empty() && own == nullptr) break;
    batch = ++batch_base;
    const bool own_first = own != nullptr && (heap.empty() || FillBefore(*own, SharedEntry(heap.front())));
    if (own_first) {
      const FillEntry e = *own;
      PopFixed();
      if (e.link != kNoLink) {
        fill_link(e.link, std::max(0.0, e.value));
      } else {
        freeze(e.cls, e.value, kNoLink);
      }
    } else {
      const LinkId top = heap.front();
      erase(0);
      fill_link(top, std::max(0.0, links_[top].fill_share));
    }
    flush();
  }
}

// 3. and 4.: the component's links take their new rate sums, its classes their new rates and
// groups.
void Network::ApplyRates(std::uint64_t mark) {
  const LinkId lone = LoneLink(mark);
  for (LinkId l : scratch_links_) {
    LinkState& link = links_[l];
    AccountStats(l);
    ledgers_[l].rate_sum = link.fill_sum;
    link.lone = false;
  }
  RegroupClasses(mark);
  if (lone == kNoLink) return;
  // The record the one-link re-rate starts from; the private links follow the group from now.
  LinkState& link = links_[lone];
  link.lone = true;
  link.lone_bound = scratch_fixed_.empty() ? std::numeric_limits<double>::infinity() : scratch_fixed_[fixed_least_].value;
  for (LinkId l : scratch_links_) {
    if (links_[l].classes.size() == 1) Follow(l, link.group);
  }
}

// When one link froze every class, the filling took it first: the fixed bounds are as collected
// (not yet a heap, none taken) and fixed_least_ is the least of them.
Network::LinkId Network::LoneLink(std::uint64_t mark) const {
  if (scratch_shared_ != 1 || fixed_is_heap_ || scratch_classes_.empty()) return kNoLink;
  const LinkId shared = classes_[scratch_classes_.front()].frozen_by;
  if (shared == kNoLink || links_[shared].classes.size() < 2) return kNoLink;
  for (std::uint32_t c : scratch_classes_) {
    if (classes_[c].frozen != mark || classes_[c].frozen_by != shared) return kNoLink;
  }
  return shared;
}

void Network::RegroupClasses(std::uint64_t mark) {
  const Micros now = engine_.Now();
  std::vector<std::uint32_t>& touched = scratch_groups_;
  touched.clear();
  // A group's clock is brought to now at its old rate the first time the pass touches it, before
  // any flow moves in or out.
  const auto touch = [&](std::uint32_t g) {
    RateGroup& group = groups_[g];
    if (group.touch == mark) return;
    group.touch = mark;
    Advance(group);
    touched.push_back(g);
  };
  // Each class's new group: the one of the link that froze it, or its own for its cap. Every
  // class in a touched group is in the component (they all cross the group's link), so a group
  // that gets no class this pass is left empty.
  for (std::uint32_t c : scratch_classes_) {
    const std::uint32_t target = classes_[c].frozen_by == kNoLink ? OwnGroup(c) : LinkGroup(classes_[c].frozen_by);
    FlowClass& k = classes_[c];
    touch(target);
    groups_[target].assigned = mark;
    groups_[target].new_rate = k.new_rate;
    if (k.group == target) continue;
    RateGroup* from = nullptr;
    if (k.group != kNone) {
      touch(k.group);
      from = &groups_[k.group];
    }
    // A flow whose completion event is due at this very instant is done, whatever its new rate.
    const bool due_now = from != nullptr && engine_.IsPending(from->event) && from->event_at == now;
    RateGroup& to = groups_[target];
    for (std::uint32_t slot : k.members) {
      FlowState& f = flows_[slot];
      double left = f.tag;
      if (from != nullptr) {
        left = due_now && f.seq == from->promised ? 0 : std::max(0.0, f.tag - from->served);
        HeapErase(*from, slot);
      }
      f.tag = to.served + left;
      HeapPush(to, slot);
    }
    k.group = target;
  }
  for (std::uint32_t g : touched) {
    RateGroup& group = groups_[g];
    group.rate = group.assigned == mark ? group.new_rate : 0;
    ScheduleGroup(g, true);
  }
}

std::vector<LinkStats> Network::Links() const {
  std::vector<LinkStats> out;
  out.reserve(links_.size());
  for (LinkId id = 0; id < links_.size(); ++id) out.push_back(StatsOf(id));
  return out;
}

LinkStats Network::Link(const std::string& name) const {
  const auto it = link_by_name_.find(name);
  if (it == link_by_name_.end()) return {};
  return StatsOf(it->second);
}

}  // namespace sim
