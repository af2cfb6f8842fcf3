#include "sim/dgl/published.h"

#include "sim/dgl/dataset.h"
#include "sim/dgl/laws.h"
#include "sim/dgl/models.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace sim::dglmodels {

namespace {

constexpr double kGB = 1e9;
const char* kCalibrationMd = "calibration.md";
const char* kLog = "calibration.md: DGL's METIS log, ogbn-papers100M";
const char* kMeasured = "measured here: dglsim calibrate, reports/metis-measured/";

DatasetInfo Papers() {
  DatasetInfo d;
  d.name = "ogbn-papers100M";
  d.nodes = static_cast<std::int64_t>(kPapersNodes);
  d.edges = static_cast<std::int64_t>(kPapersStoredEdges);
  d.feature_dim = 128;
  d.train_nodes = static_cast<std::int64_t>(kPapersTrainNodes);
  return d;
}

DatasetInfo Products() {
  DatasetInfo d;
  d.name = "ogbn-products";
  d.nodes = static_cast<std::int64_t>(kProductsNodes);
  d.edges = static_cast<std::int64_t>(kProductsSymEdges / 2);
  d.feature_dim = 100;
  d.train_nodes = static_cast<std::int64_t>(kProductsTrainNodes);
  return d;
}

GraphShape Shape(double nodes, double sym_edges, Structure s = Structure::kReal) { return {nodes, sym_edges, 0, s}; }

// One of the METIS runs measured here (reports/metis-measured/*.txt: CPU seconds, as the machine
// was shared; peak bytes; undirected edges cut).
struct Measured {
  const char* generator;  // "R-MAT" or "Barabasi-Albert"
  double nodes, edges;    // edges symmetrised
  int parts;
  double cpu_seconds;
  double peak_bytes;
  double edge_cut;
  bool memory_fit;        // used to fit metis32_bytes_per_edge / _per_node
};

const std::vector<Measured>& MeasuredRuns() {
  static const std::vector<Measured> kRuns = {
      {"R-MAT", 65536, 1819208, 16, 1.5539, 123809792, 610892, false},
      {"R-MAT", 65536, 1819208, 64, 2.2554, 109260800, 749693, false},
      {"R-MAT", 262144, 7610396, 16, 9.1671, 504901632, 2727129, false},
      {"R-MAT", 262144, 7610396, 64, 6.4098, 521531392, 3449869, false},
      {"R-MAT", 1048576, 31399660, 16, 61.0478, 2130771968, 11027160, false},
      {"R-MAT", 1048576, 31399660, 64, 36.4404, 2165817344, 14328611, false},
      {"R-MAT", 2097152, 63543364, 16, 110.2582, 4526755840, 22986447, false},
      {"R-MAT", 2097152, 63543364, 64, 87.5627, 4628033536, 29068585, false},
      {"R-MAT", 262144, 7610396, 2, 4.4701, 455704576, 1260362, false},
      {"R-MAT", 262144, 7610396, 8, 6.5974, 549343232, 2260884, false},
      {"R-MAT", 262144, 7610396, 256, 16.4447, 519024640, 3551344, false},
      {"R-MAT", 262144, 7610396, 1024, 30.9878, 471367680, 3596157, false},
      {"R-MAT", 262144, 7610396, 4096, 55.0583, 537378816, 3642097, false},
      {"R-MAT", 131072, 999564, 16, 0.8101, 74469376, 358280, false},
      {"R-MAT", 524288, 4063960, 16, 6.1346, 323235840, 1466422, true},
      {"R-MAT", 131072, 1942500, 16, 1.6716, 140926976, 675467, false},
      {"R-MAT", 524288, 7968202, 16, 12.7775, 599056384, 2944331, false},
      {"R-MAT", 131072, 7045060, 16, 5.0965, 393240576, 2256474, false},
      {"R-MAT", 524288, 29729340, 16, 32.7213, 1807941632, 10740765, true},
      {"Barabasi-Albert", 262144, 4194232, 16, 6.4353, 290004992, 1493380, false},
      {"Barabasi-Albert", 262144, 4194232, 64, 10.1226, 321208320, 1655544, false},
      {"Barabasi-Albert", 1048576, 16777144, 16, 43.3447, 1174831104, 5972181, false},
      {"Barabasi-Albert", 1048576, 16777144, 64, 83.3008, 1256275968, 6619365, false},
  };
  return kRuns;
}

// This machine's METIS speed against the reference machine: fitted over the runs measured here.
double ThisMachineSpeed(const Calibration& c) {
  double log_sum = 0;
  for (const Measured& m : MeasuredRuns())
    log_sum += std::log(MetisSeconds(c, Shape(m.nodes, m.edges, Structure::kRandom), m.parts, 1) / m.cpu_seconds);
  return std::exp(log_sum / static_cast<double>(MeasuredRuns().size()));
}

std::string Count(double v) {
  char buf[32];
  if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.2f M", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.0f K", v / 1e3);
  return buf;
}

