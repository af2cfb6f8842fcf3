// Request bodies in Kubernetes' protobuf encoding (Content-Type application/vnd.kubernetes.protobuf)
// decoded into the JSON form of the same object, for the kinds clients actually send that way.
//
// Why: client-go's typed clients send protobuf since 1.32, so kubectl 1.32 and 1.33 post
// `auth can-i`'s SelfSubjectAccessReview, `create configmap|namespace|serviceaccount|role|
// clusterrole|rolebinding|clusterrolebinding|service` and the like as protobuf (observed with
// kubectl -v=8), and they do not fall back to JSON after a 415 (client-go falls back only from
// CBOR). kubectl 1.27 to 1.31 send JSON.
//
// The envelope (k8s.io/apimachinery runtime/serializer/protobuf): the four bytes "k8s\x00", then a
// runtime.Unknown message {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3,
// contentType = 4}; raw is the object's own message without its TypeMeta, which the result gets
// back from the envelope. Field numbers of the decoded kinds are those of k8s.io/api's and
// k8s.io/apimachinery's generated.proto files; field names are their JSON names.
//
// Decoded kinds (DecodableProtobufKinds): SelfSubjectAccessReview, SelfSubjectRulesReview and
// SelfSubjectReview (`auth whoami`),
// ConfigMap, Namespace, ServiceAccount, Service, Event (core and events.k8s.io/v1), Binding,
// Role, ClusterRole, RoleBinding, ClusterRoleBinding, Lease, Eviction, TokenRequest (`create
// token`; its status, which a client never sends, is not decoded) and DeleteOptions (in any
// group version). Any other kind (a Pod, whose spec is hundreds of fields) is 415
// UnsupportedMediaType with that list; a body that is not a well-formed envelope, a field of the
// wrong wire type, a string that is not UTF-8 or a time outside years 1970-9999 is 400 BadRequest.
//
// JSON mapping, as Go's encoding/json renders the decoded Go value: a field the Go type holds by
// value is left out when zero ("", 0, false, a zero Time), as `omitempty` does (and as no server
// reads it differently); a field held by pointer is kept whenever the message carries it; bytes
// are base64; Time is RFC 3339 to the second, MicroTime to the microsecond; IntOrString is a number
// or a string. Fields the decoder does not know are skipped, as protobuf readers do. Decoding is
// bounded: at most the body's size of work, nesting only as deep as the kinds' own (no recursion
// on input).
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"

#include <string>
#include <string_view>

namespace fakeapi {

inline constexpr const char* kProtobufContentType = "application/vnd.kubernetes.protobuf";

// The object a protobuf request body holds, as JSON with apiVersion and kind.
kube::Result<kube::Json> DecodeProtobufBody(std::string_view body);

// "ConfigMap, Namespace, ..." for messages.
std::string DecodableProtobufKinds();

}  // namespace fakeapi
