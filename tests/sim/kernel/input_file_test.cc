#include "sim/kernel/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace sim {
namespace {

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("input_file_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(InputFileTest, ReadsARegularFileWhole) {
  const std::string text = std::string("a: 1\n") + std::string(100'000, 'x') + std::string("\0z", 2);
  InputFile file = ReadInputFile(Write("a.yaml", text), 1 << 20);
  ASSERT_TRUE(file.ok()) << file.error;
  EXPECT_EQ(file.text, text);
}

TEST_F(InputFileTest, AFileOverTheCapIsRefusedUnread) {
  InputFile file = ReadInputFile(Write("big.yaml", std::string(2048, 'x')), 1024);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error, "is 2 KiB; files over 1 KiB are refused");
  EXPECT_TRUE(file.text.empty());
  EXPECT_TRUE(ReadInputFile(Write("exact.yaml", std::string(1024, 'x')), 1024).ok());
}

TEST_F(InputFileTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string path = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // Nobody ever opens the other end: before the check, this read blocked for good.
  InputFile file = ReadInputFile(path, 1 << 20);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error, "is a FIFO (named pipe), not a regular file");
}

TEST_F(InputFileTest, DevicesAreRefusedInsteadOfReadUntilMemoryRunsOut) {
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    InputFile file = ReadInputFile(device, 1 << 20);
    ASSERT_FALSE(file.ok()) << device;
    EXPECT_NE(file.error.find("character device"), std::string::npos) << file.error;
  }
}

TEST_F(InputFileTest, ASymbolicLinkIsFollowedToWhatItNames) {
  const std::string link = (dir_ / "zero.yaml").string();
  std::filesystem::create_symlink("/dev/zero", link);
  EXPECT_NE(ReadInputFile(link, 1 << 20).error.find("character device"), std::string::npos);
  const std::string good = (dir_ / "good.yaml").string();
  std::filesystem::create_symlink(Write("target.yaml", "x: 1\n"), good);
  EXPECT_EQ(ReadInputFile(good, 1 << 20).text, "x: 1\n");
}

TEST_F(InputFileTest, DirectoriesAndMissingFilesSayWhat) {
  EXPECT_EQ(ReadInputFile(dir_.string(), 1 << 20).error, "is a directory, not a regular file");
  EXPECT_EQ(ReadInputFile((dir_ / "missing").string(), 1 << 20).error, "cannot open: No such file or directory");
}

TEST_F(InputFileTest, AFileThatReportsNoSizeIsStillReadOnlyToTheCap) {
  // /proc files are regular and report a size of 0 whatever they hold.
  InputFile file = ReadInputFile("/proc/self/status", 1 << 20);
  ASSERT_TRUE(file.ok()) << file.error;
  EXPECT_NE(file.text.find("Name:"), std::string::npos);
  InputFile capped = ReadInputFile("/proc/self/status", 16);
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.error, "is over 16 bytes; larger files are refused");
}

TEST(FormatBytesTest, SaysSizesAsAPersonWould) {
  EXPECT_EQ(FormatBytes(700), "700 bytes");
  EXPECT_EQ(FormatBytes(kMaxDocumentBytes), "64 MiB");
  EXPECT_EQ(FormatBytes(kMaxEdgeListBytes), "256 MiB");
  EXPECT_EQ(FormatBytes(3 * 512 * 1024), "1.5 MiB");
}

}  // namespace
}  // namespace sim
