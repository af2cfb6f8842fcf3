#include "sim/network/network.h"

#include <algorithm>
#include <cmath>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

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

}  // namespace

Network::Network(Engine& engine, NetworkConfig config) : engine_(engine), config_(config) {
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
  for (FlowState& f : flows_) {
    if (f.seq != 0) engine_.Cancel(f.done_event);
  }
}

Network::LinkId Network::NewLink(std::string name, double capacity) {
  const auto id = static_cast<LinkId>(links_.size());
  LinkState& link = links_.emplace_back();
  link.name = std::move(name);
  link.base_capacity = std::max(0.0, capacity);
  link.capacity = link.base_capacity;
  link.stats_at = engine_.Now();
  link_by_name_.emplace(link.name, id);
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
  MarkDirty(link);
}

void Network::SetStorage(double bps) {
  links_[storage_link_].base_capacity = std::max(0.0, bps);
  SetLinkCapacity(storage_link_, bps);
}

void Network::ApplyNodeCapacity(NodeState& node) {
  const double nic = node.up ? node.nic_base * node.nic_factor : 0;
  const double disk = node.up ? node.disk_base * node.disk_factor : 0;
  links_[node.egress].factor = links_[node.ingress].factor = node.nic_factor;
  links_[node.disk].factor = node.disk_factor;
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
    const auto [edge, found] = boost::edge(u, v, topology_);
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

FlowId Network::StartFlow(FlowSpec spec) {
  if (!(spec.bytes >= 0) || !std::isfinite(spec.bytes)) return {};
  std::vector<LinkId> path;
  if (!ResolvePath(spec.src, spec.dst, path)) return {};

  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  }
  FlowState& f = flows_[slot];
  f.seq = next_seq_++;
  f.bytes = spec.bytes;
  f.remaining = spec.bytes;
  f.rate = 0;
  f.rate_cap = spec.rate_cap > 0 && std::isfinite(spec.rate_cap) ? spec.rate_cap : 0;
  f.updated_at = engine_.Now();
  f.done_at = -1;
  f.on_done = std::move(spec.on_done);
  ++active_;
  ++started_;
  const FlowId id(f.seq, slot);

  if (spec.bytes == 0 || path.empty()) {
    // Nothing shared to wait for: a capped local copy runs at its cap, anything else is instant.
    if (spec.bytes > 0 && f.rate_cap > 0) {
      f.rate = f.rate_cap;
    } else {
      f.remaining = 0;
    }
    ScheduleCompletion(slot);
    return id;
  }
  f.path = std::move(path);
  f.pos_in_link.resize(f.path.size());
  for (std::size_t i = 0; i < f.path.size(); ++i) {
    LinkState& link = links_[f.path[i]];
    f.pos_in_link[i] = static_cast<std::uint32_t>(link.flows.size());
    link.flows.emplace_back(slot, static_cast<std::uint32_t>(i));
    MarkDirty(f.path[i]);
  }
  return id;
}

const Network::FlowState* Network::Find(FlowId id) const {
  if (!id.valid() || id.slot_ >= flows_.size()) return nullptr;
  const FlowState& f = flows_[id.slot_];
  return f.seq == id.seq_ ? &f : nullptr;
}

bool Network::IsActive(FlowId id) const { return Find(id) != nullptr; }

double Network::RemainingNow(const FlowState& f) const {
  const double moved = f.rate * static_cast<double>(engine_.Now() - f.updated_at) / kMicrosPerSecond;
  return std::max(0.0, f.remaining - moved);
}

double Network::BytesMoved(FlowId id) const {
  const FlowState* f = Find(id);
  if (f == nullptr) return -1;
  return f->bytes - RemainingNow(*f);
}

double Network::Rate(FlowId id) const {
  const FlowState* f = Find(id);
  return f == nullptr ? -1 : f->rate;
}

double Network::CancelFlow(FlowId id) {
  const FlowState* f = Find(id);
  if (f == nullptr) return -1;
  const double moved = f->bytes - RemainingNow(*f);
  Remove(id.slot_);
  return moved;
}

void Network::MarkDirty(LinkId link) {
  LinkState& l = links_[link];
  if (!l.dirty) {
    l.dirty = true;
    dirty_links_.push_back(link);
  }
  if (!engine_.IsPending(rerate_event_)) rerate_event_ = engine_.Schedule(0, [this] { Rerate(); });
}

void Network::Remove(std::uint32_t slot) {
  FlowState& f = flows_[slot];
  for (std::size_t i = 0; i < f.path.size(); ++i) {
    LinkState& link = links_[f.path[i]];
    const std::uint32_t pos = f.pos_in_link[i];
    const auto moved = link.flows.back();
    link.flows[pos] = moved;
    flows_[moved.first].pos_in_link[moved.second] = pos;
    link.flows.pop_back();
    MarkDirty(f.path[i]);
  }
  engine_.Cancel(f.done_event);
  f.done_event = {};
  f.seq = 0;
  f.path.clear();
  f.pos_in_link.clear();
  f.on_done = nullptr;
  f.rate = 0;
  f.done_at = -1;
  free_slots_.push_back(slot);
  --active_;
}

