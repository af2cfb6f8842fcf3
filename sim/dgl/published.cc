#include "sim/dgl/published.h"

#include "sim/dgl/dataset.h"
#include "sim/dgl/fits.h"
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
constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kQuotedPrecision = 0.005;
const char* kCalibrationMd = "docs/models.md";
const char* kLog = "docs/models.md: DGL's METIS log, ogbn-papers100M";
const char* kMeasured = "measured here: dglsim calibrate, reports/metis-measured/";

// The laws the points check (coverage per law in the table).
const char* kLawPreparation = "dataset preparation";
const char* kLawPartitionSteps = "partition_graph steps";
const char* kLawPartitionMemory = "partition_graph memory";
const char* kLawMetisTime = "METIS time";
const char* kLawMetisMemory = "METIS memory";
const char* kLawCut = "edge cut";
const char* kLawRandomAssignment = "random assignment";
const char* kLawParmetis = "ParMETIS";
const char* kLawServerLoad = "server load";
const char* kLawEpoch = "sampling and epochs";
const char* kLawWorkerMemory = "worker memory";
const char* kLawFiles = "partition files";
const char* kLawNone = "not modelled";

DatasetInfo Papers() {
  DatasetInfo d;
  d.name = "ogbn-papers100M";
  d.nodes = static_cast<std::int64_t>(kPapersNodes);
  d.edges = static_cast<std::int64_t>(kPapersStoredEdges);
  d.directed = true;
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

std::string Count(double v) {
  char buf[32];
  if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f M", v / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.0f K", v / 1e3);
  return buf;
}

PublishedPoint Point(std::string id, std::string group, const char* law, std::string what, std::string source,
                     std::string unit, double low, double high, bool fitted,
                     std::function<double(const Calibration&)> model, std::string note = "") {
  return {
      std::move(id),    std::move(group), law, std::move(what), std::move(source), std::move(unit), low, high, fitted,
      std::move(model), std::move(note)};
}

void AddPreparation(std::vector<PublishedPoint>& out) {
  const std::string g = "Dataset preparation";
  const std::string kumo = "docs/models.md: kumo.ai's PyG dataset page (secondary)";
  out.push_back(Point("papers-download", g, kLawPreparation, "ogbn-papers100M download", kumo, "GB", 57, 57, true,
                      [](const Calibration& c) { return ArchiveBytes(Papers(), c) / kGB; }));
  out.push_back(Point("papers-ogb-load-peak", g, kLawPreparation, "ogbn-papers100M through OGB's loader, peak memory",
                      kumo, "GB", 400, 400, true,
                      [](const Calibration& c) { return PeakBytes(PrepareSteps(Papers(), c, 1.0)) / kGB; }));
  const std::string disk = "docs/models.md: DGL's disk-based feature example";
  // The example's sizes are what `du -h` prints: GiB (the features are exactly 52.96 GiB).
  out.push_back(Point(
      "papers-processed-graph", g, kLawPreparation, "ogbn-papers100M graph on disk after loading", disk, "GiB", 13, 13,
      true, [](const Calibration& c) { return c.processed_bytes_per_stored_edge * kPapersStoredEdges / kGiB; },
      "du -h's GiB"));
  out.push_back(Point(
      "papers-processed-features", g, kLawPreparation, "ogbn-papers100M features on disk after loading", disk, "GiB",
      53, 53, false,
      [](const Calibration& c) { return c.feature_bytes_per_value * kPapersFeatureDim * kPapersNodes / kGiB; },
      "float32 x 128 x 111 M nodes; du -h's GiB"));
}

