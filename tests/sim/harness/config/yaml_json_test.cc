#include "sim/harness/config/yaml_json.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace harness {
namespace {

using json = kube::Json;

json One(const std::string& yaml) {
  YamlLoad load = LoadYamlString(yaml, "t.yaml");
  EXPECT_TRUE(load.ok()) << load.error->ToString();
  EXPECT_EQ(load.documents.size(), 1u);
  return load.ok() && !load.documents.empty() ? load.documents[0].value : json();
}

json Scalar(const std::string& text) { return One("v: " + text)["v"]; }

TEST(YamlJsonTest, PlainScalarsResolveByTheCoreSchema) {
  EXPECT_EQ(Scalar("42"), json(42));
  EXPECT_TRUE(Scalar("42").is_number_integer());
  EXPECT_EQ(Scalar("-7"), json(-7));
  EXPECT_EQ(Scalar("+7"), json(7));
  EXPECT_EQ(Scalar("0"), json(0));
  EXPECT_EQ(Scalar("0x1F"), json(31));
  EXPECT_EQ(Scalar("0o17"), json(15));
  EXPECT_TRUE(Scalar("1.5").is_number_float());
  EXPECT_DOUBLE_EQ(Scalar("1.5").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(Scalar("-.5").get<double>(), -0.5);
  EXPECT_DOUBLE_EQ(Scalar("1e3").get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(Scalar("2.5E-1").get<double>(), 0.25);
  EXPECT_TRUE(std::isinf(Scalar(".inf").get<double>()));
  EXPECT_LT(Scalar("-.Inf").get<double>(), 0);
  EXPECT_TRUE(std::isnan(Scalar(".nan").get<double>()));
  EXPECT_EQ(Scalar("true"), json(true));
  EXPECT_EQ(Scalar("False"), json(false));
  EXPECT_EQ(Scalar("TRUE"), json(true));
  EXPECT_TRUE(Scalar("null").is_null());
  EXPECT_TRUE(Scalar("~").is_null());
  EXPECT_TRUE(Scalar("").is_null());
}

TEST(YamlJsonTest, EverythingElseIsAString) {
  EXPECT_EQ(Scalar("20Gi"), json("20Gi"));
  EXPECT_EQ(Scalar("5 minutes"), json("5 minutes"));
  EXPECT_EQ(Scalar("1h30m"), json("1h30m"));
  EXPECT_EQ(Scalar("DGL-API"), json("DGL-API"));
  EXPECT_EQ(Scalar("yes"), json("yes"));  // YAML 1.1 booleans are strings in 1.2
  EXPECT_EQ(Scalar("on"), json("on"));
  EXPECT_EQ(Scalar("1.2.3"), json("1.2.3"));
  EXPECT_EQ(Scalar("0x"), json("0x"));
  EXPECT_EQ(Scalar("."), json("."));
  EXPECT_EQ(Scalar("1_000"), json("1_000"));
}

TEST(YamlJsonTest, LeadingZeroDecimalsStayStrings) {
  EXPECT_EQ(Scalar("08"), json("08"));
  EXPECT_EQ(Scalar("0755"), json("0755"));
  EXPECT_EQ(Scalar("-08"), json("-08"));
  EXPECT_EQ(Scalar("00"), json("00"));
  EXPECT_DOUBLE_EQ(Scalar("0.5").get<double>(), 0.5);
}

TEST(YamlJsonTest, QuotedAndBlockScalarsAreAlwaysStrings) {
  EXPECT_EQ(Scalar("\"2\""), json("2"));
  EXPECT_EQ(Scalar("'true'"), json("true"));
  EXPECT_EQ(Scalar("\"null\""), json("null"));
  EXPECT_EQ(Scalar("''"), json(""));
  EXPECT_EQ(One("v: |\n  42\n")["v"], json("42\n"));
  EXPECT_EQ(One("v: >-\n  a\n  b\n")["v"], json("a b"));
  EXPECT_EQ(Scalar("!!str 12"), json("12"));
}

TEST(YamlJsonTest, HugeIntegersWidenRatherThanFail) {
  EXPECT_EQ(Scalar("9223372036854775807"), json(INT64_MAX));
  EXPECT_EQ(Scalar("18446744073709551615"), json(UINT64_MAX));
  EXPECT_TRUE(Scalar("99999999999999999999999").is_number_float());
  EXPECT_TRUE(Scalar("-99999999999999999999999").is_number_float());
}

TEST(YamlJsonTest, MappingKeysBecomeStrings) {
  json v = One("1: a\ntrue: b\nnull: c\n");
  EXPECT_EQ(v, json({{"1", "a"}, {"true", "b"}, {"null", "c"}}));
}

TEST(YamlJsonTest, NestedStructuresAndFlowStyle) {
  json v = One("spec:\n  list: [1, two, {three: 3}]\n  map: {cpu: \"96\", gpu: 8}\n");
  EXPECT_EQ(v, json::parse(R"({"spec":{"list":[1,"two",{"three":3}],"map":{"cpu":"96","gpu":8}}})"));
}

// Found by tests/fuzz/fuzz_yaml: JsonToYaml wrote .inf, -.inf and .nan as JSON prints them (null),
// quoted as the string "null", so a scenario written back (dglsim chaos --write-scenario) changed.
TEST(YamlJsonTest, JsonToYamlWritesInfinitiesAndNanAsTheCoreSchemaReadsThem) {
  YamlLoad loaded = LoadYamlString("a: [.inf, -.Inf, .nan, 1.5]\n");
  ASSERT_TRUE(loaded.ok());
  const std::string written = JsonToYaml(loaded.documents[0].value);
  EXPECT_EQ(written, "a: [.inf, -.inf, .nan, 1.5]\n");
  YamlLoad again = LoadYamlString(written);
  ASSERT_TRUE(again.ok()) << written;
  const json& a = again.documents[0].value["a"];
  EXPECT_TRUE(std::isinf(a[0].get<double>()) && a[0].get<double>() > 0);
  EXPECT_TRUE(std::isinf(a[1].get<double>()) && a[1].get<double>() < 0);
  EXPECT_TRUE(std::isnan(a[2].get<double>()));
  EXPECT_EQ(a[3], 1.5);
}

// Found by tests/fuzz/fuzz_api_server: yaml-cpp passes bytes through, so a YAML body (or scenario)
// with bytes that are not UTF-8 gave strings that JSON cannot write; `dglsim serve` answered 500.
// Found by tests/fuzz/fuzz_yaml in a long run: a key of 1,100 characters was written as an implicit
// key, which YAML (and yaml-cpp) allows up to 1,024 only ("illegal map value" on reading it back).
TEST(YamlJsonTest, JsonToYamlWritesALongKeyThatLoadsBack) {
  for (const std::string& key : {std::string(1100, 'k'), std::string(300, '\x03'), std::string(201, 'a')}) {
    const json value = {{"args", json::array({"--x", {{key, nullptr}}})}, {key, {{"inner", 1}}}};
    const std::string written = JsonToYaml(value);
    YamlLoad again = LoadYamlString(written, "w.yaml");
    ASSERT_TRUE(again.ok()) << again.error->ToString() << "\n" << written;
    ASSERT_EQ(again.documents.size(), 1u);
    EXPECT_EQ(again.documents[0].value, value) << written;
  }
}

// Found by tests/fuzz/fuzz_scenario_loader in a long run: a mapping key holding a line break put
// the break into the problem, so one problem printed as two lines, the second not located.
TEST(YamlJsonTest, AProblemIsOneLineWhateverTheKeyHolds) {
  SourceMap positions;
  const std::string problem = FormatProblem("s.yaml", positions, "metadata[a\nb\x03" "c]", "unknown field \"a\nb\"");
  EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
  EXPECT_NE(problem.find("a\\nb\\x03c"), std::string::npos) << problem;
  EXPECT_NE(problem.find("unknown field \"a\\nb\""), std::string::npos) << problem;
  EXPECT_EQ(FormatProblem("s.yaml", positions, "", "a tab\tstays"), "s.yaml: a tab\tstays");
}

TEST(YamlJsonTest, AScalarThatIsNotUtf8IsALocatedError) {
  YamlLoad bad = LoadYamlString("name: ok\ndata: {k: \"\xff\xfe\"}\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error->ToString(), "s.yaml:2:11: a scalar holding bytes that are not UTF-8");
  EXPECT_FALSE(LoadYamlString("\xc0\xaf: overlong\n").ok());
  EXPECT_FALSE(LoadYamlString("a: \xed\xa0\x80\n").ok());  // a surrogate
  EXPECT_FALSE(LoadYamlString("a: \xe2\x82\n").ok());      // cut short
  // Found by tests/fuzz/fuzz_yaml: a noncharacter (here from UTF-16 text, or an escape) loaded, and
  // JsonToYaml wrote it as U+FFFD, yaml-cpp's emitter's replacement.
  YamlLoad nonchar = LoadYamlString("a: \"x\\uFFFFy\"\n", "s.yaml");
  ASSERT_FALSE(nonchar.ok());
  EXPECT_EQ(nonchar.error->ToString(), "s.yaml:1:4: a scalar holding a Unicode noncharacter such as U+FFFF");
  EXPECT_FALSE(LoadYamlString("a: \xef\xb7\x90\n").ok());  // U+FDD0
  YamlLoad good = LoadYamlString("name: \"gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x9a\x80\"\n");
  ASSERT_TRUE(good.ok()) << good.error->ToString();
  EXPECT_EQ(good.documents[0].value["name"], "gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x9a\x80");
}

TEST(YamlJsonTest, AliasesAreExpanded) {
  json v = One("a: &x {k: 1}\nb: *x\n");
  EXPECT_EQ(v["b"], json({{"k", 1}}));
}

TEST(YamlJsonTest, SeveralDocumentsEachWithTheirOwnPositions) {
  YamlLoad load = LoadYamlString("a: 1\n---\nb: 2\n---\n", "m.yaml");
  ASSERT_TRUE(load.ok());
  ASSERT_GE(load.documents.size(), 2u);
  EXPECT_EQ(load.documents[0].value, json({{"a", 1}}));
  EXPECT_EQ(load.documents[1].value, json({{"b", 2}}));
  EXPECT_EQ(load.documents[1].positions.Locate("b"), (SourcePos{3, 4}));
  for (std::size_t i = 2; i < load.documents.size(); ++i) EXPECT_TRUE(load.documents[i].value.is_null());
}

TEST(YamlJsonTest, ScalarsAreLocatedAtTheirValueCollectionsAtTheirKey) {
  const std::string yaml =
      "apiVersion: dglsim/v1\n"        // 1
      "jobs:\n"                        // 2
      "  - at: 0s\n"                   // 3
      "    manifest: a.yaml\n"         // 4
      "  - at: 5 minutes\n"            // 5
      "    inline:\n"                  // 6
      "      spec: {replicas: 2}\n";   // 7
  YamlLoad load = LoadYamlString(yaml, "scenario.yaml");
  ASSERT_TRUE(load.ok());
  const SourceMap& p = load.documents[0].positions;
  EXPECT_EQ(p.Locate("apiVersion"), (SourcePos{1, 13}));
  EXPECT_EQ(p.Locate("jobs"), (SourcePos{2, 1}));
  EXPECT_EQ(p.Locate("jobs[0]"), (SourcePos{3, 5}));
  EXPECT_EQ(p.Locate("jobs[1].at"), (SourcePos{5, 9}));
  EXPECT_EQ(p.Locate("jobs[1].inline"), (SourcePos{6, 5}));
  EXPECT_EQ(p.Locate("jobs[1].inline.spec.replicas"), (SourcePos{7, 24}));
  EXPECT_EQ(FormatProblem("scenario.yaml", p, "jobs[1].at", "invalid duration \"5 minutes\""),
            "scenario.yaml:5:9: jobs[1].at: invalid duration \"5 minutes\"");
}

TEST(YamlJsonTest, AnAbsentFieldIsLocatedAtItsNearestAncestor) {
  YamlLoad load = LoadYamlString("kind: Pod\nmetadata:\n  labels: {}\n", "p.yaml");
  ASSERT_TRUE(load.ok());
  const SourceMap& p = load.documents[0].positions;
  EXPECT_FALSE(p.Contains("metadata.name"));
  EXPECT_EQ(p.Locate("metadata.name"), (SourcePos{2, 1}));
  EXPECT_EQ(p.Locate("spec.containers[3].image"), (SourcePos{1, 1}));
  EXPECT_EQ(FormatLocation("p.yaml", p, "metadata.name"), "p.yaml:2:1");
}

TEST(YamlJsonTest, AKeyWithNoValueIsLocatedAtTheKey) {
  YamlLoad load = LoadYamlString("metadata:\n  name:\n", "p.yaml");
  ASSERT_TRUE(load.ok());
  EXPECT_TRUE(load.documents[0].value["metadata"]["name"].is_null());
  EXPECT_EQ(load.documents[0].positions.Locate("metadata.name"), (SourcePos{2, 3}));
}

TEST(YamlJsonTest, KeysThatAreNotIdentifiersAreBracketed) {
  YamlLoad load = LoadYamlString("limits:\n  nvidia.com/gpu: 8\n", "p.yaml");
  ASSERT_TRUE(load.ok());
  const SourceMap& p = load.documents[0].positions;
  EXPECT_TRUE(p.Contains("limits[nvidia.com/gpu]"));
  EXPECT_EQ(p.Locate("limits[nvidia.com/gpu]"), (SourcePos{2, 19}));
}

TEST(YamlJsonTest, FieldPathsRoundTrip) {
  for (const char* path : {"", "a", "a.b", "a[0]", "a[0].b[12].c", "metadata.labels[app.kubernetes.io/name]"}) {
    EXPECT_EQ(FormatFieldPath(ParseFieldPath(path)), path);
  }
  EXPECT_EQ(FormatFieldPath(ParseFieldPath("spec.dglReplicaSpecs[Worker].replicas")),
            "spec.dglReplicaSpecs.Worker.replicas");
  EXPECT_EQ(FormatFieldPath(ParseFieldPath("a[unclosed")), "a.unclosed");  // malformed, but no crash
}

TEST(YamlJsonTest, JsonPointersBecomeFieldPaths) {
  EXPECT_EQ(FieldPathFromPointer(""), "");
  EXPECT_EQ(FieldPathFromPointer("/spec/containers/0/image"), "spec.containers[0].image");
  EXPECT_EQ(FieldPathFromPointer("/limits/nvidia.com~1gpu"), "limits[nvidia.com/gpu]");
  EXPECT_EQ(FieldPathFromPointer("/a~0b"), "[a~b]");
}

TEST(YamlJsonTest, BadYamlIsAnErrorWithFileLineAndColumn) {
  YamlLoad load = LoadYamlString("a: 1\nb: [1, 2\nc: 3\n", "bad.yaml");
  ASSERT_FALSE(load.ok());
  EXPECT_TRUE(load.documents.empty());
  EXPECT_EQ(load.error->file, "bad.yaml");
  EXPECT_TRUE(load.error->pos.known());
  EXPECT_FALSE(load.error->message.empty());
  EXPECT_EQ(load.error->ToString().rfind("bad.yaml:", 0), 0u) << load.error->ToString();
}

TEST(YamlJsonTest, BadIndentationIsAnError) {
  YamlLoad load = LoadYamlString("a:\n  b: 1\n c: 2\n", "bad.yaml");
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error->pos.line, 3);
}

TEST(YamlJsonTest, DuplicateKeysAreAnError) {
  YamlLoad load = LoadYamlString("a: 1\nb: 2\na: 3\n", "dup.yaml");
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error->ToString(), "dup.yaml:3:1: mapping key \"a\" already defined");
}

TEST(YamlJsonTest, ComplexKeysAreAnError) {
  YamlLoad load = LoadYamlString("? [a, b]\n: 1\n", "k.yaml");
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error->message.find("mapping key must be a scalar"), std::string::npos);
}

TEST(YamlJsonTest, SelfReferentialAliasIsAnErrorNotACrash) {
  YamlLoad load = LoadYamlString("a: &x [*x]\n", "cycle.yaml");
  // yaml-cpp either rejects the alias or builds a cycle; both must end as a value, not a crash.
  if (!load.ok()) {
    EXPECT_FALSE(load.error->message.empty());
  }
}

TEST(YamlJsonTest, AliasBombIsAnErrorNotExhaustion) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) yaml += (k ? ", *a" : "*a") + std::to_string(i - 1);
    yaml += "]\n";
  }
  YamlLoad load = LoadYamlString(yaml, "bomb.yaml", YamlLimits{.max_values = 20'000});
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error->message.find("too large"), std::string::npos) << load.error->message;
}

