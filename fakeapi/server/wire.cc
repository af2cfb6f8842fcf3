// See wire.h.
#include "fakeapi/server/wire.h"

#include <algorithm>
#include <cctype>

namespace fakeapi::wire {

using json = kube::Json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

bool IsValidUtf8Json(const json& j) {
  try {
    (void)j.dump();  // nlohmann's strict handler throws type_error 316 at the first bad byte
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

kube::Status MakeStatus(int code, const std::string& reason, const std::string& message) {
  json status = {{"status", "Failure"}, {"code", code}, {"message", message}};
  if (!reason.empty()) status["reason"] = reason;
  return kube::Status::FromJson(status);
}

kube::Status PathNotFound() {
  return kube::Status::FromJson({{"status", "Failure"}, {"code", 404}, {"reason", "NotFound"}, {"details", json::object()},
                                 {"message", "the server could not find the requested resource"}});
}

kube::Status MethodNotAllowed() {
  return kube::Status::MethodNotAllowed("the server does not allow this method on the requested resource");
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

std::map<std::string, std::string> MediaParams(const std::string& range) {
  std::map<std::string, std::string> out;
  auto parts = Split(range, ';');
  out[""] = Lower(Trim(parts[0]));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    auto eq = parts[i].find('=');
    if (eq == std::string::npos) continue;
    out[Trim(parts[i].substr(0, eq))] = Trim(parts[i].substr(eq + 1));
  }
  return out;
}

bool Truthy(const std::string& v) { return v == "true" || v == "1" || v == "True" || v == "TRUE" || v == "t" || v == "T"; }

std::optional<std::int64_t> ParseInt(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  for (std::size_t k = i; k < text.size(); ++k)
    if (text[k] < '0' || text[k] > '9') return std::nullopt;
  return std::stoll(text);
}

std::string Base64(std::string_view in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buf = (buf << 8) | c;
    bits += 8;
    while (bits >= 6) out += kAlphabet[(buf >> (bits -= 6)) & 63];
  }
  if (bits > 0) out += kAlphabet[(buf << (6 - bits)) & 63];
  while (out.size() % 4) out += '=';
  return out;
}

std::optional<std::string> FromBase64(std::string_view in) {
  std::string out;
  std::uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+' || c == '-' ? 62 : c == '/' || c == '_' ? 63 : c == '=' ? -2 : -1;
    if (v == -2) break;
    if (v < 0) return std::nullopt;
    buf = (buf << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) out += static_cast<char>((buf >> (bits -= 8)) & 0xff);
  }
  return out;
}

}  // namespace fakeapi::wire