void AddPartitionLog(std::vector<PublishedPoint>& out) {
  const std::string g = "dgl.distributed.partition_graph (ogbn-papers100M, 64 parts, --balance-train --balance-edges)";
  auto step = [](const char* name, bool bytes) {
    return [name, bytes](const Calibration& c) {
      for (const PartitionStep& s :
           SspSteps(Papers(), c, {.parts = 64, .balance_train = true, .balance_edges = true}, 1.0))
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
    out.push_back(Point(std::string("papers-") + r.id + "-seconds", g, kLawPartitionSteps,
                        std::string(r.name) + ", time", kLog, "s", r.seconds, r.seconds, true, step(r.name, false)));
    if (r.gb > 0)
      out.push_back(Point(std::string("papers-") + r.id + "-peak", g, kLawPartitionMemory,
                          std::string(r.name) + ", peak memory", kLog, "GB", r.gb, r.gb, true, step(r.name, true)));
  }
  out.push_back(Point("papers-node-assignment", g, kLawMetisTime, "node assignment in total", kLog, "s", 5040, 5040,
                      false, [](const Calibration& c) {
                        double total = 0;
                        for (const PartitionStep& s :
                             SspSteps(Papers(), c, {.parts = 64, .balance_train = true, .balance_edges = true}, 1.0))
                          if (s.name != "reshuffle" && s.name != "split") total += s.seconds;
                        return total;
                      }));
}

void AddMetisScaling(std::vector<PublishedPoint>& out) {
  const std::string g = "METIS on ogbn-products (single process, a home machine)";
  const std::string src = "docs/models.md: a public test log";
  const char* home = "plain METIS; the home machine metisHomeMachineSpeed x the log's";
  for (int parts : {64, 1024, 4096}) {
    const double published = parts == 64 ? 20.8 : parts == 1024 ? 37.6 : 66.8;
    out.push_back(Point(
        "products-metis-" + std::to_string(parts), g, kLawMetisTime, "METIS, " + std::to_string(parts) + " parts", src,
        "s", published, published, true,
        [parts](const Calibration& c) {
          return MetisSeconds(c, Shape(kProductsNodes, kProductsSymEdges), parts, 1) / c.metis_home_machine_speed;
        },
        home));
  }
  out.push_back(Point(
      "products-random-assignment", g, kLawRandomAssignment, "random assignment", src, "s", 0.02, 0.02, true,
      [](const Calibration& c) { return RandomAssignmentSeconds(c, kProductsNodes) / c.metis_home_machine_speed; }));
  out.push_back(Point(
      "random-assignment-100m", g, kLawRandomAssignment, "random assignment of 100 M nodes", kCalibrationMd, "s", 0, 1,
      false, [](const Calibration& c) { return RandomAssignmentSeconds(c, 100e6) / c.metis_home_machine_speed; },
      "\"well under a second per 100 M nodes\""));
  out.push_back(Point(
      "products-metis-cut-64", g, kLawCut, "METIS edge cut, 64 parts", src, "M edges", 16.7, 16.7, true,
      [](const Calibration& c) { return MetisCutFraction(c, 64, Structure::kReal) * kProductsSymEdges / 1e6; },
      "symmetrised edges"));
  out.push_back(Point("products-random-cut-64", g, kLawCut, "random assignment's edge cut, 64 parts", src, "M edges",
                      121.8, 121.8, false,
                      [](const Calibration&) { return RandomCutFraction(64) * kProductsSymEdges / 1e6; }));
}

void AddBaselines(std::vector<PublishedPoint>& out) {
  const std::string g = "Other partitioners (mt-metis baseline, Libra)";
  const std::string mt = "docs/models.md: an out-of-core mt-metis fork's README";
  out.push_back(Point(
      "mt-metis-time-ratio", g, kLawMetisTime, "mt-metis time, ogbn-papers100M over ogbn-products (37 min / 51 s)", mt,
      "x", 43.5, 43.5, false,
      [](const Calibration& c) {
        return MetisSeconds(c, Shape(kPapersNodes, kPapersSymEdges), 64, 1) /
               MetisSeconds(c, Shape(kProductsNodes, kProductsSymEdges), 64, 1);
      },
      "the METIS law's size growth; threads and parts unknown"));
  out.push_back(Point(
      "mt-metis-products-memory", g, kLawMetisMemory, "mt-metis memory, ogbn-products", mt, "GB", 7.4, 7.4, false,
      [](const Calibration& c) { return Metis32Bytes(c, Shape(kProductsNodes, kProductsSymEdges)) / kGB; },
      "the 32-bit METIS memory law measured here"));
  out.push_back(Point(
      "mt-metis-papers-memory", g, kLawMetisMemory, "mt-metis memory, ogbn-papers100M", mt, "GB", 232.4, 232.4, false,
      [](const Calibration& c) { return Metis32Bytes(c, Shape(kPapersNodes, kPapersSymEdges)) / kGB; },
      "the 32-bit METIS memory law measured here"));
  out.push_back(Point("mt-metis-400m-oom", g, kLawNone, "mt-metis on a 400 M-node papers100M: out of memory", mt,
                      "fails", 1, 1, false, {}, "not modelled: the machine's memory is not published"));
  const std::string libra = "docs/models.md: DGL's old Libra example README";
  for (const auto& [name, seconds, gb] : std::vector<std::tuple<std::string, double, double>>{
           {"ogbn-papers100M", 25000, 200}, {"ogbn-products", 2000, 30}, {"Reddit", 1500, 25}}) {
    out.push_back(Point("libra-" + name + "-seconds", g, kLawNone, "Libra, " + name + ", time", libra, "s", seconds,
                        seconds, false, {}, "not modelled: a vertex-cut partitioner the operator never runs"));
    out.push_back(Point("libra-" + name + "-memory", g, kLawNone, "Libra, " + name + ", memory", libra, "GB", gb, gb,
                        false, {}, "not modelled: a vertex-cut partitioner the operator never runs"));
  }
}

// The docs/models.md summaries of earlier runs here: checks, predicted at the speed fitted over all
// the runs of reports/metis-measured/. Their peaks were the whole process's, the input graph
// included: the measuring program holds it as a CSR of 32-bit ids and 64-bit offsets.
void AddMeasuredSummaries(std::vector<PublishedPoint>& out, const std::string& g) {
  const char* speed = "time at this machine's speed, fitted over the runs of reports/metis-measured/";
  auto time = [](double nodes, double edges, int parts) {
    return [nodes, edges, parts](const Calibration& c) {
      Calibration here = c;
      here.metis_machine_speed = MeasuredMachineSpeed(c, MeasuredRuns());
      return MetisSeconds(here, Shape(nodes, edges, Structure::kRandom), parts, 1);
    };
  };
  auto per_edge = [](double nodes, double edges) {
    return [nodes, edges](const Calibration& c) {
      return (Metis32Bytes(c, Shape(nodes, edges)) + 4 * edges + 8 * nodes) / edges;
    };
  };
  const char* with_graph =
      "that figure includes the graph in memory: the law plus a CSR of 4 B per edge and 8 B per node";
  out.push_back(Point("calibration-md-rmat-1m-seconds", g, kLawMetisTime, "R-MAT 1 M nodes, 14.7 M edges, 8 parts",
                      kCalibrationMd, "s", 15.1, 15.1, false, time(1 << 20, 14.7e6, 8), speed));
  out.push_back(Point("calibration-md-rmat-2m-seconds", g, kLawMetisTime, "R-MAT 2 M nodes, 29.8 M edges, 64 parts",
                      kCalibrationMd, "s", 51.8, 51.8, false, time(1 << 21, 29.8e6, 64), speed));
  out.push_back(Point("calibration-md-rmat-1m-memory", g, kLawMetisMemory, "R-MAT 1 M nodes, peak per edge",
                      kCalibrationMd, "B/edge", 93, 93, false, per_edge(1 << 20, 14.7e6), with_graph));
  out.push_back(Point("calibration-md-rmat-2m-memory", g, kLawMetisMemory, "R-MAT 2 M nodes, peak per edge",
                      kCalibrationMd, "B/edge", 98, 98, false, per_edge(1 << 21, 29.8e6), with_graph));
}

// Every run of reports/metis-measured/, each predicted by its law fitted over the other runs
// (leave-one-out, sim/dgl/fits.h): checks, not fitted points.
void AddMeasured(std::vector<PublishedPoint>& out) {
  const std::string g = "METIS measured on this project's machines (Debian libmetis 5.1, 32-bit, one core)";
  AddMeasuredSummaries(out, g);
  const auto& runs = MeasuredRuns();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const MeasuredRun& m = runs[i];
    const std::string name = std::string(m.generator) + " " + Count(m.nodes) + " nodes, " + Count(m.edges) +
                             " edges, " + std::to_string(m.parts) + " parts (" + m.file + ")";
    const std::string id =
        std::string(m.file) + "-" + std::to_string(static_cast<long>(m.nodes)) + "-" + std::to_string(m.parts);
    auto time = [i](const Calibration& c) {
      Calibration here = c;
      here.metis_machine_speed = MeasuredMachineSpeed(c, MeasuredRuns(), i);
      return MetisSeconds(here, MeasuredRuns()[i].shape(), MeasuredRuns()[i].parts, 1);
    };
    auto per_edge = [i](const Calibration& c) {
      const MeasuredRun& r = MeasuredRuns()[i];
      return Metis32Bytes(WithMemoryFit(c, FitMetis32Memory(MeasuredRuns(), i)), r.shape()) / r.edges;
    };
    auto cut = [i](const Calibration& c) {
      const MeasuredRun& r = MeasuredRuns()[i];
      return MetisCutFraction(WithRandomCutFit(c, FitRandomCut(MeasuredRuns(), i)), r.parts, Structure::kRandom);
    };
    PublishedPoint seconds =
        Point(id + "-seconds", g, kLawMetisTime, name + ", CPU time", kMeasured, "s", m.cpu_seconds, m.cpu_seconds,
              false, time, "left out: this machine's speed fitted over the other runs");
    PublishedPoint memory =
        Point(id + "-memory", g, kLawMetisMemory, name + ", peak per edge", kMeasured, "B/edge", m.peak_bytes / m.edges,
              m.peak_bytes / m.edges, false, per_edge, "left out: the law fitted over the other runs");
    PublishedPoint share = Point(id + "-cut", g, kLawCut, name + ", edge cut", kMeasured, "share", m.cut_share(),
                                 m.cut_share(), false, cut, "left out: the law fitted over the other runs");
    for (PublishedPoint* p : {&seconds, &memory, &share}) {
      p->left_out = true;
      out.push_back(std::move(*p));
    }
  }
}

