// Tests of label and field selectors: every operator, the Kubernetes semantics of negative
// operators on missing labels, supported fields per resource, and malformed input.
#include "fakeapi/client/selector.h"

#include <gtest/gtest.h>

#include <random>

namespace kube {
namespace {

using json = kube::Json;

LabelSelector MustParse(std::string_view text) {
  Result<LabelSelector> r = LabelSelector::Parse(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.value();
}

bool LabelsMatch(std::string_view selector, const json& labels) { return MustParse(selector).Matches(labels); }

const json kWorker = {{"app", "dgl"}, {"training.kubeflow.org/job-name", "j1"}, {"role", "worker"}};

TEST(LabelSelectorTest, EmptySelectorMatchesEverything) {
  LabelSelector s = MustParse("   ");
  EXPECT_TRUE(s.Empty());
  EXPECT_TRUE(s.Matches(kWorker));
  EXPECT_TRUE(s.Matches(json()));
}

TEST(LabelSelectorTest, EqualsAndDoubleEqualsMatchTheValue) {
  EXPECT_TRUE(LabelsMatch("role=worker", kWorker));
  EXPECT_TRUE(LabelsMatch("role==worker", kWorker));
  EXPECT_FALSE(LabelsMatch("role=launcher", kWorker));
  EXPECT_FALSE(LabelsMatch("missing=worker", kWorker));
}

TEST(LabelSelectorTest, NotEqualsMatchesOtherValuesAndMissingLabels) {
  EXPECT_TRUE(LabelsMatch("role!=launcher", kWorker));
  EXPECT_FALSE(LabelsMatch("role!=worker", kWorker));
  EXPECT_TRUE(LabelsMatch("missing!=x", kWorker));
  EXPECT_TRUE(LabelsMatch("role!=launcher", json()));
}

TEST(LabelSelectorTest, InMatchesAnyListedValue) {
  EXPECT_TRUE(LabelsMatch("role in (launcher, worker)", kWorker));
  EXPECT_FALSE(LabelsMatch("role in (launcher,partitioner)", kWorker));
  EXPECT_FALSE(LabelsMatch("missing in (worker)", kWorker));
}

TEST(LabelSelectorTest, NotInRejectsListedValuesAndMatchesMissingLabels) {
  EXPECT_FALSE(LabelsMatch("role notin (launcher,worker)", kWorker));
  EXPECT_TRUE(LabelsMatch("role notin (launcher)", kWorker));
  EXPECT_TRUE(LabelsMatch("missing notin (x)", kWorker));
}

TEST(LabelSelectorTest, ExistsAndDoesNotExist) {
  EXPECT_TRUE(LabelsMatch("role", kWorker));
  EXPECT_FALSE(LabelsMatch("missing", kWorker));
  EXPECT_TRUE(LabelsMatch("!missing", kWorker));
  EXPECT_FALSE(LabelsMatch("!role", kWorker));
  EXPECT_TRUE(LabelsMatch("! missing", kWorker));
}

TEST(LabelSelectorTest, AllRequirementsMustHold) {
  EXPECT_TRUE(LabelsMatch("app=dgl,role in (worker),!gone,training.kubeflow.org/job-name=j1", kWorker));
  EXPECT_FALSE(LabelsMatch("app=dgl,training.kubeflow.org/job-name=j2", kWorker));
}

TEST(LabelSelectorTest, PrefixedKeysAndWhitespaceAreAccepted) {
  LabelSelector s = MustParse("  training.kubeflow.org/job-name  =  j1 ,\trole   notin(  a ,b )  ");
  ASSERT_EQ(s.requirements().size(), 2u);
  EXPECT_TRUE(s.Matches(kWorker));
  EXPECT_EQ(s.ExactValue("training.kubeflow.org/job-name"), "j1");
}

TEST(LabelSelectorTest, EmptyValueAfterEqualsMeansTheEmptyLabel) {
  EXPECT_TRUE(LabelsMatch("a=", json{{"a", ""}}));
  EXPECT_FALSE(LabelsMatch("a=", json{{"a", "x"}}));
  EXPECT_FALSE(LabelsMatch("a=", json::object()));
}

TEST(LabelSelectorTest, ExactValueComesFromEqualsOrSingleIn) {
  EXPECT_EQ(MustParse("a=1,b in (2),c in (3,4),d!=5").ExactValue("a"), "1");
  EXPECT_EQ(MustParse("a=1,b in (2),c in (3,4),d!=5").ExactValue("b"), "2");
  EXPECT_EQ(MustParse("a=1,b in (2),c in (3,4),d!=5").ExactValue("c"), std::nullopt);
  EXPECT_EQ(MustParse("a=1,b in (2),c in (3,4),d!=5").ExactValue("d"), std::nullopt);
  EXPECT_EQ(MustParse("a=1").ExactValue("z"), std::nullopt);
}

TEST(LabelSelectorTest, ToStringIsCanonicalAndReparses) {
  LabelSelector s = MustParse("z  notin (b,a),y,!x,w in (2,1),v!=3,u==4");
  EXPECT_EQ(s.ToString(), "u=4,v!=3,w in (1,2),!x,y,z notin (a,b)");
  EXPECT_EQ(MustParse(s.ToString()).ToString(), s.ToString());
}

// Found by tests/fuzz/fuzz_selectors: "a in (,)" and matchExpressions In [""] select the empty value,
// which ToString printed as "a in ()", and Parse refused that. apimachinery reads "()" as the empty
// value alone, so the printed form parses back to the same selector.
TEST(LabelSelectorTest, EmptyParenthesesAreTheEmptyValueSoToStringReparses) {
  LabelSelector empty = MustParse("a in ()");
  ASSERT_EQ(empty.requirements().size(), 1u);
  EXPECT_EQ(empty.requirements()[0].values, std::set<std::string>{""});
  EXPECT_TRUE(empty.Matches(json{{"a", ""}}));
  EXPECT_FALSE(empty.Matches(json{{"a", "x"}}));
  EXPECT_FALSE(empty.Matches(json::object()));
  EXPECT_TRUE(MustParse("a notin ()").Matches(json{{"a", "x"}}));
  EXPECT_FALSE(MustParse("a notin ()").Matches(json{{"a", ""}}));

  for (const char* text : {"a in (,)", "a in ()", "a notin (,)", "a in (,b)", "a in (b,)"}) {
    LabelSelector s = MustParse(text);
    Result<LabelSelector> again = LabelSelector::Parse(s.ToString());
    ASSERT_TRUE(again.ok()) << text << " -> " << s.ToString() << ": " << again.status().ToString();
    EXPECT_EQ(again->requirements()[0].values, s.requirements()[0].values) << text;
  }
  Result<LabelSelector> from_json =
      LabelSelector::FromJson(json::parse(R"({"matchExpressions":[{"key":"k","operator":"In","values":[""]}]})"));
  ASSERT_TRUE(from_json.ok());
  Result<LabelSelector> reparsed = LabelSelector::Parse(from_json->ToString());
  ASSERT_TRUE(reparsed.ok()) << from_json->ToString();
  EXPECT_EQ(reparsed->requirements()[0].values, std::set<std::string>{""});
}

TEST(LabelSelectorTest, SyntaxErrorsAreBadRequestsInTheParsersWords) {
  for (const char* bad : {"a=b,", ",", "a in (b", "a in b", "a notin", "!a=b", "a=b c", "a==b==c",
                          "(a)", "a=(b)", "a>1", "a<1", "a in (b c)", "!", "a=b,,c=d", "=b", "!=b"}) {
    Result<LabelSelector> r = LabelSelector::Parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), 400) << bad;
    EXPECT_EQ(r.status().reason(), "BadRequest") << bad;
  }
  // As k8s.io/apimachinery's parser says it: the literal found (empty at the end) and what it wanted.
  EXPECT_EQ(LabelSelector::Parse("app=dgl,role in (a").status().message(),
            "unable to parse requirement: found '', expected: ',' or ')'");
  EXPECT_EQ(LabelSelector::Parse("tier in a").status().message(), "unable to parse requirement: found 'a' expected: '('");
}

TEST(LabelSelectorTest, InvalidKeysAndValuesAreRejected) {
  const std::string too_long_key = std::string(64, 'k') + "=v";
  for (const std::string& bad : {std::string("-a=b"), std::string("a-=b"), std::string("Foo.com/a=b"),
                                 std::string("a/b/c=d"), std::string("/a=b"), std::string("a/=b"), std::string("a=-b"),
                                 std::string("a=b-"), std::string("a=b/c"), std::string("a in (ok,-bad)"),
                                 too_long_key}) {
    Result<LabelSelector> r = LabelSelector::Parse(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_TRUE(LabelSelector::Parse("A_b.c-D=x_Y.z-1").ok());
  EXPECT_TRUE(LabelSelector::Parse(std::string(63, 'k') + "=" + std::string(63, 'v')).ok());
}

TEST(LabelSelectorTest, NeverCrashesOnRandomInput) {
  std::mt19937 rng(7);
  const std::string alphabet = "ab=!(), \tin notin/.-_\\\"";
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int n = static_cast<int>(rng() % 16);
    for (int k = 0; k < n; ++k) text += alphabet[rng() % alphabet.size()];
    Result<LabelSelector> r = LabelSelector::Parse(text);
    if (r.ok()) {
      r->Matches(kWorker);
      // Whatever parses prints as something that parses to the same thing.
      Result<LabelSelector> again = LabelSelector::Parse(r->ToString());
      ASSERT_TRUE(again.ok()) << text << " -> " << r->ToString();
      ASSERT_EQ(again->ToString(), r->ToString()) << text;
    } else {
      ASSERT_EQ(r.status().code(), 400) << text;
    }
  }
}

TEST(LabelSelectorTest, MatchesToleratesNonObjectLabels) {
  EXPECT_TRUE(LabelsMatch("!a", json::array({1})));
  EXPECT_FALSE(LabelsMatch("a", json("a")));
}

TEST(LabelSelectorFromJsonTest, MatchLabelsAndEveryExpressionOperator) {
  json sel = json::parse(R"({
    "matchLabels": {"app": "dgl"},
    "matchExpressions": [
      {"key": "role", "operator": "In", "values": ["worker", "launcher"]},
      {"key": "tier", "operator": "NotIn", "values": ["x"]},
      {"key": "training.kubeflow.org/job-name", "operator": "Exists"},
      {"key": "gone", "operator": "DoesNotExist"}
    ]})");
  Result<LabelSelector> r = LabelSelector::FromJson(sel);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->requirements().size(), 5u);
  EXPECT_TRUE(r->Matches(kWorker));
  json launcher = kWorker;
  launcher["role"] = "launcher";
  EXPECT_TRUE(r->Matches(launcher));
  json partitioner = kWorker;
  partitioner["role"] = "partitioner";
  EXPECT_FALSE(r->Matches(partitioner));
  json tiered = kWorker;
  tiered["tier"] = "x";
  EXPECT_FALSE(r->Matches(tiered));
  json gone = kWorker;
  gone["gone"] = "";
  EXPECT_FALSE(r->Matches(gone));
  json no_job = kWorker;
  no_job.erase("training.kubeflow.org/job-name");
  EXPECT_FALSE(r->Matches(no_job));
  EXPECT_EQ(r->ExactValue("app"), "dgl");
}

