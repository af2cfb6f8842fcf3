// Reading a file a user named: a scenario, a manifest, a node manifest, a calibration file, an edge
// list, an arrival trace, a sweep file, a sweep or chaos slice. Whatever the path names, the read ends: only a
// regular file (after symbolic links) is read, so a FIFO, a terminal or a device such as /dev/zero
// or /dev/urandom is refused at once instead of read until memory runs out or waited on forever;
// and a file larger than the caller's cap is refused before anything is read.
//
// The caps (stated where a user meets them: docs/limits.md):
//   kMaxDocumentBytes  64 MiB   YAML and JSON documents, arrival traces, sweep and chaos slices
//   kMaxEdgeListBytes  256 MiB  edge lists (about 20 million edges; bigger graphs are given by size)
//
// Never throws. REQUIRES: nothing shared; safe from several threads.
#pragma once

#include <cstddef>
#include <string>

namespace sim {

inline constexpr std::size_t kMaxDocumentBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxEdgeListBytes = std::size_t{256} << 20;

struct InputFile {
  std::string text;   // the whole file when ok()
  std::string error;  // why not, without the path: "is a FIFO, not a regular file", ...
  bool ok() const { return error.empty(); }
};

// Reads the whole of `path` when it is a regular file of at most `max_bytes` bytes. The file is
// opened without blocking and checked on the open descriptor, so a FIFO put in its place between a
// check and the read cannot hang it either.
InputFile ReadInputFile(const std::string& path, std::size_t max_bytes);

// "64 MiB", "256 MiB", "1.5 MiB", "512 KiB", "700 bytes": a byte count for messages.
std::string FormatBytes(std::size_t bytes);

}  // namespace sim