void AddParmetis(std::vector<PublishedPoint>& out) {
  const std::string g = "ParMETIS";
  const std::string issue = "docs/models.md: ParMETIS issue #8";
  auto fails = [](double stored_edges, int machines) {
    return [stored_edges, machines](const Calibration& c) {
      return CheckParmetis(c, Shape(0, 2 * stored_edges), machines).overflows ? 1.0 : 0.0;
    };
  };
  out.push_back(Point("parmetis-1b-one-machine", g, kLawParmetis, "1 B edges, 3 ranks on one machine", issue, "fails",
                      1, 1, true, fails(1e9, 1)));
  out.push_back(Point("parmetis-1b-three-machines", g, kLawParmetis, "1 B edges, 3 machines", issue, "fails", 0, 0,
                      true, fails(1e9, 3)));
  out.push_back(Point("parmetis-2b-three-machines", g, kLawParmetis, "2.19 B edges, 3 machines", issue, "fails", 1, 1,
                      true, fails(2.19e9, 3)));
  for (int ranks : {4, 64})
    out.push_back(Point(
        "parmetis-efficiency-" + std::to_string(ranks), g, kLawParmetis,
        "parallel efficiency per rank, " + std::to_string(ranks) + " ranks", kCalibrationMd, "share", 0.5, 0.8, false,
        [ranks](const Calibration& c) { return ParmetisEfficiency(c, ranks); },
        "\"0.5-0.8 per rank is a planning range\""));
}