TEST(LabelSelectorFromJsonTest, EmptyAndNullSelectEverything) {
  EXPECT_TRUE(LabelSelector::FromJson(json::object())->Empty());
  EXPECT_TRUE(LabelSelector::FromJson(json())->Empty());
}

TEST(LabelSelectorFromJsonTest, MalformedSelectorsAreBadRequests) {
  for (const char* bad : {
           R"("app=dgl")",
           R"({"matchLabels": ["a"]})",
           R"({"matchLabels": {"a": 1}})",
           R"({"matchLabels": {"-a": "b"}})",
           R"({"matchExpressions": {}})",
           R"({"matchExpressions": [1]})",
           R"({"matchExpressions": [{"operator": "Exists"}]})",
           R"({"matchExpressions": [{"key": "a"}]})",
           R"({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]})",
           R"({"matchExpressions": [{"key": "a", "operator": "In"}]})",
           R"({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]})",
           R"({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["b"]}]})",
           R"({"matchExpressions": [{"key": "a", "operator": "In", "values": [1]}]})",
       }) {
    Result<LabelSelector> r = LabelSelector::FromJson(json::parse(bad));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), 400) << bad;
  }
}

const json kPod = json::parse(R"({
  "metadata": {"name": "j1-worker-0", "namespace": "team-a"},
  "spec": {"nodeName": "node-3", "restartPolicy": "Never", "schedulerName": "volcano",
           "serviceAccountName": "j1-sa"},
  "status": {"phase": "Running", "podIP": "10.0.0.7", "nominatedNodeName": "node-4"}})");

