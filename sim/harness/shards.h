// Splitting a batch of runs over N processes and joining what they wrote, for the commands that
// shard (`dglsim sweep --shard`, `dglsim chaos --shard`; a Kubernetes Indexed Job runs one process
// per shard). Shard I of N takes the runs whose number is I modulo N, so every shard gets a mix of
// the batch. Each shard writes a slice file:
//
//   {apiVersion, kind: <the command's slice kind>, <header key>: {..., fingerprint}, shard: {index, count}, <rows key>: [...]}
//
// The header says what the whole batch is (the same in every slice of it); its fingerprint hashes
// the header and the input texts (sweep points, the chaos scenario), so slices of inputs that
// changed between shards do not join. CheckSlices refuses anything but one whole batch: slices of
// another kind or batch, of another shard count, a shard twice or missing.
#pragma once

#include "fakeapi/client/json.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace harness {

struct Shard {
  std::size_t index = 0;  // I of `--shard I/N`, from 0
  std::size_t count = 1;  // N
  bool Takes(std::size_t run) const { return run % count == index; }
};

// "2/8" -> {2, 8}; I < N, N >= 1. nullopt on anything else.
std::optional<Shard> ParseShard(const std::string& text);

// The fingerprint of a batch: FNV-1a (64 bits, hex) of header.dump() and then each text.
std::string Fingerprint(const kube::Json& header, const std::vector<std::string>& texts);

// What the slices of one command look like, and how its messages name things.
struct SliceFormat {
  std::string kind;     // "SweepSlice"
  std::string header;   // the header's key: "sweep"
  std::string rows;     // the key of the shard's results: "rows"
  std::string batch;    // what a batch is called in messages: "sweep"
  std::string writer;   // what writes the slices: "dglsim sweep --shard"
  std::string changed;  // what a fingerprint alone differing means: "the sweep file, its base or its manifests changed"
};

// `slices` (each parsed from the file named names[i]) as one whole batch: returns the header, or
// nullopt with one message per problem appended to `problems` (a slice of another kind, or
// malformed; a header that differs, naming the fields that do, or the fingerprint alone and
// format.changed; another shard count; a shard twice; a shard missing).
std::optional<kube::Json> CheckSlices(const std::vector<kube::Json>& slices, const std::vector<std::string>& names,
                                      const SliceFormat& format, std::vector<std::string>* problems);

}  // namespace harness