// The NFS read rate of DGL issue #4514's load: docs/models.md derives 0.5-0.6 GB/s; load_feats read
// 25 GB in 42.5 s, so the NFS gave at least 0.59 GB/s: the top of that range.
constexpr double kIssue4514ReadBytesPerSecond = 0.6e9;

void AddLoadAndTraining(std::vector<PublishedPoint>& out) {
  const std::string g = "Server load, memory and training";
  const std::string issue = "docs/models.md: DGL issue #4514 (15 GB graph + 25 GB features over NFS)";
  auto load = [](int which) {
    return [which](const Calibration& c) {
      const LoadSteps s = ServerLoad({.graph_bytes = 15e9, .feature_bytes = 25e9}, c, kIssue4514ReadBytesPerSecond, 1.0);
      const double parts[] = {s.total(), s.load_graph, s.format, s.graph_to_shm, s.load_feats, s.feats_to_shm};
      return parts[which];
    };
  };
  const char* names[] = {"partition load in total", "load_graph", "format",
                         "graph to shared memory",  "load_feats", "features to shared memory"};
  const double published[] = {115, 31.1, 11.5, 12.1, 42.5, 18.2};
  for (int i = 0; i < 6; ++i)
    out.push_back(Point("server-load-" + std::to_string(i), g, kLawServerLoad, std::string("DGL server: ") + names[i],
                        issue, "s", published[i], published[i], true, load(i)));
  // The DistDGL anchor and what follows from it.
  auto epoch = [](int machines, int trainers, int gpus) {
    return [machines, trainers, gpus](const Calibration& c) {
      const DatasetInfo d = Papers();
      return TrainingEpoch(d, c, SplitGraph(d, c, machines, false),
                           {.machines = machines, .trainers = trainers, .gpus = gpus, .batch = 1000})
          .total;
    };
  };
  out.push_back(Point(
      "distdgl-epoch-16", g, kLawEpoch, "DistDGL epoch, ogbn-papers100M, 16 machines", "docs/models.md: DistDGL (2020)",
      "s", 13, 13, true,
      [epoch](const Calibration& c) { return epoch(16, static_cast<int>(std::lround(c.reference_trainers)), 0)(c); },
      "CPU trainers, referenceTrainers per machine"));
  out.push_back(Point(
      "distdgl-speedup-8-16", g, kLawEpoch, "DistDGL speed-up from 8 to 16 machines",
      "docs/models.md: DistDGL, \"linear speed-up\"", "x", 2, 2, true,
      [epoch](const Calibration& c) { return epoch(8, 1, 0)(c) / epoch(16, 1, 0)(c); }, "remoteShare is fitted to it"));
  out.push_back(Point("distdglv2-epoch-64-gpus", g, kLawEpoch, "DistDGLv2 epoch, 64 GPUs (8 machines x 8)",
                      "docs/models.md: DistDGLv2 (2021)", "s", 5, 10, false, epoch(8, 8, 8),
                      "ogbn-papers100M, one GPU trainer per GPU assumed"));
  const std::string gb = "docs/models.md: DGL's GraphBolt example README (DGL rows; 2 machines, 4 trainers, 2 servers)";
  struct Dataset {
    const char* id;
    DatasetInfo d;
    double sampling_low, sampling_high, shared, used, file_low, file_high;
  };
  for (const Dataset& ds : {Dataset{"products", Products(), 1.2884, 1.4159, 2.4, 7.8, 1.5, 1.6},
                            Dataset{"papers", Papers(), 5.5570, 6.1900, 84, 43, 22, 23}}) {
    const DatasetInfo d = ds.d;
    const std::string name = d.name;
    out.push_back(Point(std::string(ds.id) + "-sampling", g, kLawEpoch, "sampling time per epoch, " + name, gb, "s",
                        ds.sampling_low, ds.sampling_high, true, [d](const Calibration& c) {
                          return SamplingSecondsPerEpoch(c, static_cast<double>(d.train_nodes),
                                                         {.machines = 2, .trainers = 4});
                        }));
    out.push_back(Point(std::string(ds.id) + "-shared-memory", g, kLawWorkerMemory,
                        "shared memory per machine, " + name, gb, "GB", ds.shared, ds.shared, true,
                        [d](const Calibration& c) {
                          const PartSizes p = SplitGraph(d, c, 2, false);
                          return SharedMemoryBytes(c, ShapeOf(d), p.edges[0], p.nodes[0], p.nodes[0]) / kGB;
                        }));
    out.push_back(Point(std::string(ds.id) + "-used-memory", g, kLawWorkerMemory,
                        "memory used by the processes per machine, " + name, gb, "GB", ds.used, ds.used, true,
                        [d](const Calibration& c) { return 6 * ProcessBytes(c, static_cast<double>(d.nodes)) / kGB; }));
    out.push_back(Point(
        std::string(ds.id) + "-graph-file", g, kLawFiles, "graph.dgl per part, 2 parts, " + name,
        "docs/models.md: DGL's distributed GraphSAGE README", "GB", ds.file_low, ds.file_high, true,
        [d](const Calibration& c) { return PartitionFiles(d, c, SplitGraph(d, c, 2, false))[0].graph_bytes / kGB; },
        d.directed ? "the graph as loaded: directed, 1.616 G edges" : "the graph as loaded: both directions"));
  }
  out.push_back(Point(
      "graphsage-dist-partitioner", g, kLawPartitionMemory,
      "GraphSAGE_dist.yaml: ogbn-products in 2 parts in a 20Gi partitioner",
      "the original operator's example, partitioned past phase 2/5 in its issue #15", "GB", 0,
      20.0 * 1024 * 1024 * 1024 / kGB, true,
      [](const Calibration& c) {
        const DatasetInfo d = Products();
        return std::max(PeakBytes(PrepareSteps(d, c, 1.0)),
                        PeakBytes(SspSteps(d, c, {.parts = 2, .balance_train = true, .balance_edges = true}, 1.0))) /
               kGB;
      },
      "the peak must stay below the limit"));
}