TEST(YamlJsonTest, ManyShortValuesAreRefusedAsTheyAreReadBeforeATreeIsBuilt) {
  // 50 MB of "- 1" lines once took 6 GB in yaml-cpp's nodes before the count was checked. The
  // values are now counted as the parser streams them, so the error is the streaming count's (it
  // says nothing of aliases) at the first value over the limit.
  std::string yaml = "items:\n";
  for (int i = 0; i < 200; ++i) yaml += "- 1\n";
  YamlLoad load = LoadYamlString(yaml, "many.yaml", YamlLimits{.max_values = 100});
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error->message, "file too large: more than 100 values");
  // The mapping, "items" and the sequence are three values (lines 1-2); the item of line 99, the
  // 98th, is the 101st value.
  EXPECT_EQ(load.error->pos.line, 99);
}

TEST(YamlJsonTest, FilesThatAreNotRegularOrTooLargeAreRefusedUnread) {
  YamlLoad zero = LoadYamlFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error->ToString(),
            "/dev/zero: is a character device (such as /dev/zero, /dev/urandom or a terminal), not a regular file");
  const std::string path = std::filesystem::temp_directory_path() / ("yaml_json_big_" + std::to_string(::getpid()));
  std::ofstream(path) << std::string(4096, '#');
  YamlLoad big = LoadYamlFile(path, YamlLimits{.max_bytes = 1024});
  std::filesystem::remove(path);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error->message, "is 4 KiB; files over 1 KiB are refused");
}

