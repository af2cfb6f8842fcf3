#include "sim/dgl/calibration.h"

#include <algorithm>
#include <cmath>

namespace sim::dglmodels {

double MetisBytesPerEdge(const Calibration& c, int parts, bool balance_constraints) {
  const double base = std::min(c.graph_bytes_per_edge, c.metis_bytes_per_edge);
  if (!balance_constraints) return base;
  const double ref_depth = std::log2(std::max(2, c.metis_reference_parts));
  const double depth = std::log2(std::max(2, parts));
  return base + (c.metis_bytes_per_edge - base) * depth / ref_depth;
}

}  // namespace sim::dglmodels