std::string Num(double v) {
  char buf[64];
  const double a = std::abs(v);
  if (a >= 1000)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 100)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (a >= 1)
    std::snprintf(buf, sizeof buf, "%.2f", v);
  else if (a == 0)
    return "0";
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
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

const char* kDglMeasured = "measured here: scripts/measure-dgl.py, reports/dgl-measured/";
const char* kBlog = "docs/models.md: DGL v0.9.1's blog (dgl.ai, 2022-09-19)";

// "x39 (3.7 e-folds) beyond the 4.00 M measured": how far a prediction extrapolates.
std::string Beyond(double size, double low, double high, const char* what) {
  const double d = ExtrapolationDistance(size, low, high);
  if (d <= 0) return std::string("inside the ") + what + " measured";
  char buf[160];
  std::snprintf(buf, sizeof buf, "extrapolated x%.0f (%.1f e-folds) beyond the %s %s measured", std::exp(d), d,
                Count(size > high ? high : low).c_str(), what);
  return buf;
}

// The real DGL 2.1.0 pipeline measured here: each run predicted by its law fitted over the others.
void AddDglMeasured(std::vector<PublishedPoint>& out) {
  const std::string g = "DGL's chunked pipeline measured on this project's machines (DGL 2.1.0, one rank per part)";
  struct Law {
    const std::vector<MeasuredDglRun>& runs;
    const char* law;
    const char* step;
    double Calibration::*error;  // the law's error factor: its leave-one-out band
  };
  for (const Law& l : {Law{DispatchRuns(), "dispatch_data.py", "dispatch_data.py, CPU per rank", &Calibration::dispatch_time_error},
                       Law{RandomPartitionRuns(), "random_partition.py", "random_partition.py, CPU",
                           &Calibration::random_partition_error}}) {
    for (std::size_t i = 0; i < l.runs.size(); ++i) {
      const MeasuredDglRun& r = l.runs[i];
      const std::vector<MeasuredDglRun>* runs = &l.runs;
      PublishedPoint p = Point(
          std::string(l.law) + "-" + r.generator + "-" + std::to_string(static_cast<long>(r.edges)), g, l.law,
          std::string(r.generator) + " " + Count(r.nodes) + " nodes, " + Count(r.edges) + " edges, " +
              std::to_string(r.ranks) + (r.ranks == 1 ? " process: " : " ranks: ") + l.step,
          kDglMeasured, "s", r.cpu_seconds, r.cpu_seconds, false,
          [runs, i, error = l.error](const Calibration& c) { return FitLine(*runs, i).at((*runs)[i].size) * (c.*error); },
          "left out: the line fitted over the other runs, on this machine");
      p.left_out = true;
      out.push_back(std::move(p));
    }
  }
}