PublishedPoint Point(std::string id, std::string group, std::string what, std::string source, std::string unit,
                     double low, double high, bool fitted, std::function<double(const Calibration&)> model,
                     std::string note = "") {
  return {std::move(id), std::move(group), std::move(what), std::move(source), std::move(unit), low, high, fitted,
          std::move(model), std::move(note)};
}

void AddPreparation(std::vector<PublishedPoint>& out) {
  const std::string g = "Dataset preparation";
  const std::string kumo = "calibration.md: kumo.ai's PyG dataset page (secondary)";
  out.push_back(Point("papers-download", g, "ogbn-papers100M download", kumo, "GB", 57, 57, true,
                      [](const Calibration& c) { return ArchiveBytes(Papers(), c) / kGB; }));
  out.push_back(Point("papers-ogb-load-peak", g, "ogbn-papers100M through OGB's loader, peak memory", kumo, "GB", 400, 400,
                      true, [](const Calibration& c) { return PeakBytes(PrepareSteps(Papers(), c, 1.0)) / kGB; }));
  const std::string disk = "calibration.md: DGL's disk-based feature example";
  out.push_back(Point("papers-processed-graph", g, "ogbn-papers100M graph on disk after loading", disk, "GB", 13, 13, true,
                      [](const Calibration& c) { return c.processed_bytes_per_stored_edge * kPapersStoredEdges / kGB; }));
  out.push_back(Point("papers-processed-features", g, "ogbn-papers100M features on disk after loading", disk, "GB", 53, 53,
                      false, [](const Calibration& c) { return c.feature_bytes_per_value * kPapersFeatureDim * kPapersNodes / kGB; },
                      "float32 x 128 x 111 M nodes; the 53 reads as GiB (56.9 GB)"));
}

void AddPartitionLog(std::vector<PublishedPoint>& out) {
  const std::string g = "dgl.distributed.partition_graph (ogbn-papers100M, 64 parts, --balance-train --balance-edges)";
  auto step = [](const char* name, bool bytes) {
    return [name, bytes](const Calibration& c) {
      for (const PartitionStep& s : SspSteps(Papers(), c, {.parts = 64, .balance_train = true, .balance_edges = true}, 1.0))
        if (s.name == name) return bytes ? s.peak_bytes / kGB : s.seconds;
      return 0.0;
    };
  };
  struct Row {
    const char* id;
    const char* name;
    double seconds;
    double gb;
  };
  for (const Row& r : {Row{"homogeneous", "to homogeneous", 6.9, 190}, Row{"bidirected", "to bidirected", 152.9, 234},
                       Row{"constraints", "constraint weights", 40.5, 500.6}, Row{"metis", "METIS", 4845.8, 599.2},
                       Row{"reshuffle", "reshuffle", 210.7, 0}, Row{"split", "split", 428.7, 0}}) {
    out.push_back(Point(std::string("papers-") + r.id + "-seconds", g, std::string(r.name) + ", time", kLog, "s", r.seconds,
                        r.seconds, true, step(r.name, false)));
    if (r.gb > 0)
      out.push_back(Point(std::string("papers-") + r.id + "-peak", g, std::string(r.name) + ", peak memory", kLog, "GB", r.gb,
                          r.gb, true, step(r.name, true)));
  }
  out.push_back(Point("papers-node-assignment", g, "node assignment in total", kLog, "s", 5040, 5040, false,
                      [](const Calibration& c) {
                        double total = 0;
                        for (const PartitionStep& s : SspSteps(Papers(), c, {.parts = 64, .balance_train = true, .balance_edges = true}, 1.0))
                          if (s.name != "reshuffle" && s.name != "split") total += s.seconds;
                        return total;
                      }));
}

