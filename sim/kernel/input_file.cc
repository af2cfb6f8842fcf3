// See input_file.h.
#include "sim/kernel/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sim {
namespace {

// What a file that is not regular is, for the message.
std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device (such as /dev/zero, /dev/urandom or a terminal)";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor on every way out.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string FormatBytes(std::size_t bytes) {
  char buf[64];
  auto unit = [&](double scale, const char* name) {
    const double v = static_cast<double>(bytes) / scale;
    const int digits = v == static_cast<double>(static_cast<std::size_t>(v)) ? 0 : 1;
    std::snprintf(buf, sizeof buf, "%.*f %s", digits, v, name);
    return std::string(buf);
  };
  if (bytes >= (std::size_t{1} << 30)) return unit(double(std::size_t{1} << 30), "GiB");
  if (bytes >= (std::size_t{1} << 20)) return unit(double(std::size_t{1} << 20), "MiB");
  if (bytes >= (std::size_t{1} << 10)) return unit(1024.0, "KiB");
  return std::to_string(bytes) + " bytes";
}

InputFile ReadInputFile(const std::string& path, std::size_t max_bytes) {
  InputFile out;
  Descriptor file;
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one.
  file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (file.fd < 0) {
    out.error = std::string("cannot open: ") + std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) {
    out.error = std::string("cannot read: ") + std::strerror(errno);
    return out;
  }
  if (!S_ISREG(st.st_mode)) {
    out.error = "is " + KindOf(st.st_mode) + ", not a regular file";
    return out;
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    out.error = "is " + FormatBytes(static_cast<std::size_t>(st.st_size)) + "; files over " + FormatBytes(max_bytes) +
                " are refused";
    return out;
  }
  out.text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  // A file that grows while it is read (or reports no size, as /proc files do) is still read
  // only up to the cap, plus one byte to tell that it is over.
  for (;;) {
    if (got == out.text.size()) {
      if (got > max_bytes) break;
      out.text.resize(std::min(max_bytes + 1, std::max<std::size_t>(got * 2, 4096)));
    }
    const ssize_t n = ::read(file.fd, out.text.data() + got, out.text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.text.clear();
      out.error = std::string("cannot read: ") + std::strerror(errno);
      return out;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes) {
    out.text.clear();
    out.error = "is over " + FormatBytes(max_bytes) + "; larger files are refused";
    return out;
  }
  out.text.resize(got);
  return out;
}

}  // namespace sim
