// Reading a kubeconfig file into HttpClientOptions (see kubeconfig.h).
#include "operator/cmd/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dgl {
namespace {

// Standard base64 (RFC 4648), padding optional, whitespace ignored. False on any other character.
bool DecodeBase64(const std::string& in, std::string* out) {
  out->clear();
  unsigned buffer = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else if (c == '=' || c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    else return false;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return true;
}

struct Reader {
  std::string file;
  std::string* error;

  bool Fail(const std::string& path, const std::string& message) const {
    *error = "kubeconfig " + file + ": " + path + ": " + message;
    return false;
  }

  // The entry of `list` (clusters, users, contexts) whose name is `name`: its `key` map.
  bool Find(const YAML::Node& root, const char* list, const char* key, const std::string& name, YAML::Node* out,
            std::string* path) const {
    const YAML::Node entries = root[list];
    if (!entries || !entries.IsSequence()) return Fail(list, "missing or not a list");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const YAML::Node entry = entries[i];
      if (!entry.IsMap() || !entry["name"] || entry["name"].as<std::string>() != name) continue;
      *path = std::string(list) + "[" + std::to_string(i) + "]." + key;
      *out = entry[key];
      if (!*out || !out->IsMap()) return Fail(*path, "missing or not a map");
      return true;
    }
    return Fail(list, "no entry named \"" + name + "\"");
  }

  // A scalar field as a string ("" when absent).
  bool Scalar(const YAML::Node& map, const std::string& path, const char* key, std::string* out) const {
    const YAML::Node node = map[key];
    out->clear();
    if (!node || node.IsNull()) return true;
    if (!node.IsScalar()) return Fail(path + "." + key, "not a string");
    *out = node.as<std::string>();
    return true;
  }

  // A relative file name is relative to the kubeconfig's folder, as kubectl resolves it.
  std::string Resolve(const std::string& name) const {
    std::filesystem::path p(name);
    if (p.is_absolute()) return name;
    return (std::filesystem::path(file).parent_path() / p).string();
  }

  bool Cluster(const YAML::Node& cluster, const std::string& path, kube::HttpClientOptions* options) const {
    for (const char* unsupported : {"tls-server-name", "proxy-url"}) {
      if (cluster[unsupported]) return Fail(path + "." + unsupported, "not supported by dgl-operator");
    }
    std::string server, ca_file, ca_data, insecure;
    if (!Scalar(cluster, path, "server", &server) || !Scalar(cluster, path, "certificate-authority", &ca_file) ||
        !Scalar(cluster, path, "certificate-authority-data", &ca_data) ||
        !Scalar(cluster, path, "insecure-skip-tls-verify", &insecure)) {
      return false;
    }
    if (server.empty()) return Fail(path + ".server", "missing");
    options->server = server;
    if (!ca_data.empty()) {
      if (!DecodeBase64(ca_data, &options->ca_cert_pem)) {
        return Fail(path + ".certificate-authority-data", "not base64");
      }
    } else if (!ca_file.empty()) {
      options->ca_cert_file = Resolve(ca_file);
    }
    if (!insecure.empty() && insecure != "true" && insecure != "false") {
      return Fail(path + ".insecure-skip-tls-verify", "not true or false: \"" + insecure + "\"");
    }
    options->insecure_skip_tls_verify = insecure == "true";
    return true;
  }

  bool User(const YAML::Node& user, const std::string& path, kube::HttpClientOptions* options) const {
    for (const char* unsupported : {"client-certificate", "client-certificate-data", "client-key", "client-key-data",
                                    "exec", "auth-provider", "username", "password", "as", "as-groups",
                                    "as-uid", "as-user-extra"}) {
      if (user[unsupported]) return Fail(path + "." + unsupported, "not supported by dgl-operator (use a token)");
    }
    std::string token, token_file;
    if (!Scalar(user, path, "token", &token) || !Scalar(user, path, "tokenFile", &token_file)) return false;
    options->bearer_token = token;
    if (token.empty() && !token_file.empty()) options->bearer_token_file = Resolve(token_file);
    return true;
  }
};

}  // namespace

bool KubeconfigOptions(const std::string& path, const std::string& context, kube::HttpClientOptions* options,
                       std::string* error) {
  Reader r{path, error};
  std::ifstream in(path);
  if (!in) return r.Fail("(file)", "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    return r.Fail("line " + std::to_string(e.mark.line + 1), e.msg);
  }
  if (!root.IsMap()) return r.Fail("(document)", "not a map");
  try {
    std::string name = context;
    if (name.empty() && !r.Scalar(root, "", "current-context", &name)) return false;
    if (name.empty()) return r.Fail("current-context", "missing (or pass --context)");
    YAML::Node ctx, cluster, user;
    std::string ctx_path, cluster_path, user_path, cluster_name, user_name;
    if (!r.Find(root, "contexts", "context", name, &ctx, &ctx_path)) return false;
    if (!r.Scalar(ctx, ctx_path, "cluster", &cluster_name) || !r.Scalar(ctx, ctx_path, "user", &user_name)) return false;
    if (cluster_name.empty()) return r.Fail(ctx_path + ".cluster", "missing");
    if (!r.Find(root, "clusters", "cluster", cluster_name, &cluster, &cluster_path)) return false;
    if (!r.Cluster(cluster, cluster_path, options)) return false;
    if (user_name.empty()) return true;  // anonymous
    if (!r.Find(root, "users", "user", user_name, &user, &user_path)) return false;
    return r.User(user, user_path, options);
  } catch (const YAML::Exception& e) {
    return r.Fail("line " + std::to_string(e.mark.line + 1), e.msg);
  }
}

}  // namespace dgl
