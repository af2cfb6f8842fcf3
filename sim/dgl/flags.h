// The command line of dglrun / dglkerun as the DGL programs read it: the flags of the original
// operator's python/dglrun/exec/dglrun (shared/reference/original-operator.md, section 3) and of
// dglkerun, plus --partition-pipeline, this project's way to pick DGL's chunked pipeline for MSP.
// Flags come as "--flag value" or "--flag=value", in the container's command and args, or
// inside a shell string (`sh -c "dglrun --num-partitions 2"`); the last occurrence wins, as with
// argparse. A bad value never throws: the default stays and the problem is listed in `errors`
// (the programs log it and exit 2, as argparse does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sim::dglmodels {

struct DglFlags {
  std::string program;               // "dglrun" or "dglkerun" (the command's base name)
  std::string graph_name;            // --graph-name
  int num_partitions = 1;            // --num-partitions
  bool num_partitions_given = false;
  std::string dataset_url;           // --dataset-url
  std::string partition_entry_point; // --partition-entry-point
  std::string train_entry_point;     // --train-entry-point
  int num_epochs = 0;                // --num-epochs; 0 = the training script's default
  int batch_size = 1000;             // --batch-size (train_dist.py default)
  int num_trainers = 1;              // --num-trainers
  int num_samplers = 0;              // --num-samplers
  int num_servers = 1;               // --num-servers
  bool balance_train = false;        // --balance-train
  bool balance_edges = false;        // --balance-edges
  std::string part_method = "metis"; // --part-method metis|random
  // --partition-pipeline parmetis|chunked (DistParMETIS only): how MSP partitions across the workers,
  // the operator's pm_dglpart over the workers (default) or DGL's chunked pipeline (DGL >= 0.9.1).
  std::string partition_pipeline;
  std::string model;                 // --model (DGL-KE: TransE_l2, ComplEx, ...)
  std::string workspace = "/dgl_workspace";  // --workspace (and the original's --worksapce)
  std::vector<std::string> unknown;  // flags not modelled (kept for the log)
  std::vector<std::string> errors;   // "--num-epochs: invalid int value: 'x'"
};

// Parses the tokens of a container's command followed by its args.
DglFlags ParseDglFlags(const std::vector<std::string>& command, const std::vector<std::string>& args);

}  // namespace sim::dglmodels
