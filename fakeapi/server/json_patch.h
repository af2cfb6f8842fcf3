// JSON patch (RFC 6902, application/json-patch+json) with the bounds kube-apiserver puts on it:
// at most 10,000 operations (413 RequestEntityTooLarge past it), `copy` operations that together
// add at most 3 MiB (kube-apiserver's JSONPatchMaxCopyBytes default: twice etcd's 1.5 MiB), and a
// result nested no deeper than kMaxJsonDepth. Without those, a 2 KB patch of 40 `copy` operations
// that each copy the document into itself doubles it 40 times. What the patch leaves is then held
// to kMaxObjectBytes by the writer (json_bounds.h), as etcd holds kube-apiserver to it.
//
// Operations apply one by one to the document in place; the first that cannot apply (a missing
// path, a failed `test`, a bound passed) stops the patch with 422 Invalid and leaves `target`
// partly patched (callers patch a copy). As in kube-apiserver's library (evanphx/json-patch v4),
// `replace` of a missing member of an existing object adds it. The message says what failed; the
// HTTP facade answers kube-apiserver's generic 422 instead (it passes no patch error's text on).
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"
#include "fakeapi/server/json_bounds.h"

#include <cstddef>

namespace fakeapi {

struct JsonPatchLimits {
  std::size_t max_operations = 10'000;
  std::size_t max_copy_bytes = 3 * 1024 * 1024;  // serialised bytes that `copy` operations add
  std::size_t max_depth = kMaxJsonDepth;
};

kube::Status ApplyJsonPatch(kube::Json& target, const kube::Json& patch, const JsonPatchLimits& limits = {});

}  // namespace fakeapi
