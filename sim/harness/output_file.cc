// See output_file.h.
#include "sim/harness/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace harness {

std::string CannotWrite(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (fs::is_directory(p, ec)) return "it is a directory";
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) return "no such directory " + dir.string();
  if (fs::exists(p, ec) ? ::access(path.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK | X_OK) != 0)
    return std::strerror(errno);
  return "";
}

bool WriteOutputFile(const std::string& path, std::string_view text, std::string* error) {
  // stdio rather than an ofstream: each step's errno is kept, and fclose reports what a buffered
  // write only finds out then (ENOSPC on /dev/full).
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    *error = std::strerror(errno);
    return false;
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0;
  const int write_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (written && closed) return true;
  *error = std::strerror(written ? errno : write_errno);
  return false;
}

}  // namespace harness