void Network::ScheduleCompletion(std::uint32_t slot) {
  FlowState& f = flows_[slot];
  Micros delay = 0;
  if (f.remaining > 0) {
    if (!(f.rate > 0) || f.remaining * kMicrosPerSecond / f.rate >= kMaxDelayMicros) {
      // Waits for capacity: no completion event.
      engine_.Cancel(f.done_event);
      f.done_event = {};
      f.done_at = -1;
      return;
    }
    delay = DelayFor(f.remaining, f.rate);
  }
  f.done_at = engine_.Now() + delay;
  // A pending completion moves (the engine keeps its callback); the order among events due at the
  // same time is the same as cancelling it and scheduling anew. Capturing only (this, slot) keeps
  // the callback inside std::function's small buffer. A slot cannot be reused while this event is
  // pending: Remove cancels it before freeing the slot.
  if (engine_.IsPending(f.done_event)) {
    f.done_event = engine_.Reschedule(f.done_event, f.done_at);
  } else {
    f.done_event = engine_.ScheduleAt(f.done_at, [this, slot] { Complete(slot); });
  }
}

void Network::Complete(std::uint32_t slot) {
  FlowState& f = flows_[slot];
  f.done_event = {};  // running now
  std::function<void()> on_done = std::move(f.on_done);
  Remove(slot);
  ++completed_;
  if (on_done) on_done();
}

void Network::AccountStats(LinkState& link) {
  const Micros now = engine_.Now();
  const Micros dt = now - link.stats_at;
  if (dt > 0 && link.rate_sum > 0) {
    link.bytes_carried += link.rate_sum * static_cast<double>(dt) / kMicrosPerSecond;
    link.busy_time += dt;
  }
  link.stats_at = now;
}

void Network::Rerate() {
  rerate_event_ = {};
  ++rerates_;
  const std::uint64_t mark = ++epoch_;
  CollectComponent(mark);
  FillRates(mark);
  ApplyRates();
}

// 1. The connected component of links and flows reachable from the dirty links, into
// scratch_links_ and scratch_flows_, each visited once (stamped with `mark`).
void Network::CollectComponent(std::uint64_t mark) {
  std::vector<LinkId>& comp_links = scratch_links_;
  std::vector<std::uint32_t>& comp_flows = scratch_flows_;
  std::vector<LinkId>& stack = scratch_stack_;
  comp_links.clear();
  comp_flows.clear();
  for (LinkId l : dirty_links_) {
    links_[l].dirty = false;
    if (links_[l].visit != mark) {
      links_[l].visit = mark;
      stack.push_back(l);
    }
  }
  dirty_links_.clear();
  while (!stack.empty()) {
    const LinkId l = stack.back();
    stack.pop_back();
    comp_links.push_back(l);
    for (const auto& [slot, index] : links_[l].flows) {
      FlowState& f = flows_[slot];
      if (f.visit == mark) continue;
      f.visit = mark;
      comp_flows.push_back(slot);
      for (LinkId m : f.path) {
        if (links_[m].visit != mark) {
          links_[m].visit = mark;
          stack.push_back(m);
        }
      }
    }
  }
  flows_rerated_ += comp_flows.size();
}

