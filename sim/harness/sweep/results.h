// A sweep's results as files: the slice a shard writes, the merge of slices, and the outputs (CSV,
// JSON) built from rows. Everything a report needs travels in the `sweep` header (parameters,
// points, seeds, objective), so `dglsim sweep merge` needs only the slices, and an unsharded run and
// the merge of its shards go through the same SweepResult: their outputs are byte for byte the
// same. No output holds a wall-clock time, a thread count or a shard number.
//
// The header's fingerprint hashes the header and every point's scenario text: slices of a sweep
// whose file, base scenario or manifests changed between shards do not merge.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/sweep/sweep_file.h"
#include "sim/harness/sweep/sweep_runner.h"

#include <string>
#include <vector>

namespace harness::sweep {

inline constexpr const char* kSliceKind = "SweepSlice";
inline constexpr const char* kResultKind = "SweepResult";

// The sweep as the outputs describe it (name, description, base as written, parameters with their
// value labels and axis numbers, points, seeds, objective, lineBy, plots when the file lists them,
// runs, fingerprint).
kube::Json SweepHeader(const SweepSpec& spec);

// What one shard writes: the header, the shard, and the rows of its runs.
kube::Json SliceJson(const kube::Json& header, const Shard& shard, const std::vector<kube::Json>& rows);

struct SweepResult {
  kube::Json header;
  std::vector<kube::Json> rows;  // every run, in run order
};

// The whole sweep's result from all its rows. REQUIRES: rows in run order, one per run.
SweepResult ResultOf(const kube::Json& header, const std::vector<kube::Json>& rows);

// Joins slices (each a parsed slice file named `names[i]` in messages) into the result: they must be
// of one sweep (fingerprint), of one shard count, every shard exactly once. On a problem, returns
// nullopt with one message per problem.
std::optional<SweepResult> MergeSlices(const std::vector<kube::Json>& slices, const std::vector<std::string>& names,
                                       std::vector<std::string>* problems);

// Per point, over its seeds: outcome (Succeeded when every seed did), the first failing seed's
// reason and lostTo, and the means of the figures and of the stage breakdown (makespan only when
// every seed succeeded; a figure some seed has no value for is null).
std::vector<kube::Json> PointSummaries(const SweepResult& result);

// One line per run; columns: run, point, seed, each parameter, then the row's figures.
std::string ResultCsv(const SweepResult& result);
// {apiVersion, kind: SweepResult, sweep, rows, points, recommendation}, indented.
std::string ResultJsonText(const SweepResult& result);

}  // namespace harness::sweep
