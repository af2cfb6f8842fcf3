// OpenAPI v3 documents, as kubectl reads them: `create` and `apply` look for the fieldValidation
// parameter on each kind's operations (then leave validation to the server); `explain` reads the
// schemas. A kind gets the schema given for it (SetOpenApiSchema) or none.
#pragma once

#include "fakeapi/client/resource.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace fakeapi {

// Schemas by qualified resource name ("dgljobs.kubeflow.org").
using OpenApiSchemas = std::map<std::string, nlohmann::json>;

// The document of one group-version: POST, PUT and PATCH operations per kind that take the
// fieldValidation parameter, and the schemas given, each tagged with its group-version-kind.
nlohmann::json OpenApiV3Document(const kube::Registry& registry, const OpenApiSchemas& schemas,
                                 const std::string& group, const std::string& version,
                                 const std::string& git_version);
// /openapi/v3: the group-versions, each with a URL carrying a hash of its document (kubectl caches
// documents by that URL).
nlohmann::json OpenApiV3Root(const kube::Registry& registry, const OpenApiSchemas& schemas,
                             const std::string& git_version);

// "io.k8s.api.core.v1.Pod", "org.kubeflow.v1alpha1.DGLJob": the definition name of a kind.
std::string DefinitionName(const kube::ResourceType& type);

}  // namespace fakeapi