// The random graph of DGL v0.9.1's blog: 1 B nodes, 5 B edges, no features given.
DatasetInfo BlogRandomGraph() {
  DatasetInfo d;
  d.name = "random-1b";
  d.nodes = 1'000'000'000;
  d.edges = 5'000'000'000;
  d.structure = Structure::kRandom;
  return d;
}

// x1e.4xlarge: up to 10 Gbit/s (docs/models.md reference machines: the x1e family).
constexpr double kX1e4xlargeLinkBytesPerSecond = 10e9 / 8;

double BlogChunkedSeconds(const Calibration& c) {
  const DatasetInfo d = BlogRandomGraph();
  const double assign = TotalSeconds(ChunkedAssignmentSteps(d, c, {.parts = 8, .random = true}, {.ranks = 8, .machines = 8}));
  return assign + TotalSeconds(DispatchDataSteps(d, c, 8, 1.0)) +
         DispatchShuffleBytesPerMachine(d, c, 8) / kX1e4xlargeLinkBytesPerSecond;
}

double BlogSingleMachineSeconds(const Calibration& c) {
  return TotalSeconds(SspSteps(BlogRandomGraph(), c, {.parts = 8}, 1.0));
}

// Billion-scale figures the models were never fitted to: how far they extrapolate, and whether the
// bands say so.
void AddBillionScale(std::vector<PublishedPoint>& out) {
  const std::string g = "Billion-scale, held out (a random graph of 1 B nodes and 5 B edges, 8 parts)";
  const DatasetInfo d = BlogRandomGraph();
  const std::string metis = Beyond(d.SymEdges(), 999'564, 63'543'364, "symmetrised edges");
  const std::string dispatch =
      Beyond(static_cast<double>(d.edges) / 8, kDispatchCheckedLow, kDispatchCheckedHigh, "edges per rank");
  out.push_back(Point("blog-partition-graph-x1e-32xlarge", g, "billion-scale (held out)",
                      "partition_graph on one x1e.32xlarge (128 vCPU, 3.9 TB)", kBlog, "h", 10, 10, false,
                      [](const Calibration& c) { return BlogSingleMachineSeconds(c) / 3600; },
                      "METIS (the default), no features given; " + metis));
  out.push_back(Point("blog-chunked-8-x1e-4xlarge", g, "billion-scale (held out)",
                      "chunked pipeline on 8 x1e.4xlarge (16 vCPU, 488 GB, 10 Gbit/s): random assignment, dispatch",
                      kBlog, "h", 2.7, 2.7, false, [](const Calibration& c) { return BlogChunkedSeconds(c) / 3600; },
                      "random_partition.py and dispatch_data.py; " + dispatch));
  out.push_back(Point("blog-one-machine-over-chunked", g, "billion-scale (held out)",
                      "one big machine's time over the chunked pipeline's", kBlog, "x", 10 / 2.7, 10 / 2.7, false,
                      [](const Calibration& c) { return BlogSingleMachineSeconds(c) / BlogChunkedSeconds(c); },
                      "10 h against 2.7 h"));
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
    AddDglMeasured(out);
    AddBillionScale(out);
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
      if (p.unit == "fails") {
        c.covered = c.ratio == 1.0;
        c.log_error = c.covered ? 0.0 : 1.0;  // an outcome: right or wrong
      } else {
        // A quoted figure stands for the range of its rounding: at least +-0.5 % (three digits).
        c.covered =
            c.prediction.high >= p.low * (1 - kQuotedPrecision) && c.prediction.low <= p.high * (1 + kQuotedPrecision);
        c.log_error = c.ratio > 0 ? std::abs(std::log(c.ratio)) : 1.0;
      }
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

std::vector<Coverage> CoverageByLaw(const std::vector<PointCheck>& checks) {
  std::vector<Coverage> out{{.law = "all"}};
  for (const PointCheck& c : checks) {
    if (!c.point->model || c.point->fitted) continue;
    auto it = std::find_if(out.begin() + 1, out.end(), [&](const Coverage& v) { return v.law == c.point->law; });
    if (it == out.end()) it = out.insert(out.end(), Coverage{.law = c.point->law});
    for (Coverage* v : {&out.front(), &*it}) {
      ++v->checks;
      v->covered += c.covered ? 1 : 0;
      v->mean_log_error += c.log_error;
    }
  }
  for (Coverage& v : out)
    if (v.checks > 0) v.mean_log_error /= v.checks;
  return out;
}

namespace {

std::string FixedDigits(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void WriteSummary(std::ostringstream& out, const std::vector<PointCheck>& checks, double tolerance) {
  int fitted = 0, fitted_ok = 0, checked = 0, checked_ok = 0, left_out = 0, unmodelled = 0;
  for (const PointCheck& c : checks) {
    if (!c.point->model)
      ++unmodelled;
    else if (c.point->fitted)
      fitted_ok += c.within, ++fitted;
    else
      checked_ok += c.within, left_out += c.point->left_out, ++checked;
  }
  const Coverage all = CoverageByLaw(checks).front();
  out << "**" << checks.size() << " points**: " << fitted << " fitted, " << fitted_ok << " of them within "
      << Percent(tolerance) << " %; " << checked << " checks (" << left_out
      << " of them runs measured here, left out of "
      << "their fits), " << checked_ok << " within " << Percent(tolerance) << " %, " << all.covered
      << " inside the predicted " << Percent(kBandCoverage) << " % band (" << Percent(all.share())
      << " %), mean absolute log error " << FixedDigits(all.mean_log_error, 3) << "; " << unmodelled
      << " not modelled.\n";
}

void WriteCoverage(std::ostringstream& out, const std::vector<PointCheck>& checks) {
  out << "\n## Coverage of the checks by law\n\nA check is inside when its published value (or range) meets the "
      << "predicted band; the bands claim " << Percent(kBandCoverage) << " %.\n\n"
      << "| law | checks | inside the band | coverage | mean abs log error |\n|---|---|---|---|---|\n";
  for (const Coverage& v : CoverageByLaw(checks))
    out << "| " << v.law << " | " << v.checks << " | " << v.covered << " | " << Percent(v.share()) << " % | "
        << FixedDigits(v.mean_log_error, 3) << " |\n";
  out << "\n## Leave-one-out bands (sim/dgl/fits.h)\n\nEach law fitted over the " << MeasuredRuns().size()
      << " runs of reports/metis-measured/ is refitted without each run in turn and predicts it; the band's half-width "
      << "in log space is Student's t (95 %, runs - 1 degrees of freedom) times the rms of those errors, and the law's "
      << "error factor carries it.\n\n"
      << "| law | runs | rms log error | mean abs log error | t | band | error factor "
         "|\n|---|---|---|---|---|---|---|\n";
  const std::pair<const char*, LooBand> bands[] = {{"METIS time", BandOf(MetisTimeLooErrors(Calibration{}))},
                                                   {"METIS memory (32-bit)", BandOf(Metis32MemoryLooErrors())},
                                                   {"edge cut (random structure)", BandOf(RandomCutLooErrors())}};
  const char* factors[] = {"`metisTimeError`", "`metisMemoryError`", "`metisCutError`"};
  for (std::size_t i = 0; i < 3; ++i) {
    const LooBand& b = bands[i].second;
    out << "| " << bands[i].first << " | " << b.points << " | " << FixedDigits(b.rms, 3) << " | "
        << FixedDigits(b.mean_abs, 3) << " | " << FixedDigits(StudentT95(b.points - 1), 2) << " | x/÷ "
        << FixedDigits(std::exp(b.half_width), 2) << " | " << factors[i] << " |\n";
  }
}

struct NamedExtrapolation {
  const char* law;
  const char* size;  // what the size counts
  Extrapolation x;
  const char* parameter;
};

std::vector<NamedExtrapolation> Extrapolations() {
  return {{"METIS time", "symmetrised edges", MetisTimeExtrapolation(Calibration{}), "`metisTimeExtrapolation`"},
          {"dispatch_data.py", "edges per rank", LineExtrapolation(DispatchRuns()), "`dispatchExtrapolation`"},
          {"random_partition.py", "nodes", LineExtrapolation(RandomPartitionRuns()), "`randomPartitionExtrapolation`"}};
}

void WriteExtrapolation(std::ostringstream& out) {
  const std::vector<NamedExtrapolation> laws = Extrapolations();
  out << "\n## Bands beyond the measured sizes (sim/dgl/fits.h, Extrapolation)\n\n"
      << "Outside the sizes a law was checked on, its band widens: the half-width in log space is "
      << "sqrt(in-sample^2 + (t x rate x d)^2), d the distance in e-folds (natural log of the size ratio), "
      << "rate the larger of the slope's standard error (rms / sqrt(Sxx) over the log sizes) and what "
      << "leave-one-scale-out adds to the in-sample error. A prediction at 20 times the largest size "
      << "measured is 3.0 e-folds out.\n\n"
      << "| law | runs | in-sample rms | slope rate | leave-one-scale-out rate | rate | factor per e-fold | parameter "
         "|\n|---|---|---|---|---|---|---|---|\n";
  for (const NamedExtrapolation& l : laws) {
    const double t = StudentT95(l.x.points - 1);
    out << "| " << l.law << " | " << l.x.points << " | " << FixedDigits(l.x.rms, 3) << " | "
        << FixedDigits(l.x.slope_rate, 3) << " | " << FixedDigits(l.x.loso_rate, 3) << " | "
        << FixedDigits(l.x.rate(), 3) << " | x/÷ " << FixedDigits(std::exp(t * l.x.rate()), 2) << " | "
        << l.parameter << " |\n";
  }
  out << "\n## Leave-one-scale-out\n\nEach of the largest sizes measured, predicted by the law fitted on the "
      << "smaller sizes only, with the band those smaller sizes give (their in-sample band widened by their "
      << "slope's standard error over the distance): the test of the widening.\n\n"
      << "| law | size predicted | e-folds beyond the fit | log error | band half-width | inside |\n"
      << "|---|---|---|---|---|---|\n";
  int inside = 0, total = 0;
  for (const NamedExtrapolation& l : laws)
    for (const ScaleOut& o : l.x.scale_outs) {
      ++total, inside += o.inside() ? 1 : 0;
      out << "| " << l.law << " | " << Count(o.size) << " " << l.size << " | " << FixedDigits(o.distance, 2) << " | "
          << FixedDigits(o.log_error, 3) << " | " << FixedDigits(o.half_width, 3) << " | "
          << (o.inside() ? "yes" : "**no**") << " |\n";
    }
  out << "\n" << inside << " of " << total << " predictions beyond the fitted sizes inside their "
      << Percent(kBandCoverage) << " % band.\n";
}

void WriteGroups(std::ostringstream& out, const std::vector<PointCheck>& checks) {
  std::string group;
  for (const PointCheck& c : checks) {
    const PublishedPoint& p = *c.point;
    if (p.group != group) {
      group = p.group;
      out << "\n## " << group << "\n\n| point | published | model (" << Percent(kBandCoverage)
          << " % band) | ratio | in band | fitted | source, note |\n|---|---|---|---|---|---|---|\n";
    }
    std::string ratio = "-", inside = "-";
    if (p.model) {
      ratio = FixedDigits(c.ratio, 2);
      if (!c.within) ratio = "**" + ratio + "**";
      inside = c.covered ? "yes" : "**no**";
    }
    out << "| " << p.what << " | " << Published(p) << " | " << Predicted(c) << " | " << ratio << " | " << inside
        << " | "
        << (p.fitted     ? "yes"
            : p.left_out ? "left out"
                         : "no")
        << " | " << p.source << (p.note.empty() ? "" : "; " + p.note) << " |\n";
  }
}

}  // namespace

std::string ValidationMarkdown(const std::vector<PointCheck>& checks, const Calibration& calibration,
                               double tolerance) {
  std::ostringstream out;
  out << "# Model validation\n\n"
      << "Generated by `dglsim models validate` from sim/dgl/published.cc: every published figure of\n"
      << "`docs/models.md` and every METIS run measured here, with the workload models'\n"
      << "prediction, its " << Percent(kBandCoverage) << " % band and the ratio of prediction to published value (1.00 "
      << "inside a published\nrange). The band runs the models with each uncertain parameter at each end of its range "
      << "(a planning\nrange read as a " << Percent(kBandCoverage)
      << " % interval, or a fitted law's leave-one-out band) "
      << "and combines the changes\nroot-sum-square in log space (sim/dgl/uncertainty.h). Fitted points must stay "
         "within "
      << Percent(tolerance) << " %; the\nothers are checks the models were not fitted to: how many fall inside their "
      << "band is the test of the\nclaim (a published figure stands for the range of its rounding, at least +-0.5 "
         "%).\n\n";
  WriteSummary(out, checks, tolerance);
  WriteCoverage(out, checks);
  WriteExtrapolation(out);
  WriteGroups(out, checks);
  out << "\n## Unconfirmed parameters and their ranges\n\n| parameter | value | range | why |\n|---|---|---|---|\n";
  for (const UncertainParameter& u : UncertainParameters()) {
    const Calibration low = AtRangeEnd(calibration, u, false), high = AtRangeEnd(calibration, u, true);
    out << "| `" << u.key << "` | " << Num(calibration.*(u.member)) << " | " << Num(low.*(u.member)) << " - "
        << Num(high.*(u.member)) << " | " << u.source << " |\n";
  }
  return out.str();
}

}  // namespace sim::dglmodels
