// The connection a kubeconfig file describes, as kubectl and client-go read it, for
// `dgl-operator --kubeconfig FILE [--context NAME]`.
//
// The context (NAME, else current-context) names a cluster and a user:
//   clusters[].cluster: server (required), certificate-authority (a file, relative to the
//     kubeconfig's folder) or certificate-authority-data (base64 PEM, which wins, as in client-go),
//     insecure-skip-tls-verify;
//   users[].user: token or tokenFile (re-read every minute), or nothing (anonymous).
// What this client cannot honour is refused rather than ignored: client certificates and keys,
// exec and auth-provider plugins, basic auth, impersonation, tls-server-name, proxy-url.
// Other fields (namespace, extensions, preferences) are ignored.
//
// Errors name the file and the field path (e.g. "kubeconfig /x: clusters[0].cluster.server:
// missing"); the caller exits 2 with them.
#pragma once

#include "fakeapi/client/http_client.h"

#include <string>

namespace dgl {

// False with *error set when the file cannot be read or is not a usable kubeconfig.
bool KubeconfigOptions(const std::string& path, const std::string& context, kube::HttpClientOptions* options,
                       std::string* error);

}  // namespace dgl
