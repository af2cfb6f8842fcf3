// Predictions with their ranges. A model is any closed-form function of a Calibration; it is
// evaluated at the calibration's values and once with each unconfirmed parameter at each end of its
// range (calibration.h, UncertainParameters). The low end of the prediction adds every parameter's
// downward change, the high end every upward one: a linearised worst case over all parameters at
// once, with no need to know in which direction a parameter pushes which prediction.
//
// ParameterEnds precomputes the 2 x (number of uncertain parameters) calibrations once; Evaluate
// costs that many evaluations of the model, so programs evaluate a stage once, not per event.
#pragma once

#include "sim/dgl/calibration.h"

#include <functional>
#include <string>
#include <vector>

namespace sim::dglmodels {

// A prediction and its range; low <= value <= high.
struct Estimate {
  double value = 0;
  double low = 0;
  double high = 0;
  // value / low / high times `factor` (a unit change, a count).
  Estimate operator*(double factor) const;
};

class ParameterEnds {
 public:
  explicit ParameterEnds(const Calibration& nominal);
  const Calibration& nominal() const { return nominal_; }
  Estimate Evaluate(const std::function<double(const Calibration&)>& model) const;
  // The parameters that move `model` at all, with the changes at their two ends (for the
  // validation table: which unconfirmed values a prediction depends on).
  struct Sensitivity {
    std::string key;
    double at_low = 0;   // model at the low end minus the value
    double at_high = 0;
  };
  std::vector<Sensitivity> Sensitivities(const std::function<double(const Calibration&)>& model) const;

 private:
  Calibration nominal_;
  std::vector<Calibration> ends_;  // parameter i at its low end at 2i, its high end at 2i + 1
};

}  // namespace sim::dglmodels
