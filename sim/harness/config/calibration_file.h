// Reads the `dglsim/v1 Calibration` YAML that `dglsim calibrate` writes (partition:
// metisEdgesPerSecond, metisBytesPerEdge, metisFixedSeconds, metisFixedBytes, structure
// random|real; points: nodes, edges, parts, seconds, peakBytes, edgeCut) and returns the model
// defaults (sim/dgl/calibration.h) on the machine that measured it: its points (or its line) give
// METIS's speed and memory there against the laws (sim/dgl/calibration.h, WithMeasuredMachine).
// Problems come back as `FILE:LINE:COL: FIELD.PATH: message`; nothing throws.
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
