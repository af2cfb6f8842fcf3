// See json_patch.h. The wording of failures follows evanphx/json-patch, which kube-apiserver uses.
#include "fakeapi/server/json_patch.h"

#include "fakeapi/server/wire.h"

#include <algorithm>
#include <string>

namespace fakeapi {
namespace {

using json = kube::Json;
using Pointer = json::json_pointer;

kube::Status Unprocessable(const std::string& message) { return wire::MakeStatus(422, "Invalid", message); }

// The parent of the location `path` names and the last reference token, or an error.
struct Location {
  json* parent = nullptr;
  std::string token;
};

kube::Status Locate(json& doc, const Pointer& path, const std::string& op, Location* out) {
  if (path.empty()) return Unprocessable(op + " operation does not apply: the path is the whole document");
  const Pointer parent_path = path.parent_pointer();
  if (!doc.contains(parent_path))
    return Unprocessable(op + " operation does not apply: doc is missing path: \"" + path.to_string() + "\"");
  out->parent = &doc.at(parent_path);
  out->token = path.back();
  if (!out->parent->is_object() && !out->parent->is_array())
    return Unprocessable(op + " operation does not apply: \"" + parent_path.to_string() + "\" is neither an object nor an array");
  return kube::Status::Ok();
}

// An array index token: "0", "12"; `allow_end` admits "-" (one past the end) and size().
bool ArrayIndex(const std::string& token, std::size_t size, bool allow_end, std::size_t* index) {
  if (token == "-") {
    *index = size;
    return allow_end;
  }
  if (token.empty() || token.size() > 9 || (token.size() > 1 && token[0] == '0')) return false;
  for (char c : token)
    if (c < '0' || c > '9') return false;
  *index = std::stoul(token);
  return allow_end ? *index <= size : *index < size;
}

kube::Status Add(json& doc, const Pointer& path, json value) {
  if (path.empty()) {
    doc = std::move(value);
    return kube::Status::Ok();
  }
  Location at;
  if (kube::Status s = Locate(doc, path, "add", &at); !s.ok()) return s;
  if (at.parent->is_object()) {
    (*at.parent)[at.token] = std::move(value);
    return kube::Status::Ok();
  }
  std::size_t index = 0;
  if (!ArrayIndex(at.token, at.parent->size(), true, &index))
    return Unprocessable("add operation does not apply: index \"" + at.token + "\" is out of bounds");
  at.parent->insert(at.parent->begin() + static_cast<std::ptrdiff_t>(index), std::move(value));
  return kube::Status::Ok();
}

kube::Status Remove(json& doc, const Pointer& path, const std::string& op, json* removed) {
  Location at;
  if (kube::Status s = Locate(doc, path, op, &at); !s.ok()) return s;
  if (at.parent->is_object()) {
    auto it = at.parent->find(at.token);
    if (it == at.parent->end())
      return Unprocessable(op + " operation does not apply: doc is missing key: \"" + path.to_string() + "\"");
    if (removed) *removed = std::move(*it);
    at.parent->erase(it);
    return kube::Status::Ok();
  }
  std::size_t index = 0;
  if (!ArrayIndex(at.token, at.parent->size(), false, &index))
    return Unprocessable(op + " operation does not apply: index \"" + at.token + "\" is out of bounds");
  if (removed) *removed = std::move((*at.parent)[index]);
  at.parent->erase(at.parent->begin() + static_cast<std::ptrdiff_t>(index));
  return kube::Status::Ok();
}

// A pointer of the patch, with its text and how many tokens it has. nlohmann's json_pointer takes
// time in the square of a pointer's length to print it (to_string) or to take its parents one by
// one, hours for the million tokens a 3 MB body can hold, so a pointer is measured on its text
// (every token follows a '/'; a '/' inside a token is written "~1") and printed from it.
struct PatchPointer {
  Pointer pointer;
  std::string text;
  std::size_t tokens = 0;
};

// A value the patch places at `path` may not make the document nest deeper than the limit.
kube::Status CheckDepth(const PatchPointer& path, const json& value, std::size_t max_depth) {
  if (path.tokens + NestingDepth(value, max_depth) > max_depth)
    return Unprocessable("the patched object would nest deeper than " + std::to_string(max_depth) + " levels");
  return kube::Status::Ok();
}

struct PatchState {
  const JsonPatchLimits& limits;
  std::size_t copied_bytes = 0;
};

// The pointer at `key` of `op`. One deeper than the depth bound names nothing a document within
// the bound holds, and is refused before it is parsed.
kube::Status ReadPointer(const json& op, const char* key, const std::string& name, std::size_t max_depth, PatchPointer* out) {
  auto it = op.find(key);
  if (it == op.end() || !it->is_string()) return Unprocessable(name + " operation: missing \"" + key + "\"");
  out->text = it->get<std::string>();
  out->tokens = static_cast<std::size_t>(std::count(out->text.begin(), out->text.end(), '/'));
  if (out->tokens > max_depth)
    return Unprocessable(name + " operation: \"" + key + "\" nests deeper than " + std::to_string(max_depth) + " levels");
  try {
    out->pointer = Pointer(out->text);
  } catch (const json::exception&) {
    return Unprocessable(name + " operation: \"" + out->text + "\" is not a JSON pointer");
  }
  return kube::Status::Ok();
}

kube::Status ApplyOperation(json& doc, const json& op, PatchState& state) {
  if (!op.is_object()) return Unprocessable("a JSON patch operation must be an object");
  const std::string name = op.value("op", "");
  const std::size_t max_depth = state.limits.max_depth;
  PatchPointer at;
  if (kube::Status s = ReadPointer(op, "path", name, max_depth, &at); !s.ok()) return s;
  const Pointer& path = at.pointer;
  auto value = op.find("value");
  if (name == "add" || name == "replace" || name == "test") {
    if (value == op.end()) return Unprocessable(name + " operation: missing \"value\"");
    if (kube::Status s = CheckDepth(at, *value, max_depth); !s.ok()) return s;
  }
  if (name == "add") return Add(doc, path, *value);
  if (name == "remove") return Remove(doc, path, "remove", nullptr);
  if (name == "replace") {
    // evanphx/json-patch v4 (kube-apiserver's) replaces a missing member of an object that exists:
    // it adds it. A missing parent, or an index past an array's end, does not apply.
    if (!path.empty() && !doc.contains(path)) {
      const Pointer parent = path.parent_pointer();
      if (!doc.contains(parent) || !doc.at(parent).is_object())
        return Unprocessable("replace operation does not apply: doc is missing key: \"" + at.text + "\"");
    }
    if (path.empty()) {
      doc = *value;
      return kube::Status::Ok();
    }
    doc[path] = *value;
    return kube::Status::Ok();
  }
  if (name == "test") {
    if (!doc.contains(path) || doc.at(path) != *value) return Unprocessable("testing value " + at.text + " failed: test failed");
    return kube::Status::Ok();
  }
  PatchPointer from_at;
  if (name != "move" && name != "copy") return Unprocessable("Unexpected kind: \"" + name + "\"");
  if (kube::Status s = ReadPointer(op, "from", name, max_depth, &from_at); !s.ok()) return s;
  const Pointer& from = from_at.pointer;
  if (!doc.contains(from))
    return Unprocessable(name + " operation does not apply: doc is missing from path: \"" + from_at.text + "\"");
  if (name == "move") {
    // Removing a value and adding it back where it was leaves the document as it was; done literally
    // at the root, the remove would leave nothing to add back.
    if (path == from) return kube::Status::Ok();
    if (at.text.rfind(from_at.text + "/", 0) == 0)
      return Unprocessable("move operation does not apply: \"" + from_at.text + "\" is a prefix of \"" + at.text + "\"");
    json moved;
    if (kube::Status s = from.empty() ? kube::Status::Ok() : Remove(doc, from, "move", &moved); !s.ok()) return s;
    if (kube::Status s = CheckDepth(at, moved, max_depth); !s.ok()) return s;
    return Add(doc, path, std::move(moved));
  }
  const json& source = doc.at(from);
  if (kube::Status s = CheckDepth(at, source, max_depth); !s.ok()) return s;
  state.copied_bytes += wire::Dump(source).size();
  if (state.copied_bytes > state.limits.max_copy_bytes)
    return Unprocessable("Unable to complete the copy, the accumulated size increase of copy operations exceeds the limit of " +
                         std::to_string(state.limits.max_copy_bytes) + " bytes");
  json copy = source;
  return Add(doc, path, std::move(copy));
}

}  // namespace

kube::Status ApplyJsonPatch(json& target, const json& patch, const JsonPatchLimits& limits) {
  if (!patch.is_array()) return kube::Status::BadRequest("a JSON patch must be a list of operations");
  if (patch.size() > limits.max_operations)
    return kube::Status::TooLarge("The allowed maximum operations in a JSON patch is " + std::to_string(limits.max_operations) +
                                  ", got " + std::to_string(patch.size()));
  PatchState state{limits};
  try {
    for (const json& op : patch)
      if (kube::Status s = ApplyOperation(target, op, state); !s.ok()) return s;
  } catch (const json::exception& e) {
    return Unprocessable(std::string("the JSON patch could not be applied: ") + e.what());
  }
  return kube::Status::Ok();
}

}  // namespace fakeapi