TEST(YamlJsonTest, DeepNestingIsAnErrorNotAStackOverflow) {
  // Deeper than yaml-cpp's own parser limit, then deeper than ours only.
  EXPECT_FALSE(LoadYamlString(std::string(5000, '[') + std::string(5000, ']'), "deep.yaml").ok());
  YamlLoad load = LoadYamlString(std::string(50, '[') + std::string(50, ']'), "deep.yaml", YamlLimits{.max_depth = 20});
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error->message.find("nested deeper than 20"), std::string::npos) << load.error->message;
}

TEST(YamlJsonTest, GarbageNeverThrows) {
  for (const std::string& text : {std::string("\x00\x01\x02", 3), std::string("{{{{"), std::string("- - - :"),
                                  std::string("\t- a"), std::string("a: b: c"), std::string("'unterminated"),
                                  std::string("%YAML 9.9\n---\na"), std::string("&a *b"), std::string("\xff\xfe")}) {
    YamlLoad load = LoadYamlString(text, "g.yaml");
    if (!load.ok()) {
      EXPECT_EQ(load.error->file, "g.yaml");
    }
  }
}

TEST(YamlJsonTest, ErrorMessagesStayPrintable) {
  YamlLoad load = LoadYamlString("a: \"\\\xa8\"\n", "bin.yaml");
  ASSERT_FALSE(load.ok());
  for (char c : load.error->ToString()) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << load.error->ToString();
}

