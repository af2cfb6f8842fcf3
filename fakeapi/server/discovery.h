// Discovery, as kubectl and client libraries read it: /version, the legacy discovery documents
// (/api, /apis, /apis/GROUP, /api/v1, /apis/GROUP/VERSION) listing every served resource with its
// verbs, short names and subresources. Aggregated discovery is not served: kubectl falls back to
// these documents when /api and /apis answer plain application/json.
#pragma once

#include "fakeapi/client/resource.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fakeapi {

// The /version document. `git_version` is "v1.32.0-fakeapi" or the like: kubectl's dispatcher
// picks its client by the minor version.
nlohmann::json VersionInfo(const std::string& git_version);

// Groups in registration order (core excluded), and the versions of one.
std::vector<std::string> ServedGroups(const kube::Registry& registry);
std::vector<std::string> ServedVersions(const kube::Registry& registry, const std::string& group);
bool ServesGroupVersion(const kube::Registry& registry, const std::string& group, const std::string& version);

// /apis, /apis/GROUP and /api/v1 or /apis/GROUP/VERSION.
nlohmann::json ApiGroupList(const kube::Registry& registry);
nlohmann::json ApiGroup(const kube::Registry& registry, const std::string& group);
nlohmann::json ApiResourceList(const kube::Registry& registry, const std::string& group, const std::string& version);

}  // namespace fakeapi
