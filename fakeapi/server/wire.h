// The wire details every part of the HTTP facade shares: content types, JSON text that never
// throws, metav1.Status bodies for failures the store has no factory for, and the small parsers of
// header and query values (media ranges, booleans, integers) that kube-apiserver's own accept, and
// base64.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fakeapi::wire {

// A JSON body must say application/json or kubectl refuses it; the charset parameter also keeps
// cpp-httplib from gzip-compressing it (it compresses only the exact "application/json"), which
// would hold watch events back in the compressor.
inline constexpr const char* kJson = "application/json; charset=utf-8";
inline constexpr const char* kText = "text/plain; charset=utf-8";

// JSON text; never throws on strings that are not UTF-8 (a name decoded from "%ff" in a URL).
std::string Dump(const kube::Json& j);
// Whether every string (and key) of `j` is valid UTF-8, as a parsed JSON body's always are.
bool IsValidUtf8Json(const kube::Json& j);

// A failure Status with the given code, reason and message.
kube::Status MakeStatus(int code, const std::string& reason, const std::string& message);
// 404 for a path that names nothing, worded as kube-apiserver words it.
kube::Status PathNotFound();
// 405 for a method a path does not take.
kube::Status MethodNotAllowed();

std::string Lower(std::string s);
std::string Trim(std::string_view s);
std::vector<std::string> Split(std::string_view s, char sep);

// The parameters of one media range of an Accept or Content-Type header
// ("application/json;as=Table;g=meta.k8s.io;v=v1"): "" holds the lower-cased type itself.
std::map<std::string, std::string> MediaParams(const std::string& range);

// Query booleans as Go's strconv.ParseBool reads them ("true", "1", "True", ...).
bool Truthy(const std::string& v);
// A decimal integer of at most 18 digits (optionally negative); nullopt for anything else.
std::optional<std::int64_t> ParseInt(const std::string& text);

// Standard base64 with padding (RFC 4648), as Go's encoding/json writes []byte.
std::string Base64(std::string_view in);
// Standard or URL-safe base64, padding optional; nullopt on a character of neither alphabet.
std::optional<std::string> FromBase64(std::string_view in);

}  // namespace fakeapi::wire
