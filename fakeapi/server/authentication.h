// Who a request to the HttpServer comes from, as kube-apiserver's authenticators decide it:
// - bearer tokens (`Authorization: Bearer TOKEN`) from a static token file in kube-apiserver's
//   --token-auth-file format: one line per token, `token,user,uid[,"group1,group2,..."]` (a CSV
//   file: the groups field is quoted when it holds commas; lines starting with # and empty lines
//   are skipped); every authenticated user is also in system:authenticated;
// - without a token (or with one it does not know): 401 Unauthorized, unless anonymous requests
//   are allowed, which are then system:anonymous in system:unauthenticated (a token that is given
//   but unknown is 401 either way, as in kube-apiserver);
// - impersonation (`Impersonate-User`, `Impersonate-Group`, as kubectl --as and --as-group send
//   them): the requester must be allowed `impersonate` on users (or serviceaccounts, for
//   system:serviceaccount:NS:NAME, in NS) and groups, else 403; the request then runs as that user.
// An HttpServer without an Authentication serves every request as system:anonymous in groups
// system:unauthenticated and system:masters: anonymous and allowed everything (the loopback default
// of `dglsim serve`); access reviews and impersonated requests are still judged by the authorizer.
#pragma once

#include "fakeapi/client/status.h"
#include "fakeapi/server/rbac.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace fakeapi {

class Authentication {
 public:
  // The tokens of a --token-auth-file's text; BadRequest naming the line when one is malformed.
  static kube::Result<Authentication> FromTokenCsv(std::string_view text, const std::string& file = "tokens");
  void AddToken(std::string token, rbac::UserInfo user);
  void set_anonymous(bool allowed) { anonymous_ = allowed; }
  bool anonymous() const { return anonymous_; }
  std::size_t tokens() const { return tokens_.size(); }

  // The user of a request with this Authorization header value ("" when none): nullopt = 401.
  std::optional<rbac::UserInfo> Authenticate(std::string_view authorization) const;

 private:
  std::map<std::string, rbac::UserInfo, std::less<>> tokens_;
  bool anonymous_ = false;
};

// kube-apiserver's 401 body: {"kind":"Status",...,"message":"Unauthorized","reason":"Unauthorized","code":401}.
kube::Status Unauthorized();

}  // namespace fakeapi