void AddMetisScaling(std::vector<PublishedPoint>& out) {
  const std::string g = "METIS on ogbn-products (single process, a home machine)";
  const std::string src = "calibration.md: a public test log";
  const char* home = "plain METIS; the home machine metisHomeMachineSpeed x the log's";
  for (int parts : {64, 1024, 4096}) {
    const double published = parts == 64 ? 20.8 : parts == 1024 ? 37.6 : 66.8;
    out.push_back(Point("products-metis-" + std::to_string(parts), g, "METIS, " + std::to_string(parts) + " parts", src, "s",
                        published, published, true, [parts](const Calibration& c) {
                          return MetisSeconds(c, Shape(kProductsNodes, kProductsSymEdges), parts, 1) / c.metis_home_machine_speed;
                        }, home));
  }
  out.push_back(Point("products-random-assignment", g, "random assignment", src, "s", 0.02, 0.02, true,
                      [](const Calibration& c) { return RandomAssignmentSeconds(c, kProductsNodes) / c.metis_home_machine_speed; }));
  out.push_back(Point("random-assignment-100m", g, "random assignment of 100 M nodes", kCalibrationMd, "s", 0, 1, false,
                      [](const Calibration& c) { return RandomAssignmentSeconds(c, 100e6) / c.metis_home_machine_speed; },
                      "\"well under a second per 100 M nodes\""));
  out.push_back(Point("products-metis-cut-64", g, "METIS edge cut, 64 parts", src, "M edges", 16.7, 16.7, true,
                      [](const Calibration& c) { return MetisCutFraction(c, 64, Structure::kReal) * kProductsSymEdges / 1e6; },
                      "symmetrised edges"));
  out.push_back(Point("products-random-cut-64", g, "random assignment's edge cut, 64 parts", src, "M edges", 121.8, 121.8,
                      false, [](const Calibration&) { return RandomCutFraction(64) * kProductsSymEdges / 1e6; }));
}

void AddBaselines(std::vector<PublishedPoint>& out) {
  const std::string g = "Other partitioners (mt-metis baseline, Libra)";
  const std::string mt = "calibration.md: an out-of-core mt-metis fork's README";
  out.push_back(Point("mt-metis-time-ratio", g, "mt-metis time, ogbn-papers100M over ogbn-products (37 min / 51 s)", mt, "x",
                      43.5, 43.5, false, [](const Calibration& c) {
                        return MetisSeconds(c, Shape(kPapersNodes, kPapersSymEdges), 64, 1) /
                               MetisSeconds(c, Shape(kProductsNodes, kProductsSymEdges), 64, 1);
                      }, "the METIS law's size growth; threads and parts unknown"));
  out.push_back(Point("mt-metis-products-memory", g, "mt-metis memory, ogbn-products", mt, "GB", 7.4, 7.4, false,
                      [](const Calibration& c) { return Metis32Bytes(c, Shape(kProductsNodes, kProductsSymEdges)) / kGB; },
                      "the 32-bit METIS memory law measured here"));
  out.push_back(Point("mt-metis-papers-memory", g, "mt-metis memory, ogbn-papers100M", mt, "GB", 232.4, 232.4, false,
                      [](const Calibration& c) { return Metis32Bytes(c, Shape(kPapersNodes, kPapersSymEdges)) / kGB; },
                      "the 32-bit METIS memory law measured here"));
  out.push_back(Point("mt-metis-400m-oom", g, "mt-metis on a 400 M-node papers100M: out of memory", mt, "fails", 1, 1, false, {},
                      "not modelled: the machine's memory is not published"));
  const std::string libra = "calibration.md: DGL's old Libra example README";
  for (const auto& [name, seconds, gb] : std::vector<std::tuple<std::string, double, double>>{
           {"ogbn-papers100M", 25000, 200}, {"ogbn-products", 2000, 30}, {"Reddit", 1500, 25}}) {
    out.push_back(Point("libra-" + name + "-seconds", g, "Libra, " + name + ", time", libra, "s", seconds, seconds, false, {},
                        "not modelled: a vertex-cut partitioner the operator never runs"));
    out.push_back(Point("libra-" + name + "-memory", g, "Libra, " + name + ", memory", libra, "GB", gb, gb, false, {},
                        "not modelled: a vertex-cut partitioner the operator never runs"));
  }
}

