#include "sim/harness/config/line_regex.h"

#include <gtest/gtest.h>

#include <string>

namespace harness {
namespace {

LineRegex Compiled(const std::string& pattern) {
  std::string error;
  LineRegex re = LineRegex::Compile(pattern, &error);
  EXPECT_TRUE(re.ok()) << pattern << ": " << error;
  return re;
}

std::string Refused(const std::string& pattern) {
  std::string error;
  EXPECT_FALSE(LineRegex::Compile(pattern, &error).ok()) << pattern;
  return error;
}

TEST(LineRegexTest, SearchesAsTheScenariosPatternsNeed) {
  const std::string line = "10.0.0.3 30050 1 sage-products-worker-1 1";
  EXPECT_TRUE(Compiled(R"(^\S+ 30050 1 sage-products-worker-1 1$)").Search(line));
  EXPECT_TRUE(Compiled("worker-1").Search(line));  // anywhere in the line, as ECMAScript's search
  EXPECT_FALSE(Compiled("^worker-1").Search(line));
  EXPECT_TRUE(Compiled(R"(^(\d+\.){3}\d+ \d{5} [0-9] [a-z-]+\d (0|1)$)").Search(line));
  EXPECT_FALSE(LineRegex().Search(line));  // not compiled: matches nothing
}

TEST(LineRegexTest, CatastrophicPatternsAnswerInLinearTime) {
  // std::regex backtracked exponentially on these (a run hung) and recursed once per character
  // of a long line (a stack overflow); RE2 answers at once.
  const std::string line(100'000, 'a');
  EXPECT_FALSE(Compiled("^(.*)*$x").Search(line));
  EXPECT_FALSE(Compiled("^(a+)+b$").Search(line));
  EXPECT_TRUE(Compiled("^(a|aa)*$").Search(line));
}

TEST(LineRegexTest, PatternsPastTheBoundsAreRefusedWithAReason) {
  EXPECT_EQ(Refused(std::string(30000, '(') + "a" + std::string(30000, ')')), "longer than 1000 bytes (60001)");
  EXPECT_EQ(Refused(std::string(kMaxRegexBytes + 1, 'a')), "longer than 1000 bytes (1001)");
  EXPECT_EQ(Refused("(unclosed"), "missing ): (unclosed");
  EXPECT_EQ(Refused("a{1001}"), "invalid repetition size: {1001}");
  EXPECT_EQ(Refused("((a{100}){100}){100}"), "invalid repetition size: {100}");  // 10^6 copies of a
  // Within the length limit but too big once compiled: every letter of Unicode, a thousand times.
  EXPECT_EQ(Refused(R"(\pL{1000})"), "too complex: its compiled form passes 1 MiB");
  // What RE2 does not do is refused rather than misread.
  EXPECT_EQ(Refused(R"((a)\1)"), R"(invalid escape sequence: \1)");
  EXPECT_EQ(Refused("a(?=b)"), "invalid perl operator: (?=");
}

}  // namespace
}  // namespace harness