bool FieldsMatch(std::string_view selector, std::string_view plural, const json& object) {
  Result<FieldSelector> r = FieldSelector::Parse(selector, plural);
  EXPECT_TRUE(r.ok()) << selector << ": " << r.status().ToString();
  return r.ok() && r->Matches(object);
}

TEST(FieldSelectorTest, EqualsDoubleEqualsAndNotEquals) {
  EXPECT_TRUE(FieldsMatch("spec.nodeName=node-3", "pods", kPod));
  EXPECT_TRUE(FieldsMatch("spec.nodeName==node-3", "pods", kPod));
  EXPECT_FALSE(FieldsMatch("spec.nodeName=node-1", "pods", kPod));
  EXPECT_TRUE(FieldsMatch("spec.nodeName!=node-1", "pods", kPod));
  EXPECT_FALSE(FieldsMatch("spec.nodeName!=node-3", "pods", kPod));
}

TEST(FieldSelectorTest, MissingFieldsCompareAsEmpty) {
  json unscheduled = kPod;
  unscheduled["spec"].erase("nodeName");
  // The scheduler's "unassigned pods" query.
  EXPECT_TRUE(FieldsMatch("spec.nodeName=", "pods", unscheduled));
  EXPECT_FALSE(FieldsMatch("spec.nodeName!=", "pods", unscheduled));
  EXPECT_TRUE(FieldsMatch("spec.nodeName!=", "pods", kPod));
  EXPECT_TRUE(FieldsMatch("status.phase!=Succeeded,status.phase!=Failed", "pods", kPod));
}

