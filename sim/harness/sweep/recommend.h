// The recommendation: of a sweep's points (results.h PointSummaries), the one that best meets the
// objective, the runner-up, and for every other point why it lost.
//
// Eligible points succeeded in every seed and keep the objective's limits: makespan within the
// deadline, cost within the budget, the queueing percentile under its bound. `fastest` orders them
// by makespan (then cost, then point number); `cheapest` by cost (then makespan, then point). Cost
// is money when every succeeded point has one (priced nodes or pools), otherwise the GPU-hours the
// cluster provides (its GPUs over the span, held by pods or not: what a planner pays for, so a
// cluster twice as large is twice as dear), and the recommendation says which.
//
// Why a point lost, in this order: it did not succeed (OOMKilled, MPI limit, failed, unfinished,
// with its reason), it broke a limit ("over the deadline", "over budget", "queueing"), or it was
// slower / dearer than the recommendation (with both figures), or as fast and as cheap and listed
// after it (a tie goes to the lower point number).
//
// The Pareto front: the succeeded points that no other point beats on both makespan and cost, by
// makespan; read from the fastest down, each is the cheapest configuration for any deadline from its
// makespan up to the next one's.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/sweep/sweep_file.h"

#include <optional>
#include <string>
#include <vector>

namespace harness::sweep {

struct Recommendation {
  std::string objective;        // Describe(objective)
  std::string cost_basis;       // "cost" or "providedGpuHours"
  std::optional<std::size_t> best;
  std::optional<std::size_t> runner_up;
  std::vector<std::string> why_lost;  // per point; "" for the best
  std::vector<std::size_t> pareto;    // point numbers, by makespan
};

Objective ObjectiveFromJson(const kube::Json& objective);
kube::Json ObjectiveToJson(const Objective& objective);

Recommendation Recommend(const std::vector<kube::Json>& points, const Objective& objective);

// {objective, costBasis, recommended, runnerUp, pareto, points: [{point, label, lost}]}.
kube::Json RecommendationJson(const Recommendation& r, const std::vector<kube::Json>& points);
// The terminal's lines: "recommended: ...", "runner-up: ...", then each loser with its reason.
std::string FormatRecommendation(const Recommendation& r, const std::vector<kube::Json>& points);

// A point's makespan and cost as text ("makespan 1h5m, cost 32.10" / "makespan 1h5m, 12.30 GPU-hours provided").
std::string FiguresText(const kube::Json& point, const std::string& cost_basis);
// What the cost basis is called in tables and charts: "cost" or "GPU-hours provided".
std::string CostLabel(const std::string& cost_basis);

}  // namespace harness::sweep
