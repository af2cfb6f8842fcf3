// Service-account tokens: issued as TokenRequest answers them, found again when presented. See
// service_account_tokens.h.
#include "fakeapi/server/service_account_tokens.h"

#include "fakeapi/client/json_path.h"

#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <cstdio>

namespace fakeapi {

namespace {

std::string Base64Url(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    if (i + 1 < bytes.size()) out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

std::string Hmac(const std::string& key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

// A version-4-shaped UUID from 16 bytes.
std::string Uuid(const std::string& bytes) {
  unsigned char b[16];
  for (int i = 0; i < 16; ++i) b[i] = static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  char out[37];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return out;
}

}  // namespace

ServiceAccountTokens::ServiceAccountTokens(std::uint64_t seed) {
  const std::string material = "dglsim service-account signing key " + std::to_string(seed);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(material.data()), material.size(), digest);
  key_.assign(reinterpret_cast<const char*>(digest), sizeof digest);
}

std::string ServiceAccountTokens::Issue(const Holder& account, const std::vector<std::string>& audiences,
                                        std::int64_t seconds, kube::Micros now) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::int64_t iat = now / kube::kSecond;
  const std::int64_t exp = iat + seconds;
  const std::string jti = Uuid(Hmac(key_, "jti " + std::to_string(++count_)));
  kube::Json claims = {{"aud", audiences.empty() ? std::vector<std::string>{kServiceAccountIssuer} : audiences},
                       {"exp", exp},
                       {"iat", iat},
                       {"iss", kServiceAccountIssuer},
                       {"jti", jti},
                       {"kubernetes.io",
                        {{"namespace", account.ns}, {"serviceaccount", {{"name", account.name}, {"uid", account.uid}}}}},
                       {"nbf", iat},
                       {"sub", "system:serviceaccount:" + account.ns + ":" + account.name}};
  const std::string header = Base64Url(R"({"alg":"HS256","kid":"dglsim"})");
  const std::string signed_part = header + "." + Base64Url(claims.dump());
  std::string token = signed_part + "." + Base64Url(Hmac(key_, signed_part));
  Holder holder = account;
  holder.expires = exp * kube::kSecond;
  issued_[token] = std::move(holder);
  return token;
}

std::optional<ServiceAccountTokens::Holder> ServiceAccountTokens::Find(std::string_view token) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = issued_.find(token);
  if (it == issued_.end()) return std::nullopt;
  return it->second;
}

std::size_t ServiceAccountTokens::issued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return issued_.size();
}

kube::Status InvalidTokenRequest(const std::string& name, const std::string& field, const std::string& message) {
  kube::Json details = {{"group", "authentication.k8s.io"},
                        {"kind", "TokenRequest"},
                        {"causes", kube::Json::array({{{"reason", "FieldValueInvalid"}, {"message", message}, {"field", field}}})}};
  if (!name.empty()) details["name"] = name;
  return kube::Status::FromJson({{"kind", "Status"},
                                 {"apiVersion", "v1"},
                                 {"status", "Failure"},
                                 {"message", "TokenRequest.authentication.k8s.io \"" + name + "\" is invalid: " + field + ": " + message},
                                 {"reason", "Invalid"},
                                 {"details", details},
                                 {"code", 422}});
}

kube::Status CheckTokenRequest(kube::Json& request, const std::string& name) {
  // Built apart and put back whole: a reference into a flat-map object dies when a key is added.
  kube::Json spec = request.contains("spec") && request["spec"].is_object() ? request["spec"] : kube::Json::object();
  kube::Json seconds = spec.contains("expirationSeconds") ? spec["expirationSeconds"] : kube::Json();
  if (seconds.is_null()) seconds = 3600;
  if (!seconds.is_number_integer())
    return kube::Status::BadRequest("the body of the request could not be decoded: spec.expirationSeconds must be an integer");
  const std::int64_t s = seconds.get<std::int64_t>();
  const char* wrong = s < 600 ? "may not specify a duration less than 10 minutes"
                      : s > (std::int64_t{1} << 32) ? "may not specify a duration larger than 2^32 seconds"
                                                     : nullptr;
  if (wrong) return InvalidTokenRequest(name, "spec.expirationSeconds", "Invalid value: " + std::to_string(s) + ": " + wrong);
  kube::Json audiences = spec.contains("audiences") ? spec["audiences"] : kube::Json();
  if (!audiences.is_array() || audiences.empty()) audiences = kube::Json::array({kServiceAccountIssuer});
  for (const kube::Json& a : audiences)
    if (!a.is_string()) return kube::Status::BadRequest("the body of the request could not be decoded: spec.audiences must be strings");
  kube::Json bound = spec.contains("boundObjectRef") ? spec["boundObjectRef"] : kube::Json();
  request["spec"] = {{"audiences", audiences}, {"expirationSeconds", seconds}, {"boundObjectRef", bound}};
  return kube::Status::Ok();
}

}  // namespace fakeapi