TEST(FieldSelectorTest, EveryPodFieldIsSelectable) {
  EXPECT_TRUE(FieldsMatch(
      "metadata.name=j1-worker-0,metadata.namespace=team-a,spec.nodeName=node-3,spec.restartPolicy=Never,"
      "spec.schedulerName=volcano,spec.serviceAccountName=j1-sa,status.phase=Running,status.podIP=10.0.0.7,"
      "status.nominatedNodeName=node-4",
      "pods", kPod));
}

TEST(FieldSelectorTest, EventFieldsIncludeSourceComponent) {
  json ev = json::parse(R"({
    "metadata": {"name": "e1", "namespace": "team-a"},
    "involvedObject": {"kind": "DGLJob", "namespace": "team-a", "name": "j1", "uid": "u1",
                       "apiVersion": "kubeflow.org/v1alpha1", "resourceVersion": "12", "fieldPath": "spec"},
    "reason": "JobSucceeded", "reportingComponent": "dgl-operator", "source": {"component": "dgl-operator"},
    "type": "Normal"})");
  EXPECT_TRUE(FieldsMatch(
      "involvedObject.kind=DGLJob,involvedObject.namespace=team-a,involvedObject.name=j1,involvedObject.uid=u1,"
      "involvedObject.apiVersion=kubeflow.org/v1alpha1,involvedObject.resourceVersion=12,"
      "involvedObject.fieldPath=spec,reason=JobSucceeded,reportingComponent=dgl-operator,source=dgl-operator,"
      "type=Normal",
      "events", ev));
  EXPECT_FALSE(FieldsMatch("type!=Normal", "events", ev));
  EXPECT_EQ(FieldSelector::FieldValue(ev, "source"), "dgl-operator");
}

TEST(FieldSelectorTest, NodeUnschedulableDefaultsToFalse) {
  json node = {{"metadata", {{"name", "n1"}}}, {"spec", json::object()}};
  EXPECT_TRUE(FieldsMatch("spec.unschedulable=false", "nodes", node));
  node["spec"]["unschedulable"] = true;
  EXPECT_TRUE(FieldsMatch("spec.unschedulable=true", "nodes", node));
  EXPECT_TRUE(FieldsMatch("spec.unschedulable!=false", "nodes", node));
  EXPECT_TRUE(FieldsMatch("metadata.namespace=", "nodes", node));
}