void AddMeasured(std::vector<PublishedPoint>& out) {
  const std::string g = "METIS measured on this project's machines (Debian libmetis 5.1, 32-bit, one core)";
  const char* speed = "time at this machine's speed, fitted over the runs of reports/metis-measured/";
  auto time = [](double nodes, double edges, int parts) {
    return [nodes, edges, parts](const Calibration& c) {
      return MetisSeconds(c, Shape(nodes, edges, Structure::kRandom), parts, 1) / ThisMachineSpeed(c);
    };
  };
  auto per_edge = [](double nodes, double edges) {
    return [nodes, edges](const Calibration& c) { return Metis32Bytes(c, Shape(nodes, edges)) / edges; };
  };
  out.push_back(Point("calibration-md-rmat-1m-seconds", g, "R-MAT 1 M nodes, 14.7 M edges, 8 parts", kCalibrationMd, "s",
                      15.1, 15.1, false, time(1 << 20, 14.7e6, 8), speed));
  out.push_back(Point("calibration-md-rmat-2m-seconds", g, "R-MAT 2 M nodes, 29.8 M edges, 64 parts", kCalibrationMd, "s",
                      51.8, 51.8, false, time(1 << 21, 29.8e6, 64), speed));
  out.push_back(Point("calibration-md-rmat-1m-memory", g, "R-MAT 1 M nodes, peak per edge", kCalibrationMd, "B/edge", 93, 93,
                      false, per_edge(1 << 20, 14.7e6), "that figure includes the edge list in memory"));
  out.push_back(Point("calibration-md-rmat-2m-memory", g, "R-MAT 2 M nodes, peak per edge", kCalibrationMd, "B/edge", 98, 98,
                      false, per_edge(1 << 21, 29.8e6), "that figure includes the edge list in memory"));
  for (const Measured& m : MeasuredRuns()) {
    const std::string name = std::string(m.generator) + " " + Count(m.nodes) + " nodes, " + Count(m.edges) + " edges, " +
                             std::to_string(m.parts) + " parts";
    const std::string id = std::string(m.generator[0] == 'R' ? "rmat-" : "ba-") + std::to_string(static_cast<long>(m.nodes)) +
                           "-" + std::to_string(static_cast<long>(m.edges)) + "-" + std::to_string(m.parts);
    out.push_back(Point(id + "-seconds", g, name + ", CPU time", kMeasured, "s", m.cpu_seconds, m.cpu_seconds, false,
                        time(m.nodes, m.edges, m.parts), speed));
    out.push_back(Point(id + "-memory", g, name + ", peak per edge", kMeasured, "B/edge", m.peak_bytes / m.edges,
                        m.peak_bytes / m.edges, m.memory_fit, per_edge(m.nodes, m.edges)));
    const double cut = 2 * m.edge_cut / m.edges;
    const int parts = m.parts;
    out.push_back(Point(id + "-cut", g, name + ", edge cut", kMeasured, "share", cut, cut, false,
                        [parts](const Calibration& c) { return MetisCutFraction(c, parts, Structure::kRandom); }));
  }
}

