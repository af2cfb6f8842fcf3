// OpenAPI documents, as kubectl reads them:
// - v3 (/openapi/v3 and one document per group-version): `create` and `apply` look for the
//   fieldValidation parameter on each kind's operations (then leave validation to the server);
//   `explain` (1.28 on) reads the schemas.
// - v2 (/openapi/v2, Swagger 2.0): kubectl 1.27 and 1.28 download it before any create or apply
//   (and 1.27 explains from it), as protobuf (the gnostic openapi_v2.Document, openapi_proto.h);
//   JSON when the client asks for it.
// A kind gets the schema given for it (SetOpenApiSchema), or an open object schema that says the
// server does not publish one.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/server/discovery.h"

#include <map>
#include <string>

namespace fakeapi {

// Schemas by qualified resource name ("dgljobs.kubeflow.org").
using OpenApiSchemas = std::map<std::string, kube::Json>;

// The v3 document of one group-version: POST, PUT and PATCH operations per kind that take the
// fieldValidation parameter, and the schemas given, each tagged with its group-version-kind.
kube::Json OpenApiV3Document(const ApiCatalog& catalog, const OpenApiSchemas& schemas, const std::string& group,
                                 const std::string& version, const std::string& git_version);
// /openapi/v3: the group-versions, each with a URL carrying a hash of its document (kubectl caches
// documents by that URL).
kube::Json OpenApiV3Root(const ApiCatalog& catalog, const OpenApiSchemas& schemas, const std::string& git_version);

// /openapi/v2: every served kind's definition (x-kubernetes-group-version-kind), and a PATCH, PUT
// and POST per kind taking fieldValidation. Schemas given in OpenAPI v3 form are converted to what
// Swagger 2.0 has (nullable, anyOf, oneOf, allOf and not are dropped, as kube-apiserver drops them).
kube::Json OpenApiV2Document(const ApiCatalog& catalog, const OpenApiSchemas& schemas,
                                 const std::string& git_version);

// "io.k8s.api.core.v1.Pod", "org.kubeflow.v1alpha1.DGLJob": the definition name of a kind.
std::string DefinitionName(const ApiResource& resource);

}  // namespace fakeapi