TEST(FieldSelectorTest, NamespacePhase) {
  json ns = {{"metadata", {{"name", "team-a"}}}, {"status", {{"phase", "Terminating"}}}};
  EXPECT_TRUE(FieldsMatch("status.phase=Terminating", "namespaces", ns));
  EXPECT_FALSE(FieldsMatch("status.phase=Active", "namespaces", ns));
}

TEST(FieldSelectorTest, UnsupportedFieldsAreBadRequests) {
  const std::pair<const char*, const char*> cases[] = {
      {"spec.foo=x", "pods"},
      {"status.phase=Running", "configmaps"},
      {"spec.nodeName=n", "dgljobs"},
      {"metadata.labels=x", "pods"},
      {"spec.unschedulable=true", "pods"},
      {"reason=x", "pods"},
  };
  for (auto [selector, plural] : cases) {
    Result<FieldSelector> r = FieldSelector::Parse(selector, plural);
    ASSERT_FALSE(r.ok()) << selector << " on " << plural;
    EXPECT_EQ(r.status().code(), 400);
    const std::string field = std::string(selector).substr(0, std::string(selector).find('='));
    if (std::string_view(plural) != "configmaps")
      EXPECT_EQ(r.status().message(), "field label not supported: " + field);
    else
      EXPECT_EQ(r.status().message(), "\"" + field + "\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  }
  EXPECT_TRUE(FieldSelector::Supported("dgljobs", "metadata.name"));
  EXPECT_TRUE(FieldSelector::Supported("dgljobs", "metadata.namespace"));
  EXPECT_FALSE(FieldSelector::Supported("dgljobs", "status.phase"));
  EXPECT_TRUE(FieldSelector::Supported("pods", "status.phase"));
}

TEST(FieldSelectorTest, MalformedSelectorsAreBadRequestsNamingTheText) {
  for (const char* bad : {"metadata.name", "=x", "metadata.name=a=b", "metadata.name=a\\q", "metadata.name=a\\",
                          "metadata.name<x"}) {
    Result<FieldSelector> r = FieldSelector::Parse(bad, "pods");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), 400) << bad;
  }
  Result<FieldSelector> r = FieldSelector::Parse("status.phase", "pods");
  EXPECT_NE(r.status().message().find("status.phase"), std::string::npos) << r.status().message();
}

TEST(FieldSelectorTest, EscapedCommasAndEqualsArePartOfTheValue) {
  json obj = {{"metadata", {{"name", "a,b=c"}}}};
  EXPECT_TRUE(FieldsMatch("metadata.name=a\\,b\\=c", "configmaps", obj));
}

TEST(FieldSelectorTest, EmptySelectorAndEmptyTermsMatchEverything) {
  Result<FieldSelector> r = FieldSelector::Parse("", "pods");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Empty());
  EXPECT_TRUE(r->Matches(kPod));
  EXPECT_TRUE(FieldsMatch("spec.nodeName=node-3,", "pods", kPod));
}

TEST(FieldSelectorTest, ExactValueOnlyForEquals) {
  Result<FieldSelector> r = FieldSelector::Parse("spec.nodeName=n1,status.phase!=Failed", "pods");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ExactValue("spec.nodeName"), "n1");
  EXPECT_EQ(r->ExactValue("status.phase"), std::nullopt);
}

TEST(FieldSelectorTest, FieldValueStringifiesScalarsAndToleratesOddObjects) {
  EXPECT_EQ(FieldSelector::FieldValue(json{{"spec", {{"nodeName", 5}}}}, "spec.nodeName"), "5");
  EXPECT_EQ(FieldSelector::FieldValue(json{{"spec", "x"}}, "spec.nodeName"), "");
  EXPECT_EQ(FieldSelector::FieldValue(json::array(), "metadata.name"), "");
  EXPECT_EQ(FieldSelector::FieldValue(json(), "source"), "");
}

TEST(FieldSelectorTest, NeverCrashesOnRandomInput) {
  std::mt19937 rng(11);
  const std::string alphabet = "metadata.name=!,\\ spec.nodeNamex";
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int n = static_cast<int>(rng() % 24);
    for (int k = 0; k < n; ++k) text += alphabet[rng() % alphabet.size()];
    Result<FieldSelector> r = FieldSelector::Parse(text, "pods");
    if (r.ok()) {
      r->Matches(kPod);
    } else {
      ASSERT_EQ(r.status().code(), 400) << text;
    }
  }
}

}  // namespace
}  // namespace kube
