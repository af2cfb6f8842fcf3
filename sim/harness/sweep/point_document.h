// A point's scenario is the base scenario document with the point's values written into it at their
// field paths, then handed to the scenario loader as text, exactly as a user's file would be: so a
// point is checked and admitted like any scenario, and a sweep's row is what `dglsim run` of that
// text gives (the tests compare them).
//
// Paths are resolved in the parsed document (kube::Json), never in the text. Every segment must
// exist in the base; the last one names a mapping's key or a sequence's index that is there. A path
// that goes through `jobs[N].manifest` into the manifest's content makes the job inline its
// manifest (InlineManifest), once, before any point is built.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/config/yaml_json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace harness::sweep {

struct SweepSpec;

// The file name the loader is given for a point's text; its problems are then relocated to the
// sweep file (LocatePointProblem).
inline constexpr const char* kPointFile = "<sweep point>";

// Where a path stops being found in `document`: "" when the whole path exists; otherwise a message
// ("no \"replica\" in jobs[0].inline.spec.dglReplicaSpecs.Worker (did you mean \"replicas\"?)").
std::string MissingPart(const kube::Json& document, const std::vector<PathSegment>& path);

// When `path` goes through `jobs[N].manifest` (a file name) into the manifest: loads the manifest
// (resolved against `base_dir`), which must hold one document, moves it into `jobs[N].inline`,
// drops `manifest`, and rewrites `path` to go through `inline`. Returns "" or a message.
std::string InlineManifest(kube::Json& document, std::vector<PathSegment>& path, const std::string& base_dir);

// Writes `value` at `path` (null: removes the field). A write under a field that an earlier write
// of the point removed (a Partitioner that MSP drops, say) is skipped.
void WriteAt(kube::Json& document, const std::vector<PathSegment>& path, const kube::Json& value);

// The value a target writes: `value` itself, or `format` with each "{}" replaced by the value's text.
kube::Json Formatted(const kube::Json& value, const std::string& format);

// The scenario text of point `point` run with `seed`.
std::string PointScenarioText(const SweepSpec& spec, std::size_t point, std::uint64_t seed);

// A loader problem about a point's text ("<sweep point>:3:14: jobs[0].inline.spec...: message"),
// as "field.path: message" without the point file's position; other problems are returned whole.
std::string StripPointLocation(const std::string& problem);

}  // namespace harness::sweep
