// A Swagger 2.0 document (as OpenApiV2Document builds it) encoded as the protobuf message kubectl
// and client-go download from /openapi/v2 (Accept: application/com.github.proto-openapi.spec.v2@
// v1.0+protobuf): gnostic's openapi.v2.Document, field numbers from google/gnostic's
// openapiv2/OpenAPIv2.proto. Encoded: swagger, info, paths (get/put/post/delete/patch operations
// with operationId, query parameters, responses and vendor extensions) and definitions (schemas
// with $ref, format, title, description, default, numeric and length bounds, required, enum, type,
// items, properties, additionalProperties and vendor extensions); the rest of Swagger 2.0 is not.
// Vendor extension values, defaults and enum members go as YAML text, which JSON text is.
#pragma once

#include "fakeapi/client/json.h"

#include <string>

namespace fakeapi {

// The Content-Type it is served with, as kube-apiserver (kube-openapi) serves it: the subtype with
// "." where clients ask with "@". "@" is not allowed in a media type, and Go's mime parser in
// kubectl 1.27 and 1.28 refuses a response that has it ("mime: unexpected content after media
// subtype"), so that `create`, `apply` and `explain` failed.
inline constexpr const char* kOpenApiV2ProtobufType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

std::string OpenApiV2Protobuf(const kube::Json& swagger);

}  // namespace fakeapi
