// JSON merge patch (RFC 7386): objects merge recursively, null deletes a member, anything else
// (arrays included) replaces the target.
#pragma once

#include <nlohmann/json.hpp>

namespace fakeapi {

// Applies `patch` to `target` in place.
void ApplyMergePatch(nlohmann::json& target, const nlohmann::json& patch);
// `target` with `patch` applied, built in one pass: members the patch replaces are never copied
// from `target` (the cheap way to patch a shared, immutable object).
nlohmann::json MergePatched(const nlohmann::json& target, const nlohmann::json& patch);
// The merge patch that turns `from` into `to` (for clients that send only what changed).
nlohmann::json CreateMergePatch(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace fakeapi
