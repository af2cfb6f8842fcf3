// Fuzz target: the three patch algorithms of the fake API server, on a document and a patch given
// as two JSON texts separated by a line "====" (without one, the document is {} and the text the
// patch). Both are refused past kMaxJsonDepth before parsing, as the server refuses such bodies.
//   JSON patch (fakeapi::ApplyJsonPatch): a Status, never an exception or a crash; a patch that
//     applies leaves a document within the depth bound, and no bigger than the document, the patch
//     and the copy budget together (a few bytes of copies must not double the document again and again).
//   JSON merge patch (RFC 7386): MergePatched (built anew) equals ApplyMergePatch (in place), and
//     the patch CreateMergePatch computes from a to b turns a into b (where b has no null members,
//     which a merge patch cannot express).
//   Strategic merge patch (fakeapi::ApplyStrategicPatch): any patch on any document, no crash.
#include "fakeapi/client/json.h"
#include "fakeapi/server/json_bounds.h"
#include "fakeapi/server/json_patch.h"
#include "fakeapi/server/merge_patch.h"
#include "fakeapi/server/strategic_merge.h"
#include "tests/fuzz/fuzz_check.h"

#include <string>

using dglsim_fuzz::Require;
using json = kube::Json;

namespace {

std::string Show(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// `value` without null object members (recursively through objects; arrays are kept whole, as a
// merge patch replaces them whole).
json WithoutNullMembers(const json& value) {
  if (!value.is_object()) return value;
  json out = json::object();
  for (const auto& [k, v] : value.items())
    if (!v.is_null()) out[k] = WithoutNullMembers(v);
  return out;
}

void CheckJsonPatch(const json& doc, const json& patch) {
  const fakeapi::JsonPatchLimits limits{.max_operations = 100, .max_copy_bytes = 64 * 1024, .max_depth = 100};
  json patched = doc;
  kube::Status s = fakeapi::ApplyJsonPatch(patched, patch, limits);
  if (!s.ok()) {
    Require(s.code() == 400 || s.code() == 413 || s.code() == 422, "a JSON patch fails with 400, 413 or 422", s.ToString());
    return;
  }
  Require(fakeapi::NestingDepth(patched, limits.max_depth) <= limits.max_depth, "a JSON patch keeps the depth bound");
  const std::size_t bound = Show(doc).size() + Show(patch).size() + limits.max_copy_bytes;
  Require(Show(patched).size() <= bound, "a JSON patch grows a document by at most its own size and the copy budget",
          std::to_string(Show(patched).size()) + " > " + std::to_string(bound));
}

void CheckMergePatch(const json& doc, const json& patch) {
  json in_place = doc;
  fakeapi::ApplyMergePatch(in_place, patch);
  json built = fakeapi::MergePatched(doc, patch);
  Require(in_place == built, "MergePatched equals ApplyMergePatch", Show(in_place) + " vs " + Show(built));
  const json target = WithoutNullMembers(patch);
  json diff = fakeapi::CreateMergePatch(doc, target);
  json result = doc;
  fakeapi::ApplyMergePatch(result, diff);
  Require(result == target, "CreateMergePatch(a, b) turns a into b",
          Show(doc) + " + " + Show(diff) + " = " + Show(result) + ", not " + Show(target));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto [first, second] = dglsim_fuzz::SplitAtLine(dglsim_fuzz::Text(data, size), "====");
  std::string_view doc_text = second.empty() ? std::string_view("{}") : first;
  std::string_view patch_text = second.empty() ? first : second;
  if (fakeapi::TextNestingDepth(doc_text) > fakeapi::kMaxJsonDepth ||
      fakeapi::TextNestingDepth(patch_text) > fakeapi::kMaxJsonDepth)
    return 0;
  json doc = json::parse(doc_text, nullptr, false);
  json patch = json::parse(patch_text, nullptr, false);
  if (doc.is_discarded() || patch.is_discarded()) return 0;
  CheckJsonPatch(doc, patch);
  CheckMergePatch(doc, patch);
  json strategic = doc;
  fakeapi::ApplyStrategicPatch(strategic, patch);
  return 0;
}