void AddParmetis(std::vector<PublishedPoint>& out) {
  const std::string g = "ParMETIS";
  const std::string issue = "calibration.md: ParMETIS issue #8";
  auto fails = [](double stored_edges, int machines) {
    return [stored_edges, machines](const Calibration& c) {
      return CheckParmetis(c, Shape(0, 2 * stored_edges), machines).overflows ? 1.0 : 0.0;
    };
  };
  out.push_back(Point("parmetis-1b-one-machine", g, "1 B edges, 3 ranks on one machine", issue, "fails", 1, 1, true,
                      fails(1e9, 1)));
  out.push_back(Point("parmetis-1b-three-machines", g, "1 B edges, 3 machines", issue, "fails", 0, 0, true, fails(1e9, 3)));
  out.push_back(Point("parmetis-2b-three-machines", g, "2.19 B edges, 3 machines", issue, "fails", 1, 1, true,
                      fails(2.19e9, 3)));
  for (int ranks : {4, 64})
    out.push_back(Point("parmetis-efficiency-" + std::to_string(ranks), g,
                        "parallel efficiency per rank, " + std::to_string(ranks) + " ranks", kCalibrationMd, "share", 0.5,
                        0.8, false, [ranks](const Calibration& c) { return ParmetisEfficiency(c, ranks); },
                        "\"0.5-0.8 per rank is a planning range\""));
}

void AddLoadAndTraining(std::vector<PublishedPoint>& out) {
  const std::string g = "Server load, memory and training";
  const std::string issue = "calibration.md: DGL issue #4514 (15 GB graph + 25 GB features over NFS)";
  auto load = [](int which) {
    return [which](const Calibration& c) {
      const LoadSteps s = ServerLoad({.graph_bytes = 15e9, .feature_bytes = 25e9}, c, 0.55e9, 1.0);
      const double parts[] = {s.total(), s.load_graph, s.format, s.graph_to_shm, s.load_feats, s.feats_to_shm};
      return parts[which];
    };
  };
  const char* names[] = {"partition load in total", "load_graph", "format", "graph to shared memory", "load_feats",
                         "features to shared memory"};
  const double published[] = {115, 31.1, 11.5, 12.1, 42.5, 18.2};
  for (int i = 0; i < 6; ++i)
    out.push_back(Point("server-load-" + std::to_string(i), g, std::string("DGL server: ") + names[i], issue, "s",
                        published[i], published[i], true, load(i)));
  // The DistDGL anchor and what follows from it.
  auto epoch = [](int machines, int trainers, int gpus) {
    return [machines, trainers, gpus](const Calibration& c) {
      const DatasetInfo d = Papers();
      return TrainingEpoch(d, c, SplitGraph(d, c, machines, false),
                           {.machines = machines, .trainers = trainers, .gpus = gpus, .batch = 1000})
          .total;
    };
  };
  out.push_back(Point("distdgl-epoch-16", g, "DistDGL epoch, ogbn-papers100M, 16 machines", "calibration.md: DistDGL (2020)",
                      "s", 13, 13, true,
                      [epoch](const Calibration& c) {
                        return epoch(16, static_cast<int>(std::lround(c.reference_trainers)), 0)(c);
                      },
                      "CPU trainers, referenceTrainers per machine"));
  out.push_back(Point("distdgl-speedup-8-16", g, "DistDGL speed-up from 8 to 16 machines", "calibration.md: DistDGL, \"linear speed-up\"",
                      "x", 2, 2, false, [epoch](const Calibration& c) { return epoch(8, 1, 0)(c) / epoch(16, 1, 0)(c); }));
  out.push_back(Point("distdglv2-epoch-64-gpus", g, "DistDGLv2 epoch, 64 GPUs (8 machines x 8)", "calibration.md: DistDGLv2 (2021)",
                      "s", 5, 10, false, epoch(8, 8, 8), "ogbn-papers100M, one GPU trainer per GPU assumed"));
  const std::string gb = "calibration.md: DGL's GraphBolt example README (DGL rows; 2 machines, 4 trainers, 2 servers)";
  struct Dataset {
    const char* id;
    DatasetInfo d;
    double sampling_low, sampling_high, shared, used, file_low, file_high;
  };
  for (const Dataset& ds : {Dataset{"products", Products(), 1.2884, 1.4159, 2.4, 7.8, 1.5, 1.6},
                            Dataset{"papers", Papers(), 5.5570, 6.1900, 84, 43, 22, 23}}) {
    const DatasetInfo d = ds.d;
    const std::string name = d.name;
    out.push_back(Point(std::string(ds.id) + "-sampling", g, "sampling time per epoch, " + name, gb, "s", ds.sampling_low,
                        ds.sampling_high, true, [d](const Calibration& c) {
                          return SamplingSecondsPerEpoch(c, static_cast<double>(d.train_nodes), {.machines = 2, .trainers = 4});
                        }));
    out.push_back(Point(std::string(ds.id) + "-shared-memory", g, "shared memory per machine, " + name, gb, "GB", ds.shared,
                        ds.shared, true, [d](const Calibration& c) {
                          const PartSizes p = SplitGraph(d, c, 2, false);
                          return SharedMemoryBytes(c, ShapeOf(d), p.edges[0], p.nodes[0], p.nodes[0]) / kGB;
                        }));
    out.push_back(Point(std::string(ds.id) + "-used-memory", g, "memory used by the processes per machine, " + name, gb, "GB",
                        ds.used, ds.used, true, [d](const Calibration& c) {
                          return 6 * ProcessBytes(c, static_cast<double>(d.nodes)) / kGB;
                        }));
    out.push_back(Point(std::string(ds.id) + "-graph-file", g, "graph.dgl per part, 2 parts, " + name,
                        "calibration.md: DGL's distributed GraphSAGE README", "GB", ds.file_low, ds.file_high, false,
                        [d](const Calibration& c) { return PartitionFiles(d, c, SplitGraph(d, c, 2, false))[0].graph_bytes / kGB; }));
  }
  out.push_back(Point("graphsage-dist-partitioner", g, "GraphSAGE_dist.yaml: ogbn-products in 2 parts in a 20Gi partitioner",
                      "the original operator's example, partitioned past phase 2/5 in its issue #15", "GB", 0,
                      20.0 * 1024 * 1024 * 1024 / kGB, true, [](const Calibration& c) {
                        const DatasetInfo d = Products();
                        return std::max(PeakBytes(PrepareSteps(d, c, 1.0)),
                                        PeakBytes(SspSteps(d, c, {.parts = 2, .balance_train = true, .balance_edges = true}, 1.0))) /
                               kGB;
                      }, "the peak must stay below the limit"));
}

