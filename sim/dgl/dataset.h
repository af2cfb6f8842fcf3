// The dataset catalog the DGL programs read, and the environment they share.
//
// A DatasetInfo is one graph as the models need it: nodes, stored edges (symmetrised = 2 x), whether
// DGL loads it directed (as stored) or with the reverse edges added, feature dimension, training nodes, its download URL and, for a real edge-list graph partitioned with
// sim/graph, the measured parts (nodes, owned edges, halo) and edge cut per part count. The catalog
// holds the scenario's datasets; a job finds its dataset by, in order: the harness's job -> dataset
// map (`dataset:` of the job entry or the dglsim.io/dataset annotation on the DGLJob), the
// `dglsim.io/dataset` annotation on the pod, the launcher's `--dataset-url`, its `--graph-name`
// (a dataset of that name, or whose name ends with "-" or "_" and it, e.g. "papers100M"). A job that
// names no dataset the scenario knows runs on the small default graph (Cora) and says so.
//
// DglEnvironment is shared by every DGL program of a run (one per simulation): the calibration and
// its ends (uncertainty.h), the catalog, an exec hub standing in for
// `kubectl exec` into worker containers (DGL servers and ParMETIS ranks started by the launcher run
// inside the worker containers, so their memory is the worker's), and the prediction log the
// programs write their ranges to (predictions.h). REQUIRES: single-threaded use inside the engine.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/dgl/calibration.h"
#include "sim/dgl/laws.h"
#include "sim/dgl/predictions.h"
#include "sim/dgl/uncertainty.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sim::graph {
class Graph;
}  // namespace sim::graph

namespace sim::dglmodels {

// Measured partitions of a real graph (sim/graph PartitionGraph).
struct MeasuredPartition {
  std::vector<std::int64_t> part_nodes;   // per part
  std::vector<std::int64_t> part_edges;   // directed edges owned (destination in the part)
  std::vector<std::int64_t> part_halo;    // halo nodes per part
  std::int64_t edge_cut = 0;              // undirected edges across parts
};

struct DatasetInfo {
  std::string name;
  std::int64_t nodes = 0;
  std::int64_t edges = 0;  // as stored (undirected, each once)
  // DGL holds a directed graph as stored (ogbn-papers100M, ogbn-arxiv: OGB's add_inverse_edge is
  // false) and an undirected one with both directions (the default; OGB adds the reverse edges of
  // ogbn-products and ogbn-proteins). Partition files hold the graph as loaded; METIS always sees
  // it symmetrised.
  bool directed = false;
  std::int64_t feature_dim = 0;
  std::int64_t train_nodes = 0;  // training seeds per epoch
  std::string url;
  bool is_default = false;       // the stand-in for a job that names no dataset
  std::string edge_list;         // the real graph file, "" for sizes only
  std::shared_ptr<const graph::Graph> graph;  // edge_list already read (the scenario loader's); else read here
  // Locality of the graph: the METIS laws (time, cut) differ for graphs without it.
  Structure structure = Structure::kReal;
  // Real partitions by part count (METIS), filled for edge-list datasets on demand.
  std::map<int, MeasuredPartition> measured;
  std::string measure_error;     // why the graph could not be read or partitioned

  double SymEdges() const { return 2.0 * static_cast<double>(edges); }
  double LoadedEdges() const { return directed ? static_cast<double>(edges) : SymEdges(); }
};

// The per-part figures the models use: measured when the graph was partitioned for real, else the
// even split with the edge cut of the laws (METIS's for the graph's structure, or random
// assignment's).
struct PartSizes {
  std::vector<double> nodes, edges, halo;  // edges: symmetrised edges owned
  double cut_fraction = 0;                 // of the symmetrised edges crossing parts
  bool measured = false;
};
PartSizes SplitGraph(const DatasetInfo& d, const Calibration& c, int parts, bool random);

// The default graph for jobs that name no dataset: Cora (2,708 nodes, 5,278 undirected edges,
// 1,433 features, 140 training nodes; Planetoid split as in DGL's CoraGraphDataset).
DatasetInfo DefaultDataset();
// OGB training-split sizes of the presets (ogbn-products 196,615; ogbn-papers100M 1,207,179;
// ogbn-arxiv 90,941; ogbn-proteins 86,619); others 10 % of the nodes (*unconfirmed*).
std::int64_t TrainNodesFor(const std::string& preset, std::int64_t nodes);

// A running worker container that the launcher may exec into.
struct ExecTarget {
  std::string node;                                     // the worker's node
  double cpu_speed = 1.0;                               // of that node
  double nic_bytes_per_second = 12.5e9;                 // of that node, each direction
  double memory_limit = 0;                              // of the container, bytes (0: none)
  int gpus = 0;                                         // nvidia.com/gpu limit of the container
  std::function<void(std::int64_t bytes)> set_memory;   // the container's memory use
};

class ExecHub {
 public:
  // Registers the running container of pod `pod_key` ("ns/name"); returns a token for Unregister.
  std::uint64_t Register(const std::string& pod_key, ExecTarget target) {
    const std::uint64_t token = ++next_;
    targets_[pod_key] = {token, std::move(target)};
    return token;
  }
  // Removes the registration made with `token` (a later registration of the same pod stays).
  void Unregister(const std::string& pod_key, std::uint64_t token) {
    auto it = targets_.find(pod_key);
    if (it != targets_.end() && it->second.first == token) targets_.erase(it);
  }
  // nullptr when the container is not running (kubectl exec would fail).
  const ExecTarget* Find(const std::string& pod_key) const {
    auto it = targets_.find(pod_key);
    return it == targets_.end() ? nullptr : &it->second.second;
  }

 private:
  std::map<std::string, std::pair<std::uint64_t, ExecTarget>> targets_;
  std::uint64_t next_ = 0;
};

class DglEnvironment {
 public:
  DglEnvironment(Calibration calibration, std::vector<DatasetInfo> datasets,
                 std::map<std::string, std::string> job_datasets = {});

  const Calibration& calibration() const { return calibration_; }
  // The calibration with each uncertain parameter at each end of its range.
  const ParameterEnds& ends() const { return *ends_; }
  PredictionLog& predictions() const { return *predictions_; }
  const std::vector<DatasetInfo>& datasets() const { return datasets_; }
  ExecHub& exec() const { return *exec_; }

  struct Match {
    const DatasetInfo* dataset;  // never nullptr (the default graph at worst)
    std::string how;             // "job", "annotation", "url", "graph-name", "preset", "default"
  };
  // `job_key` "ns/name"; `annotation` the pod's dglsim.io/dataset ("" = none).
  Match Find(const std::string& job_key, const std::string& annotation, const std::string& url,
             const std::string& graph_name) const;
  // The dataset a DGLJob's launcher will find (its Launcher container's flags, the dglsim.io/dataset
  // annotation on the job or the launcher template).
  Match MatchJob(const kube::Json& dgljob) const;
  // Edge-list datasets: the measured partition for `parts` (computed once, then cached).
  const MeasuredPartition* Measured(const DatasetInfo& d, int parts) const;

 private:
  Calibration calibration_;
  std::shared_ptr<const ParameterEnds> ends_;
  std::vector<DatasetInfo> datasets_;
  std::map<std::string, std::string> job_datasets_;
  DatasetInfo default_;
  std::shared_ptr<ExecHub> exec_ = std::make_shared<ExecHub>();
  std::shared_ptr<PredictionLog> predictions_ = std::make_shared<PredictionLog>();
  struct GraphCache;
  std::shared_ptr<GraphCache> graphs_;
};

}  // namespace sim::dglmodels
