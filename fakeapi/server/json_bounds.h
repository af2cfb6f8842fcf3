// Bounds on JSON that comes from clients. The store's algorithms (copies, comparisons, merge
// patches, serialisation) recurse once per level of nesting, so a document nested 100,000 deep
// would overflow a thread's stack: the HTTP facade refuses bodies and patch results nested deeper
// than kMaxJsonDepth before anything recursive sees them. kube-apiserver refuses past 10,000
// levels (the limit of Go's JSON decoder); the fake refuses past 1,000, which keeps its recursive
// operations well inside an 8 MiB stack, sanitizers included. Real objects nest some 20 deep.
//
// An object whose JSON passes kMaxObjectBytes (1.5 MiB, etcd's default --max-request-bytes) is not
// stored over HTTP: etcd refuses the write and kube-apiserver answers 500 "etcdserver: request is too
// large" (kubernetes/kubernetes#112152 asks for a 4xx; none is given yet). Request bodies stop at 3 MiB
// (kube-apiserver's limit, twice etcd's, since JSON is bulkier than the protobuf built-in kinds are
// stored as), but merge patches add up and a JSON patch's copies grow the object: the bound is on
// what would be stored. Custom resources are stored as JSON, so for them the bound is exact.
//
// The storage quota counts the memory a stored object takes, estimated by ApproximateMemory.
#pragma once

#include "fakeapi/client/json.h"

#include <cstddef>
#include <string_view>

namespace fakeapi {

inline constexpr std::size_t kMaxJsonDepth = 1000;
inline constexpr std::size_t kMaxObjectBytes = 3 * 512 * 1024;  // 1.5 MiB

// The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count);
// counting stops once it passes `limit`, so the answer is then some value > limit. One pass, no
// recursion, whatever the text is (it need not be valid JSON).
std::size_t TextNestingDepth(std::string_view text, std::size_t limit = kMaxJsonDepth);
// The same for a parsed value (a scalar is 0, [] and {} are 1), without recursion.
std::size_t NestingDepth(const kube::Json& value, std::size_t limit = kMaxJsonDepth);

// Bytes a parsed value occupies in memory (its nodes, keys and strings, with the allocators'
// usual overheads), computed without recursion. An estimate, within a small factor.
std::size_t ApproximateMemory(const kube::Json& value);

}  // namespace fakeapi