std::string Num(double v) {
  char buf[64];
  const double a = std::abs(v);
  if (a >= 1000) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 100) std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (a >= 1) std::snprintf(buf, sizeof buf, "%.2f", v);
  else if (a == 0) return "0";
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", 100 * share);
  return buf;
}

std::string Published(const PublishedPoint& p) {
  if (p.unit == "fails") return p.low > 0.5 ? "fails" : "works";
  if (p.low == 0 && p.high > 0) return "below " + Num(p.high) + " " + p.unit;
  if (p.low == p.high) return Num(p.low) + " " + p.unit;
  return Num(p.low) + " - " + Num(p.high) + " " + p.unit;
}

std::string Predicted(const PointCheck& c) {
  const PublishedPoint& p = *c.point;
  if (!p.model) return "not modelled";
  if (p.unit == "fails") return c.prediction.value > 0.5 ? "fails" : "works";
  std::string out = Num(c.prediction.value) + " " + p.unit;
  if (c.prediction.low != c.prediction.value || c.prediction.high != c.prediction.value)
    out += " (" + Num(c.prediction.low) + " - " + Num(c.prediction.high) + ")";
  return out;
}

}  // namespace

const std::vector<PublishedPoint>& PublishedPoints() {
  static const std::vector<PublishedPoint> kPoints = [] {
    std::vector<PublishedPoint> out;
    AddPreparation(out);
    AddPartitionLog(out);
    AddMetisScaling(out);
    AddBaselines(out);
    AddParmetis(out);
    AddLoadAndTraining(out);
    AddMeasured(out);
    return out;
  }();
  return kPoints;
}