// 2. Progressive filling over the component: each flow's new_rate.
void Network::FillRates(std::uint64_t mark) {
  std::vector<LinkId>& comp_links = scratch_links_;
  std::vector<std::uint32_t>& comp_flows = scratch_flows_;
  // The heap holds each link's fair share for its unfrozen flows; the
  // lowest share (or the lowest rate cap, if lower) freezes its flows at that rate, which lowers
  // the remaining capacity of the other links they cross.
  // A min-heap of fair-share candidates: link `link` would give each of its unfrozen flows `share`
  // bytes/s; an entry is stale once the link's version moved on. Ties break by link id.
  const auto after = [](const ShareEntry& a, const ShareEntry& b) {
    return a.share != b.share ? a.share > b.share : a.link > b.link;
  };
  std::vector<ShareEntry>& heap = scratch_heap_;
  heap.clear();
  const auto push = [&heap, &after](ShareEntry e) {
    heap.push_back(e);
    std::push_heap(heap.begin(), heap.end(), after);
  };
  const auto pop = [&heap, &after] {
    std::pop_heap(heap.begin(), heap.end(), after);
    heap.pop_back();
  };
  for (LinkId l : comp_links) {
    LinkState& link = links_[l];
    link.fill_capacity = link.capacity;
    link.fill_unfrozen = static_cast<std::uint32_t>(link.flows.size());
    link.fill_sum = 0;
    ++link.fill_version;
    if (link.fill_unfrozen > 0) heap.push_back({link.fill_capacity / link.fill_unfrozen, l, link.fill_version});
  }
  std::make_heap(heap.begin(), heap.end(), after);
  std::vector<std::uint32_t>& capped = scratch_capped_;
  capped.clear();
  for (std::uint32_t slot : comp_flows) {
    if (flows_[slot].rate_cap > 0) capped.push_back(slot);
  }
  std::sort(capped.begin(), capped.end(), [this](std::uint32_t a, std::uint32_t b) {
    const FlowState& fa = flows_[a];
    const FlowState& fb = flows_[b];
    return fa.rate_cap != fb.rate_cap ? fa.rate_cap < fb.rate_cap : fa.seq < fb.seq;
  });

  std::vector<LinkId>& touched = scratch_touched_;
  touched.clear();
  std::uint64_t batch = 0;
  auto freeze = [&](std::uint32_t slot, double rate) {
    FlowState& f = flows_[slot];
    f.frozen = mark;
    f.new_rate = rate;
    for (LinkId m : f.path) {
      LinkState& link = links_[m];
      link.fill_capacity = std::max(0.0, link.fill_capacity - rate);
      link.fill_sum += rate;
      --link.fill_unfrozen;
      if (link.touch != batch) {
        link.touch = batch;
        touched.push_back(m);
      }
    }
  };
  auto flush = [&] {
    for (LinkId m : touched) {
      LinkState& link = links_[m];
      ++link.fill_version;
      if (link.fill_unfrozen > 0) push({link.fill_capacity / link.fill_unfrozen, m, link.fill_version});
    }
    touched.clear();
  };
  // Batch stamps must not collide with earlier re-rates' stamps: derive them from the epoch.
  std::uint64_t batch_base = mark << 32;
  std::size_t next_capped = 0;
  while (true) {
    while (!heap.empty() && links_[heap.front().link].fill_version != heap.front().version) pop();
    while (next_capped < capped.size() && flows_[capped[next_capped]].frozen == mark) ++next_capped;
    const bool have_link = !heap.empty();
    const bool have_cap = next_capped < capped.size();
    if (!have_link && !have_cap) break;
    batch = ++batch_base;
    if (have_cap && (!have_link || flows_[capped[next_capped]].rate_cap <= heap.front().share)) {
      const std::uint32_t slot = capped[next_capped++];
      freeze(slot, flows_[slot].rate_cap);
    } else {
      const ShareEntry top = heap.front();
      pop();
      const double share = std::max(0.0, top.share);
      for (const auto& [slot, index] : links_[top.link].flows) {
        if (flows_[slot].frozen != mark) freeze(slot, share);
      }
    }
    flush();
  }

}

// 3. and 4.: the component's links and flows take their new rates.
void Network::ApplyRates() {
  const Micros now = engine_.Now();
  std::vector<LinkId>& comp_links = scratch_links_;
  std::vector<std::uint32_t>& comp_flows = scratch_flows_;
  // 3. Link figures up to now at the old rates, then the new sums.
  for (LinkId l : comp_links) {
    LinkState& link = links_[l];
    AccountStats(link);
    link.rate_sum = link.fill_sum;
  }

  // 4. Flows whose rate changed: progress at the old rate, then a new completion time. A flow due
  // to complete at this very instant keeps its event: its bytes are done.
  for (std::uint32_t slot : comp_flows) {
    FlowState& f = flows_[slot];
    if (f.new_rate == f.rate) continue;
    f.remaining = RemainingNow(f);
    f.updated_at = now;
    f.rate = f.new_rate;
    if (f.done_at == now && engine_.IsPending(f.done_event)) continue;
    ScheduleCompletion(slot);
  }
}

std::vector<LinkStats> Network::Links() const {
  std::vector<LinkStats> out;
  out.reserve(links_.size());
  const Micros now = engine_.Now();
  for (const LinkState& link : links_) {
    LinkStats s;
    s.name = link.name;
    s.capacity_bps = link.capacity;
    s.rate_bps = link.rate_sum;
    s.bytes_carried = link.bytes_carried;
    s.busy_time = link.busy_time;
    const Micros dt = now - link.stats_at;
    if (dt > 0 && link.rate_sum > 0) {
      s.bytes_carried += link.rate_sum * static_cast<double>(dt) / kMicrosPerSecond;
      s.busy_time += dt;
    }
    s.active_flows = link.flows.size();
    out.push_back(std::move(s));
  }
  return out;
}

LinkStats Network::Link(const std::string& name) const {
  const auto it = link_by_name_.find(name);
  if (it == link_by_name_.end()) return {};
  return Links()[it->second];
}

}  // namespace sim
