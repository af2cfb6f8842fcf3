// YAML in, JSON out, positions kept. Scenario files and Kubernetes manifests are YAML; everything
// downstream (the fake API, the DGLJob API, the scenario loader) works on kube::Json. The
// conversion remembers where each value came from, so a later check can point at the source:
// `scenario.yaml:14:7: jobs[0].at: invalid duration "5 minutes"`.
//
// Scalars resolve as in Kubernetes manifests, by the YAML 1.2 core schema: null (`~`, `null`, empty),
// booleans (`true`/`false` in three capitalisations), integers (decimal, `0x..`, `0o..`), floats
// (including `.inf` and `.nan`); everything else, and every quoted or block scalar, is a string.
// Decimal integers with a leading zero (`08`) stay strings rather than guess at octal. Mapping keys
// become strings; duplicate keys are an error, as they are to kubectl. A scalar that is not valid
// UTF-8 (yaml-cpp passes bytes through) is an error too, as JSON and every report need Unicode, and
// so is one holding a Unicode noncharacter (U+FFFE, U+FFFF, ...), which YAML counts as unprintable
// (kubectl's YAML reader refuses it too) and JsonToYaml could not write back.
//
// Nothing here throws: bad YAML comes back as a YamlError naming the file, line and column.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/kernel/input_file.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace harness {

// A 1-based position in a source file; line 0 means unknown.
struct SourcePos {
  int line = 0;
  int column = 0;
  bool known() const { return line > 0; }
  bool operator==(const SourcePos&) const = default;
};

// One step of a field path: a mapping key or a sequence index.
using PathSegment = std::variant<std::string, std::size_t>;

// Splits a field path as Kubernetes prints them ("spec.containers[0].image",
// "metadata.labels[app.kubernetes.io/name]") into segments. Bracketed digits are indices; any other
// bracketed text is a key. Tolerates malformed input (the rest becomes one key).
std::vector<PathSegment> ParseFieldPath(std::string_view path);
// The inverse, in one canonical spelling: keys that are plain identifiers ([A-Za-z_][A-Za-z0-9_-]*)
// are joined with '.', other keys are bracketed, indices are bracketed. "" is the document itself.
std::string FormatFieldPath(const std::vector<PathSegment>& segments);
// `path` under `base`, canonical: JoinFieldPath("jobs[0]", "inline.metadata") = "jobs[0].inline.metadata".
std::string JoinFieldPath(std::string_view base, std::string_view path);
// "/spec/containers/0/image" -> "spec.containers[0].image". Tokens of digits only are read as
// indices (a JSON pointer alone cannot tell "0" the key from 0 the index).
std::string FieldPathFromPointer(std::string_view json_pointer);

// Where each value of one document came from, by field path. A scalar maps to its value's position;
// a mapping or sequence that is the value of a key maps to the key (the line a reader looks for); a
// sequence item maps to the item.
class SourceMap {
 public:
  void Add(std::string_view field_path, SourcePos pos);
  // Add without re-spelling the path. REQUIRES: `field_path` is canonical (FormatFieldPath's output).
  void AddCanonical(std::string field_path, SourcePos pos) { positions_.insert_or_assign(std::move(field_path), pos); }
  // The position of `field_path` or, when it has none (a required field that is absent, say), of its
  // nearest ancestor that has one. Unknown position only if not even the document has one.
  SourcePos Locate(std::string_view field_path) const;
  // True when exactly this path has a position.
  bool Contains(std::string_view field_path) const;
  std::size_t size() const { return positions_.size(); }

 private:
  std::map<std::string, SourcePos, std::less<>> positions_;  // keyed by canonical field path
};

struct YamlDocument {
  kube::Json value;  // null for an empty document
  SourceMap positions;   // "" maps to the document's first node
};

struct YamlError {
  std::string file;
  SourcePos pos;
  std::string message;
  // "file:line:col: message", or "file: message" when the position is unknown.
  std::string ToString() const;
};

// Either every document of a file or the error that stopped the load.
struct YamlLoad {
  std::vector<YamlDocument> documents;
  std::optional<YamlError> error;
  bool ok() const { return !error.has_value(); }
};

// Aliases can make a small file expand without bound (`&a [*a]` is even a cycle in yaml-cpp's node
// graph), so the conversion stops with an error past these limits rather than exhaust the stack or
// memory. The values are counted twice: as the parser streams the text, before any tree is built
// (so a 50 MB file of short list items is refused in the memory of its text), and while the tree
// is converted, aliases expanded. The defaults leave room for a NodeList of thousands of nodes.
struct YamlLimits {
  std::size_t max_values = 1'000'000;  // per file, after expanding aliases
  int max_depth = 1000;
  std::size_t max_bytes = sim::kMaxDocumentBytes;  // LoadYamlFile only (sim/kernel/input_file.h)
};

// Loads every document of `text`; `file` only names the source in positions and errors.
YamlLoad LoadYamlString(std::string_view text, std::string_view file = "<string>", const YamlLimits& limits = {});
// Reads and loads a file; a missing or unreadable file, one that is not a regular file (a FIFO,
// /dev/zero) or one over limits.max_bytes is an error with an unknown position (input_file.h).
YamlLoad LoadYamlFile(const std::string& path, const YamlLimits& limits = {});

// JSON back to YAML text that loads (LoadYamlString) to the same JSON: a string the core schema
// would read as something else ("96", "true", "null", "") is double-quoted, numbers are written in
// their shortest exact form (infinities and NaN as .inf, -.inf, .nan). Block style, except that a mapping or sequence of scalars that fits on
// one line is written in flow style ({at: 30m, kind: NodeDown}). Keys of a mapping come in
// `first_keys` order (those present), then the rest in JSON's order; only the top level uses it.
// A key over 200 bytes is written as an explicit key ("? key"): YAML's implicit keys stop at 1,024
// characters; a document holding one is written in block style throughout.
std::string JsonToYaml(const kube::Json& value, const std::vector<std::string>& first_keys = {});

// "file:line:col" of `field_path` (its nearest located ancestor), or "file" when nothing is known.
std::string FormatLocation(std::string_view file, const SourceMap& positions, std::string_view field_path);
// "file:line:col: field.path: message"; the "field.path: " part is left out when the path is empty.
// Always one line: a line break or other control character (a key of the input may hold one) is
// written escaped ("\n", "\x03").
std::string FormatProblem(std::string_view file, const SourceMap& positions, std::string_view field_path,
                          std::string_view message);

}  // namespace harness
