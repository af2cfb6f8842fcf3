// JSON merge patch (RFC 7386): objects merge recursively, null deletes a member, anything else
// (arrays included) replaces the target.
#pragma once

#include "fakeapi/client/json.h"
namespace fakeapi {

// Applies `patch` to `target` in place.
void ApplyMergePatch(kube::Json& target, const kube::Json& patch);
// `target` with `patch` applied, built in one pass: members the patch replaces are never copied
// from `target` (the cheap way to patch a shared, immutable object).
kube::Json MergePatched(const kube::Json& target, const kube::Json& patch);
// The merge patch that turns `from` into `to` (for clients that send only what changed).
kube::Json CreateMergePatch(const kube::Json& from, const kube::Json& to);

}  // namespace fakeapi
