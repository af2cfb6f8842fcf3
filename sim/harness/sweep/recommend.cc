#include "sim/harness/sweep/recommend.h"

#include "sim/harness/config/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace harness::sweep {
namespace {

using json = kube::Json;

std::string Money(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", x);
  return buffer;
}

double Makespan(const json& p) { return p["makespanSeconds"].get<double>(); }

double CostOf(const json& p, const std::string& basis) {
  return p.contains(basis) && p[basis].is_number() ? p[basis].get<double>() : 0;
}

std::string QueueKey(const Objective& o) { return "p" + std::to_string(o.queueing_percentile.value_or(95)); }

// Why `p` is not eligible, or "".
std::string Ineligible(const json& p, const Objective& o, const std::string& basis) {
  if (p["outcome"] != "Succeeded") {
    std::string seeds = p["seeds"].get<int>() > 1 ? " in " + p["failedSeeds"].dump() + " of " + p["seeds"].dump() + " seeds" : "";
    return p["lostTo"].get<std::string>() + seeds + ": " + p["reason"].get<std::string>();
  }
  if (o.deadline_seconds && Makespan(p) > *o.deadline_seconds)
    return "slower: makespan " + FormatSeconds(Makespan(p)) + ", over the deadline of " + FormatSeconds(*o.deadline_seconds);
  if (o.budget && CostOf(p, basis) > *o.budget)
    return "dearer: " + FiguresText(p, basis) + ", over the budget of " + Money(*o.budget);
  if (o.queueing_percentile) {
    const json& q = p["queueingSeconds"][QueueKey(o)];
    if (q.is_number() && q.get<double>() > *o.queueing_under_seconds)
      return "queueing: " + QueueKey(o) + " delay " + FormatSeconds(q.get<double>()) + ", over " + FormatSeconds(*o.queueing_under_seconds);
  }
  return "";
}

}  // namespace

std::string FiguresText(const json& point, const std::string& cost_basis) {
  std::string out = point["makespanSeconds"].is_number() ? "makespan " + FormatSeconds(Makespan(point)) : std::string("no makespan");
  if (cost_basis == "cost" && point["cost"].is_number()) out += ", cost " + Money(point["cost"].get<double>());
  else if (point.contains("providedGpuHours") && point["providedGpuHours"].is_number())
    out += ", " + Money(point["providedGpuHours"].get<double>()) + " GPU-hours provided";
  return out;
}

std::string CostLabel(const std::string& cost_basis) { return cost_basis == "cost" ? "cost" : "GPU-hours provided"; }

json ObjectiveToJson(const Objective& o) {
  json out = {{"goal", o.goal == Goal::kFastest ? "fastest" : "cheapest"}};
  out["deadlineSeconds"] = o.deadline_seconds ? json(*o.deadline_seconds) : json(nullptr);
  out["budget"] = o.budget ? json(*o.budget) : json(nullptr);
  out["queueingPercentile"] = o.queueing_percentile ? json(*o.queueing_percentile) : json(nullptr);
  out["queueingUnderSeconds"] = o.queueing_under_seconds ? json(*o.queueing_under_seconds) : json(nullptr);
  return out;
}

Objective ObjectiveFromJson(const json& j) {
  Objective o;
  o.goal = j.value("goal", "fastest") == "cheapest" ? Goal::kCheapest : Goal::kFastest;
  if (j.contains("deadlineSeconds") && j["deadlineSeconds"].is_number()) o.deadline_seconds = j["deadlineSeconds"].get<double>();
  if (j.contains("budget") && j["budget"].is_number()) o.budget = j["budget"].get<double>();
  if (j.contains("queueingPercentile") && j["queueingPercentile"].is_number()) o.queueing_percentile = j["queueingPercentile"].get<int>();
  if (j.contains("queueingUnderSeconds") && j["queueingUnderSeconds"].is_number())
    o.queueing_under_seconds = j["queueingUnderSeconds"].get<double>();
  return o;
}

