#include "sim/harness/config/manifest_check.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>

#include <string>

namespace harness {
namespace {

std::string Examples() { return ::testing_shared::ExamplesDir(); }

std::string AllLines(const ManifestReport& r) {
  std::string out;
  for (const auto& l : r.problems) out += "problem: " + l + "\n";
  for (const auto& l : r.warnings) out += "warning: " + l + "\n";
  for (const auto& l : r.notes) out += "note: " + l + "\n";
  return out;
}

// A valid current-API DGLJob; tests break one line of it.
const char* kJob = R"(apiVersion: kubeflow.org/v1alpha1
kind: DGLJob
metadata:
  name: sage
  namespace: default
spec:
  partitionMode: DGL-API
  dglReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: launcher
            image: dgloperator/examples:graphsage-dist
            command: [dglrun]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: worker
            image: dgloperator/examples:graphsage-dist
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ManifestCheckTest, EveryOriginalOperatorExampleIsValid) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  for (const char* name : {"DGL-KE.yaml", "GraphSAGE.yaml", "GraphSAGE_dist.yaml", "graph_classification.yaml",
                           "link_predict.yaml", "node_classification.yaml"}) {
    ManifestReport r = CheckManifestFile(Examples() + name);
    EXPECT_TRUE(r.ok()) << name << "\n" << AllLines(r);
    EXPECT_EQ(r.documents, 1) << name;
  }
}

TEST(ManifestCheckTest, LegacyApiVersionIsConvertedWithWarningsAtTheApiVersionLine) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  ManifestReport r = CheckManifestFile(Examples() + "GraphSAGE_dist.yaml");
  ASSERT_TRUE(r.ok()) << AllLines(r);
  ASSERT_FALSE(r.warnings.empty());
  const std::string prefix = Examples() + "GraphSAGE_dist.yaml:1:13: warning: ";
  for (const std::string& w : r.warnings) EXPECT_EQ(w.rfind(prefix, 0), 0u) << w;
  EXPECT_NE(AllLines(r).find("qihoo.net/v1alpha1"), std::string::npos);
}

TEST(ManifestCheckTest, CurrentApiVersionHasNoWarnings) {
  ManifestReport r = CheckManifestText(kJob, "job.yaml");
  EXPECT_TRUE(r.ok()) << AllLines(r);
  EXPECT_TRUE(r.warnings.empty()) << AllLines(r);
  EXPECT_EQ(r.documents, 1);
}

TEST(ManifestCheckTest, InvalidDGLJobFieldIsReportedAtItsLineWithItsPath) {
  ManifestReport r = CheckManifestText(Replace(kJob, "      replicas: 2", "      replicas: 0"), "job.yaml");
  ASSERT_EQ(r.problems.size(), 1u) << AllLines(r);
  EXPECT_EQ(r.problems[0].rfind("job.yaml:18:17: spec.dglReplicaSpecs.Worker.replicas: ", 0), 0u) << r.problems[0];
}

TEST(ManifestCheckTest, UnsupportedPartitionModeIsReported) {
  ManifestReport r = CheckManifestText(Replace(kJob, "DGL-API", "Magic"), "job.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.problems[0].rfind("job.yaml:7:18: spec.partitionMode: ", 0), 0u) << AllLines(r);
}

TEST(ManifestCheckTest, MissingRequiredReplicaIsLocatedAtItsParent) {
  std::string text = kJob;
  text = text.substr(0, text.find("    Worker:"));
  ManifestReport r = CheckManifestText(text, "job.yaml");
  ASSERT_FALSE(r.ok()) << AllLines(r);
  EXPECT_NE(AllLines(r).find("job.yaml:8:3: spec.dglReplicaSpecs.Worker: "), std::string::npos) << AllLines(r);
}

TEST(ManifestCheckTest, MissingNameIsReported) {
  ManifestReport r = CheckManifestText("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: x\n", "cm.yaml");
  ASSERT_EQ(r.problems.size(), 1u) << AllLines(r);
  EXPECT_EQ(r.problems[0], "cm.yaml:3:1: metadata.name: Required value: name or generateName is required");
}

TEST(ManifestCheckTest, GenerateNameIsEnough) {
  ManifestReport r = CheckManifestText("apiVersion: v1\nkind: Pod\nmetadata: {generateName: p-}\n", "p.yaml");
  EXPECT_TRUE(r.ok()) << AllLines(r);
}

TEST(ManifestCheckTest, MissingApiVersionAndKindAreReported) {
  ManifestReport r = CheckManifestText("metadata:\n  name: x\n", "x.yaml");
  EXPECT_EQ(r.problems.size(), 2u) << AllLines(r);
  EXPECT_NE(AllLines(r).find("x.yaml:1:1: apiVersion: Required value"), std::string::npos) << AllLines(r);
  EXPECT_NE(AllLines(r).find("x.yaml:1:1: kind: Required value"), std::string::npos) << AllLines(r);
}

TEST(ManifestCheckTest, UnknownKindIsReportedAtTheKind) {
  ManifestReport r =
      CheckManifestText("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n", "d.yaml");
  ASSERT_EQ(r.problems.size(), 1u) << AllLines(r);
  EXPECT_EQ(r.problems[0].rfind("d.yaml:2:7: kind: Unsupported value: \"Deployment\"", 0), 0u) << r.problems[0];
}

TEST(ManifestCheckTest, KnownKindInTheWrongVersionNamesTheRightOne) {
  ManifestReport r = CheckManifestText("apiVersion: v2\nkind: Pod\nmetadata:\n  name: p\n", "p.yaml");
  ASSERT_EQ(r.problems.size(), 1u) << AllLines(r);
  EXPECT_EQ(r.problems[0], "p.yaml:1:13: apiVersion: Unsupported value: \"v2\": kind Pod is served as apiVersion \"v1\"");
}

TEST(ManifestCheckTest, EveryDocumentIsCheckedAndEmptyOnesSkipped) {
  const std::string text = std::string("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: dgl-operator}\n---\n") +
                           kJob + "---\n";
  ManifestReport r = CheckManifestText(text, "all.yaml");
  EXPECT_TRUE(r.ok()) << AllLines(r);
  EXPECT_EQ(r.documents, 2);
}

TEST(ManifestCheckTest, ProblemsInALaterDocumentPointIntoIt) {
  const std::string text = std::string("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n") +
                           Replace(kJob, "      replicas: 2", "      replicas: -1");
  ManifestReport r = CheckManifestText(text, "all.yaml");
  ASSERT_EQ(r.problems.size(), 1u) << AllLines(r);
  EXPECT_EQ(r.problems[0].rfind("all.yaml:22:17: spec.dglReplicaSpecs.Worker.replicas: ", 0), 0u) << r.problems[0];
}

TEST(ManifestCheckTest, ListItemsAreCheckedWithTheirIndex) {
  const char* text = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-0}
- apiVersion: v1
  kind: Node
  metadata: {labels: {a: b}}
)";
  ManifestReport r = CheckManifestText(text, "nodes.yaml");
  ASSERT_EQ(r.problems.size(), 1u) << AllLines(r);
  EXPECT_EQ(r.problems[0], "nodes.yaml:9:3: items[1].metadata.name: Required value: name or generateName is required");
}

