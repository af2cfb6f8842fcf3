#include "sim/dgl/uncertainty.h"

#include <algorithm>
#include <cmath>

namespace sim::dglmodels {

Estimate Estimate::operator*(double factor) const {
  Estimate e{value * factor, low * factor, high * factor};
  if (e.low > e.high) std::swap(e.low, e.high);
  return e;
}

ParameterEnds::ParameterEnds(const Calibration& nominal) : nominal_(nominal) {
  for (const UncertainParameter& p : UncertainParameters()) {
    ends_.push_back(AtRangeEnd(nominal, p, false));
    ends_.push_back(AtRangeEnd(nominal, p, true));
  }
}

Estimate ParameterEnds::Evaluate(const std::function<double(const Calibration&)>& model) const {
  Estimate e;
  e.value = model(nominal_);
  const bool logs = e.value > 0 && std::isfinite(e.value);
  // Sums of squared changes: in log space for a positive prediction, else in its units.
  double down = 0, up = 0;
  for (std::size_t i = 0; i + 1 < ends_.size(); i += 2) {
    double a = model(ends_[i]), b = model(ends_[i + 1]);
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    if (logs) {
      // An end that takes the quantity to zero or below counts as a millionth of it.
      a = std::log(std::max(a, 1e-6 * e.value) / e.value);
      b = std::log(std::max(b, 1e-6 * e.value) / e.value);
    } else {
      a -= e.value, b -= e.value;
    }
    const double low = std::min({0.0, a, b}), high = std::max({0.0, a, b});
    down += low * low;
    up += high * high;
  }
  if (logs) {
    e.low = e.value * std::exp(-std::sqrt(down));
    e.high = e.value * std::exp(std::sqrt(up));
  } else {
    e.low = e.value - std::sqrt(down);
    e.high = e.value + std::sqrt(up);
    // A quantity that cannot go below zero keeps a non-negative low end.
    if (e.value >= 0) e.low = std::max(0.0, e.low);
  }
  return e;
}

std::vector<ParameterEnds::Sensitivity> ParameterEnds::Sensitivities(
    const std::function<double(const Calibration&)>& model) const {
  std::vector<Sensitivity> out;
  const double value = model(nominal_);
  const auto& params = UncertainParameters();
  for (std::size_t i = 0; i < params.size() && 2 * i + 1 < ends_.size(); ++i) {
    const double a = model(ends_[2 * i]) - value;
    const double b = model(ends_[2 * i + 1]) - value;
    if (std::abs(a) <= 1e-9 * std::max(1.0, std::abs(value)) && std::abs(b) <= 1e-9 * std::max(1.0, std::abs(value)))
      continue;
    out.push_back({params[i].key, a, b});
  }
  return out;
}

}  // namespace sim::dglmodels
