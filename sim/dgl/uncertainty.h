// Predictions with their ranges. A model is any closed-form function of a Calibration; it is
// evaluated at the calibration's values and once with each unconfirmed parameter at each end of its
// range (calibration.h, UncertainParameters). Each range is read as a 90 % interval of its
// parameter (kBandCoverage in fits.h): a planning range as its author's 90 %, a law's error factor
// as the 90 % band of its leave-one-out errors. The prediction's band combines the parameters'
// changes root-sum-square in log space, the downward ones for its low end and the upward ones for
// its high end: independent errors, so the band is a 90 % band too, and never narrower than any
// one parameter's change (a run never looks more certain than any of its inputs). No parameter
// needs a direction: whichever end makes a prediction smaller counts towards its low.
// A prediction that is not positive (a count of failures, a difference) combines linearly instead.
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
