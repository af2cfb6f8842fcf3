// Reads the `dglsim/v1 Calibration` YAML that `dglsim calibrate` writes (keys
// partition.metisEdgesPerSecond, metisBytesPerEdge, metisFixedSeconds, metisFixedBytes; `points`
// is informational) and returns the model defaults (sim/dgl/calibration.h) with those keys
// overridden. Problems come back as `FILE:LINE:COL: FIELD.PATH: message`; nothing throws.
#pragma once

#include "sim/dgl/calibration.h"

#include <optional>
#include <string>
#include <vector>

namespace harness {

using sim::dglmodels::Calibration;
using sim::dglmodels::CalibrationPoint;

struct CalibrationLoad {
  std::optional<Calibration> calibration;  // set exactly when there are no problems
  std::vector<CalibrationPoint> points;
  std::vector<std::string> problems;        // "FILE:LINE:COL: FIELD.PATH: message"
  bool ok() const { return calibration.has_value(); }
};

// Reads a `dglsim/v1 Calibration` file over the defaults.
CalibrationLoad LoadCalibrationFile(const std::string& path);
CalibrationLoad LoadCalibrationString(const std::string& text, const std::string& file);

}  // namespace harness