std::vector<PointCheck> ValidatePoints(const Calibration& calibration, double tolerance) {
  const ParameterEnds ends(calibration);
  std::vector<PointCheck> out;
  for (const PublishedPoint& p : PublishedPoints()) {
    PointCheck c;
    c.point = &p;
    if (p.model) {
      c.prediction = ends.Evaluate(p.model);
      const double v = c.prediction.value;
      if (p.unit == "fails") {
        c.ratio = (v > 0.5) == (p.low > 0.5) ? 1.0 : 0.0;
      } else if (v >= p.low && v <= p.high) {
        c.ratio = 1.0;
      } else {
        const double nearest = v < p.low ? p.low : p.high;
        c.ratio = nearest != 0 ? v / nearest : 0.0;
      }
      c.within = std::abs(c.ratio - 1.0) <= tolerance + 1e-12;
      c.covered = c.prediction.high >= p.low && c.prediction.low <= p.high;
    }
    out.push_back(c);
  }
  return out;
}

std::vector<const PointCheck*> DriftedPoints(const std::vector<PointCheck>& checks) {
  std::vector<const PointCheck*> out;
  for (const PointCheck& c : checks)
    if (c.point->fitted && c.point->model && !c.within) out.push_back(&c);
  return out;
}

std::string ValidationMarkdown(const std::vector<PointCheck>& checks, const Calibration& calibration, double tolerance) {
  int fitted = 0, fitted_ok = 0, checked = 0, checked_ok = 0, covered = 0, unmodelled = 0;
  for (const PointCheck& c : checks) {
    if (!c.point->model) ++unmodelled;
    else if (c.point->fitted) fitted_ok += c.within, ++fitted;
    else checked_ok += c.within, covered += c.covered, ++checked;
  }
  std::ostringstream out;
  out << "# Model validation\n\n"
      << "Generated by `dglsim models validate` from sim/dgl/published.cc: every published figure of\n"
      << "`../shared/reference/calibration.md` and every METIS run measured here, with the workload models'\n"
      << "prediction, its range (each unconfirmed parameter at each end of its range, sim/dgl/uncertainty.h)\n"
      << "and the ratio of prediction to published value (1.00 inside a published range). Fitted points\n"
      << "must stay within " << Percent(tolerance) << " %; the others are checks the models were not fitted to.\n\n";
  out << "**" << checks.size() << " points**: " << fitted << " fitted, " << fitted_ok << " of them within "
      << Percent(tolerance) << " %; " << checked << " checks, " << checked_ok << " within " << Percent(tolerance)
      << " % and " << covered << " inside the predicted range; " << unmodelled << " not modelled.\n";
  std::string group;
  for (const PointCheck& c : checks) {
    const PublishedPoint& p = *c.point;
    if (p.group != group) {
      group = p.group;
      out << "\n## " << group << "\n\n| point | published | model (range) | ratio | fitted | source, note |\n"
          << "|---|---|---|---|---|---|\n";
    }
    std::string ratio = "-";
    if (p.model) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", c.ratio);
      ratio = buf;
      if (!c.within) ratio = "**" + ratio + "**";
    }
    out << "| " << p.what << " | " << Published(p) << " | " << Predicted(c) << " | " << ratio << " | "
        << (p.fitted ? "yes" : "no") << " | " << p.source << (p.note.empty() ? "" : "; " + p.note) << " |\n";
  }
  out << "\n## Unconfirmed parameters and their ranges\n\n| parameter | value | range | why |\n|---|---|---|---|\n";
  for (const UncertainParameter& u : UncertainParameters()) {
    const Calibration low = AtRangeEnd(calibration, u, false), high = AtRangeEnd(calibration, u, true);
    out << "| `" << u.key << "` | " << Num(calibration.*(u.member)) << " | " << Num(low.*(u.member)) << " - "
        << Num(high.*(u.member)) << " | " << u.source << " |\n";
  }
  return out.str();
}

}  // namespace sim::dglmodels