TEST(YamlJsonTest, MissingFileIsAnErrorWithoutPosition) {
  YamlLoad load = LoadYamlFile("/nonexistent/dir/file.yaml");
  ASSERT_FALSE(load.ok());
  EXPECT_FALSE(load.error->pos.known());
  EXPECT_EQ(load.error->ToString().rfind("/nonexistent/dir/file.yaml: cannot open", 0), 0u);
}

TEST(YamlJsonTest, DirectoryIsAnError) {
  YamlLoad load = LoadYamlFile("/tmp");
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error->message.find("directory"), std::string::npos);
}

TEST(YamlJsonTest, LoadsTheOriginalOperatorExamples) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  YamlLoad load = LoadYamlFile(::testing_shared::SharedDir() + "/reference/dgl-operator-examples/GraphSAGE_dist.yaml");
  ASSERT_TRUE(load.ok()) << load.error->ToString();
  ASSERT_EQ(load.documents.size(), 1u);
  const json& job = load.documents[0].value;
  EXPECT_EQ(job["kind"], "DGLJob");
  EXPECT_EQ(job["spec"]["dglReplicaSpecs"]["Worker"]["replicas"], 2);
  // Quoted in the manifest, so strings, as Kubernetes reads them.
  EXPECT_EQ(job["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["args"][5], "2");
  EXPECT_EQ(job["spec"]["dglReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"],
            "10");
}

}  // namespace
}  // namespace harness
