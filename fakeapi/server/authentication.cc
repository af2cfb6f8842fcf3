// Bearer tokens and anonymous requests. See authentication.h.
#include "fakeapi/server/authentication.h"

#include <algorithm>

namespace fakeapi {

namespace {

// The fields of one CSV line (RFC 4180 quoting: "a,b" is one field, "" inside quotes is a quote).
std::optional<std::vector<std::string>> CsvFields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return fields;
}

}  // namespace

kube::Status Unauthorized() {
  return kube::Status::FromJson({{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", kube::Json::object()},
                                 {"status", "Failure"}, {"message", "Unauthorized"}, {"reason", "Unauthorized"},
                                 {"code", 401}});
}

kube::Result<Authentication> Authentication::FromTokenCsv(std::string_view text, const std::string& file) {
  Authentication auth;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    auto fields = CsvFields(line);
    const std::string where = file + ":" + std::to_string(number) + ": ";
    if (!fields) return kube::Status::BadRequest(where + "an unterminated quoted field");
    if (fields->size() < 3) return kube::Status::BadRequest(where + "expected token,user,uid[,\"group1,group2\"], got " +
                                                            std::to_string(fields->size()) + " fields");
    const std::string& token = (*fields)[0];
    if (token.empty()) return kube::Status::BadRequest(where + "the token is empty");
    if ((*fields)[1].empty()) return kube::Status::BadRequest(where + "the user name is empty");
    if (auth.tokens_.count(token)) return kube::Status::BadRequest(where + "the token is given twice");
    rbac::UserInfo user{(*fields)[1], {}, (*fields)[2]};
    if (fields->size() > 3) {
      std::string_view groups = (*fields)[3];
      while (!groups.empty()) {
        const std::size_t comma = groups.find(',');
        std::string_view g = groups.substr(0, comma);
        if (!g.empty()) user.groups.emplace_back(g);
        groups = comma == std::string_view::npos ? std::string_view() : groups.substr(comma + 1);
      }
    }
    auth.AddToken(token, std::move(user));
  }
  return auth;
}

void Authentication::AddToken(std::string token, rbac::UserInfo user) {
  if (std::find(user.groups.begin(), user.groups.end(), rbac::kAuthenticatedGroup) == user.groups.end())
    user.groups.push_back(rbac::kAuthenticatedGroup);
  tokens_[std::move(token)] = std::move(user);
}

std::optional<rbac::UserInfo> Authentication::Authenticate(std::string_view authorization) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() > kBearer.size() && authorization.substr(0, kBearer.size()) == kBearer) {
    std::string_view token = authorization.substr(kBearer.size());
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    auto it = tokens_.find(token);
    if (it == tokens_.end()) return std::nullopt;
    return it->second;
  }
  if (!authorization.empty() || !anonymous_) return std::nullopt;
  return rbac::UserInfo{rbac::kAnonymousUser, {rbac::kUnauthenticatedGroup}, ""};
}

}  // namespace fakeapi