Recommendation Recommend(const std::vector<json>& points, const Objective& objective) {
  Recommendation r;
  r.objective = Describe(objective);
  r.cost_basis = "cost";
  for (const json& p : points)
    if (p["outcome"] == "Succeeded" && !p["cost"].is_number()) r.cost_basis = "providedGpuHours";
  r.why_lost.assign(points.size(), "");
  std::vector<std::size_t> eligible;
  for (std::size_t i = 0; i < points.size(); ++i) {
    r.why_lost[i] = Ineligible(points[i], objective, r.cost_basis);
    if (r.why_lost[i].empty()) eligible.push_back(i);
  }
  const std::string& basis = r.cost_basis;
  auto key = [&](std::size_t i) {
    const double t = Makespan(points[i]), c = CostOf(points[i], basis);
    return objective.goal == Goal::kFastest ? std::make_tuple(t, c, i) : std::make_tuple(c, t, i);
  };
  std::sort(eligible.begin(), eligible.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  if (!eligible.empty()) r.best = eligible[0];
  if (eligible.size() > 1) r.runner_up = eligible[1];
  for (std::size_t k = 1; k < eligible.size(); ++k) {
    const json& p = points[eligible[k]];
    const json& best = points[*r.best];
    const bool fastest = objective.goal == Goal::kFastest;
    const bool same_time = Makespan(p) == Makespan(best), same_cost = CostOf(p, basis) == CostOf(best, basis);
    std::string word = same_time && same_cost ? "as fast and as cheap, listed later"
                       : fastest              ? (same_time ? "as fast, dearer" : "slower")
                                              : (same_cost ? "as cheap, slower" : "dearer");
    r.why_lost[eligible[k]] = word + ": " + FiguresText(p, basis) + " against " + FiguresText(best, basis);
  }
  // The Pareto front of makespan against cost.
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i]["outcome"] == "Succeeded" && points[i]["makespanSeconds"].is_number()) ok.push_back(i);
  std::sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(Makespan(points[a]), CostOf(points[a], basis), a) < std::make_tuple(Makespan(points[b]), CostOf(points[b], basis), b);
  });
  for (std::size_t i : ok)
    if (r.pareto.empty() || CostOf(points[i], basis) < CostOf(points[r.pareto.back()], basis)) r.pareto.push_back(i);
  return r;
}

json RecommendationJson(const Recommendation& r, const std::vector<json>& points) {
  json out = {{"objective", r.objective}, {"costBasis", r.cost_basis}};
  out["recommended"] = r.best ? json(*r.best) : json(nullptr);
  out["runnerUp"] = r.runner_up ? json(*r.runner_up) : json(nullptr);
  out["pareto"] = r.pareto;
  json lost = json::array();
  for (std::size_t i = 0; i < points.size(); ++i) lost.push_back({{"point", i}, {"label", points[i]["label"]}, {"lost", r.why_lost[i]}});
  out["points"] = lost;
  return out;
}

std::string FormatRecommendation(const Recommendation& r, const std::vector<json>& points) {
  std::string out = "objective: " + r.objective + (r.cost_basis == "cost" ? "" : " (no node has a price: cost is the GPU-hours the cluster provides, its GPUs over the span, held or not)") + "\n";
  if (!r.best) {
    out += "recommended: none: no point succeeded within the objective's limits\n";
  } else {
    out += "recommended: point " + std::to_string(*r.best) + " " + points[*r.best]["label"].get<std::string>() + "  (" +
           FiguresText(points[*r.best], r.cost_basis) + ")\n";
  }
  if (r.runner_up) {
    out += "runner-up:   point " + std::to_string(*r.runner_up) + " " + points[*r.runner_up]["label"].get<std::string>() + "  (" +
           r.why_lost[*r.runner_up] + ")\n";
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    if ((r.best && i == *r.best) || (r.runner_up && i == *r.runner_up)) continue;
    out += "  lost: point " + std::to_string(i) + " " + points[i]["label"].get<std::string>() + ": " + r.why_lost[i] + "\n";
  }
  return out;
}

}  // namespace harness::sweep