TEST(ManifestCheckTest, TypedListItemsInheritApiVersionAndKind) {
  ManifestReport r = CheckManifestText("apiVersion: v1\nkind: NodeList\nitems:\n- metadata: {name: n0}\n", "n.yaml");
  EXPECT_TRUE(r.ok()) << AllLines(r);
}

TEST(ManifestCheckTest, ScenarioGetsOnlyAHeaderCheckAndSaysSo) {
  ManifestReport r = CheckManifestText("apiVersion: dglsim/v1\nkind: Scenario\nmetadata:\n  name: s\nseed: 42\n", "s.yaml");
  EXPECT_TRUE(r.ok()) << AllLines(r);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("scenario loader"), std::string::npos);

  ManifestReport unnamed = CheckManifestText("apiVersion: dglsim/v1\nkind: Scenario\nseed: 42\n", "s.yaml");
  EXPECT_FALSE(unnamed.ok());
}

TEST(ManifestCheckTest, ADocumentThatIsNotAMappingIsReported) {
  ManifestReport r = CheckManifestText("- a\n- b\n", "seq.yaml");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].rfind("seq.yaml:1:1: expected a Kubernetes object", 0), 0u) << r.problems[0];
}

TEST(ManifestCheckTest, WrongTypesAreReportedNotThrown) {
  ManifestReport r = CheckManifestText("apiVersion: 1\nkind: [Pod]\nmetadata: {name: 7}\n", "t.yaml");
  EXPECT_EQ(r.problems.size(), 3u) << AllLines(r);
  ManifestReport job = CheckManifestText("apiVersion: kubeflow.org/v1alpha1\nkind: DGLJob\nmetadata: {name: j}\n"
                                         "spec: [1, 2]\n",
                                         "j.yaml");
  EXPECT_FALSE(job.ok());
}

TEST(ManifestCheckTest, EmptyFileHasNoObjects) {
  ManifestReport r = CheckManifestText("# nothing here\n", "empty.yaml");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0], "empty.yaml:1:1: no Kubernetes objects in the file");
}

TEST(ManifestCheckTest, BrokenYamlIsOneProblemWithPosition) {
  ManifestReport r = CheckManifestText("apiVersion: v1\nkind: Pod\nmetadata: {name: [\n", "broken.yaml");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].rfind("broken.yaml:", 0), 0u);
  EXPECT_EQ(r.documents, 0);
}

TEST(ManifestCheckTest, MissingFileIsOneProblem) {
  ManifestReport r = CheckManifestFile("/nonexistent.yaml");
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].rfind("/nonexistent.yaml: cannot open", 0), 0u) << r.problems[0];
}

// Found by tests/fuzz/fuzz_dgljob: AdmitDGLJob read the apiVersion with a call that throws on
// anything but an object holding a string there, and reported the exception as an internal error.
TEST(ManifestCheckTest, AdmissionOfAnyValueReportsProblemsNotInternalErrors) {
  for (const char* text : {"- name: launcher\n", "42\n", "apiVersion: 5\nkind: DGLJob\n", "apiVersion: [a]\n"}) {
    YamlLoad loaded = LoadYamlString(text, "job.yaml");
    ASSERT_TRUE(loaded.ok()) << text;
    DGLJobAdmission admitted = AdmitDGLJob(loaded.documents[0].value, "job.yaml", loaded.documents[0].positions, "");
    ASSERT_FALSE(admitted.problems.empty()) << text;
    for (const std::string& p : admitted.problems) EXPECT_EQ(p.find("internal error"), std::string::npos) << p;
  }
}

}  // namespace
}  // namespace harness
