// Conversion, defaulting and validation of DGLJobs against the contract
// (shared/design/dgljob-api.md) and the original operator's six example manifests, read unmodified.
#include "fakeapi/client/json.h"
#include "operator/api/dgljob_api.h"
#include "tests/operator/controller/reconcile_fixture.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;
using kube::StatusCause;

using testing::YamlToJson;

json LoadExample(const std::string& file) {
  return YamlToJson(YAML::LoadFile(::testing_shared::ExamplesDir() + file));
}

// What the loader does: convert, then the API server defaults.
json LoadConvertedDefaulted(const std::string& file) {
  json job = LoadExample(file);
  ConvertLegacy(job);
  DefaultDGLJob(job);
  return job;
}

std::string Describe(const std::vector<StatusCause>& causes) {
  std::string out;
  for (const auto& c : causes) out += "\n  " + c.type + " " + c.field + ": " + c.message;
  return out.empty() ? "(no causes)" : out;
}

const StatusCause* FindCause(const std::vector<StatusCause>& causes, const std::string& field) {
  for (const auto& c : causes) {
    if (c.field == field) return &c;
  }
  return nullptr;
}

// A small valid job in the current API, already defaulted.
json ValidJob(const std::string& mode = "DGL-API", int workers = 2) {
  json job = {
      {"apiVersion", kApiVersion},
      {"kind", kKind},
      {"metadata", {{"name", "job"}, {"namespace", "ns"}}},
      {"spec",
       {{"partitionMode", mode},
        {"dglReplicaSpecs",
         {{"Launcher",
           {{"replicas", 1},
            {"template",
             {{"spec",
               {{"containers", json::array({{{"name", "main"},
                                              {"image", "dgl:1"},
                                              {"command", {"dglrun"}},
                                              {"args", {"--num-servers", "2"}}}})}}}}}}},
          {"Worker",
           {{"replicas", workers},
            {"template",
             {{"spec",
               {{"containers",
                 json::array({{{"name", "main"},
                               {"image", "dgl:1"},
                               {"resources", {{"limits", {{"nvidia.com/gpu", 4}, {"cpu", "8"}}}}}}})}}}}}}}}}}}};
  DefaultDGLJob(job);
  return job;
}

std::vector<StatusCause> ValidateWith(const std::function<void(json&)>& change, const std::string& mode = "DGL-API") {
  json job = ValidJob(mode);
  change(job);
  return ValidateDGLJob(job);
}

// Expects exactly one cause, at `field`, of `type`; returns its message.
std::string OnlyCause(const std::vector<StatusCause>& causes, const std::string& type, const std::string& field) {
  EXPECT_EQ(causes.size(), 1u) << Describe(causes);
  const StatusCause* c = FindCause(causes, field);
  EXPECT_NE(c, nullptr) << "no cause at " << field << ":" << Describe(causes);
  if (c == nullptr) return "";
  EXPECT_EQ(c->type, type) << Describe(causes);
  return c->message;
}

json& Replica(json& job, const std::string& type) { return job["spec"]["dglReplicaSpecs"][type]; }
json& Container(json& job, const std::string& type) {
  return Replica(job, type)["template"]["spec"]["containers"][0];
}

// ---------------------------------------------------------------------------------------------
// The six original example manifests.

class ExampleManifest : public ::testing::TestWithParam<const char*> {};

TEST_P(ExampleManifest, ConvertsDefaultsAndValidatesWithoutCauses) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json job = LoadExample(GetParam());
  ASSERT_EQ(job["apiVersion"], kLegacyApiVersion);
  std::vector<std::string> warnings = ConvertLegacy(job);
  EXPECT_FALSE(warnings.empty());
  EXPECT_EQ(job["apiVersion"], kApiVersion);
  EXPECT_FALSE(job["spec"].contains("cleanPodPolicy"));
  DefaultDGLJob(job);
  std::vector<StatusCause> causes = ValidateDGLJob(job);
  EXPECT_TRUE(causes.empty()) << Describe(causes);
}

TEST_P(ExampleManifest, IsAlreadyCurrentAfterOneConversion) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json job = LoadExample(GetParam());
  ConvertLegacy(job);
  json once = job;
  EXPECT_TRUE(ConvertLegacy(job).empty());
  EXPECT_EQ(job, once);
}

TEST_P(ExampleManifest, DefaultingTwiceChangesNothing) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json job = LoadConvertedDefaulted(GetParam());
  json once = job;
  DefaultDGLJob(job);
  EXPECT_EQ(job, once);
}

INSTANTIATE_TEST_SUITE_P(OriginalOperator, ExampleManifest,
                         ::testing::Values("DGL-KE.yaml", "GraphSAGE.yaml", "GraphSAGE_dist.yaml",
                                           "graph_classification.yaml", "link_predict.yaml",
                                           "node_classification.yaml"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name = name.substr(0, name.find('.'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(ExampleDefaults, DglKeGetsDglApiModeOneServerAndAPartitionerRunningDglkerun) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json job = LoadConvertedDefaulted("DGL-KE.yaml");
  const json& spec = job["spec"];
  EXPECT_EQ(spec["partitionMode"], "DGL-API");
  EXPECT_EQ(spec["numServers"], 1);
  EXPECT_EQ(spec["slotsPerWorker"], 1);
  EXPECT_EQ(spec["runPolicy"]["cleanPodPolicy"], "Running");
  const json& partitioner = spec["dglReplicaSpecs"]["Partitioner"];
  EXPECT_EQ(partitioner["replicas"], 1);
  const json& container = partitioner["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["image"], "dgloperator/dglke-base:latest");
  EXPECT_EQ(container["resources"]["limits"]["cpu"], "5");
  EXPECT_EQ(container["command"], json({"dglkerun"}));
  EXPECT_EQ(container["args"], spec["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["args"]);
}

TEST(ExampleDefaults, GraphSageSkipGetsNoPartitionerAndNoWorker) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json job = LoadConvertedDefaulted("GraphSAGE.yaml");
  EXPECT_EQ(job["spec"]["partitionMode"], "Skip");
  EXPECT_FALSE(job["spec"]["dglReplicaSpecs"].contains("Partitioner"));
  EXPECT_FALSE(job["spec"]["dglReplicaSpecs"].contains("Worker"));
  EXPECT_EQ(job["spec"]["runPolicy"]["cleanPodPolicy"], "Running");
}

TEST(ExampleDefaults, GraphSageDistReadsNumServersFromLauncherArgs) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json job = LoadConvertedDefaulted("GraphSAGE_dist.yaml");
  EXPECT_EQ(job["spec"]["numServers"], 1);
  EXPECT_EQ(GetNumServers(job), 1);
  EXPECT_EQ(GetReplicas(job, kReplicaWorker), 2);
  EXPECT_EQ(GetReplicas(job, kReplicaPartitioner), 1);
  EXPECT_EQ(FindCommandFlag(job["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0],
                            "--num-partitions"),
            "2");
}

// ---------------------------------------------------------------------------------------------
// ConvertLegacy

TEST(ConvertLegacy, LegacyManifestGetsOneWarningPerConversion) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json dglke = LoadExample("DGL-KE.yaml");  // apiVersion and spec.cleanPodPolicy
  std::vector<std::string> warnings = ConvertLegacy(dglke);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("DGLJob dgl-operator/dgl-complex"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("qihoo.net/v1alpha1"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("spec.runPolicy.cleanPodPolicy"), std::string::npos) << warnings[1];

  json skip = LoadExample("GraphSAGE.yaml");  // apiVersion only
  EXPECT_EQ(ConvertLegacy(skip).size(), 1u);
}

TEST(ConvertLegacy, MovesTopLevelCleanPodPolicyIntoRunPolicy) {
  json job = {{"apiVersion", kLegacyApiVersion}, {"spec", {{"cleanPodPolicy", "All"}}}};
  ConvertLegacy(job);
  EXPECT_EQ(job, json({{"apiVersion", kApiVersion}, {"spec", {{"runPolicy", {{"cleanPodPolicy", "All"}}}}}}));
}

TEST(ConvertLegacy, ExistingRunPolicyCleanPodPolicyWinsWithAWarning) {
  json job = {{"apiVersion", kApiVersion},
              {"spec", {{"cleanPodPolicy", "All"}, {"runPolicy", {{"cleanPodPolicy", "None"}}}}}};
  std::vector<std::string> warnings = ConvertLegacy(job);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("dropped"), std::string::npos) << warnings[0];
  EXPECT_EQ(job["spec"], json({{"runPolicy", {{"cleanPodPolicy", "None"}}}}));
}

TEST(ConvertLegacy, CurrentObjectIsLeftAlone) {
  json job = ValidJob();
  json before = job;
  EXPECT_TRUE(ConvertLegacy(job).empty());
  EXPECT_EQ(job, before);
}

TEST(ConvertLegacy, WrongRunPolicyTypeLeavesBothFieldsForValidation) {
  json job = {{"apiVersion", kLegacyApiVersion}, {"spec", {{"cleanPodPolicy", "All"}, {"runPolicy", "x"}}}};
  ConvertLegacy(job);
  EXPECT_EQ(job["spec"]["cleanPodPolicy"], "All");
  EXPECT_EQ(job["spec"]["runPolicy"], "x");
}

// ---------------------------------------------------------------------------------------------
// DefaultDGLJob

TEST(DefaultDGLJob, PartitionModeDefaultsToDglApi) {
  json job = {{"spec", json::object()}};
  DefaultDGLJob(job);
  EXPECT_EQ(job["spec"]["partitionMode"], "DGL-API");
}

TEST(DefaultDGLJob, RunPolicyDefaultsToRunningBackoffThreeNotSuspended) {
  json job = {{"spec", json::object()}};
  DefaultDGLJob(job);
  EXPECT_EQ(job["spec"]["runPolicy"],
            json({{"cleanPodPolicy", "Running"}, {"backoffLimit", 3}, {"suspend", false}}));
  EXPECT_FALSE(job["spec"]["runPolicy"].contains("ttlSecondsAfterFinished"));
  EXPECT_FALSE(job["spec"]["runPolicy"].contains("activeDeadlineSeconds"));
}

TEST(DefaultDGLJob, SlotsPerWorkerDefaultsToTheWorkerGpuLimit) {
  EXPECT_EQ(ValidJob()["spec"]["slotsPerWorker"], 4);
  json job = ValidJob();
  job["spec"].erase("slotsPerWorker");
  Container(job, "Worker")["resources"]["limits"]["nvidia.com/gpu"] = "8";  // a quantity string
  DefaultDGLJob(job);
  EXPECT_EQ(job["spec"]["slotsPerWorker"], 8);
}

TEST(DefaultDGLJob, SlotsPerWorkerDefaultsToOneWithoutGpus) {
  json job = ValidJob();
  job["spec"].erase("slotsPerWorker");
  Container(job, "Worker")["resources"]["limits"].erase("nvidia.com/gpu");
  DefaultDGLJob(job);
  EXPECT_EQ(job["spec"]["slotsPerWorker"], 1);
}

TEST(DefaultDGLJob, NumServersComesFromLauncherArgs) { EXPECT_EQ(ValidJob()["spec"]["numServers"], 2); }

TEST(DefaultDGLJob, NumServersReadsEqualsFormAndShellStrings) {
  const std::vector<std::pair<json, int>> cases = {
      {{{"command", {"dglrun", "--num-servers=3"}}}, 3},
      {{{"command", {"sh", "-c", "dglrun --graph-name g --num-servers 4 --num-trainers 1"}}}, 4},
      {{{"command", {"/bin/sh", "-c"}}, {"args", {"dglrun --num-servers=5; echo done"}}}, 5},
      {{{"command", {"sh -c 'dglrun --num-servers 6'"}}}, 6},
      {{{"command", {"dglrun"}}, {"args", {"--num-servers", "1", "--num-servers", "7"}}}, 7},  // last wins
      {{{"command", {"dglrun"}}, {"args", {"--num-trainers", "2"}}}, 1},
      {{{"command", {"dglrun", "--num-servers"}}}, 1},
      {{{"command", {"dglrun", "--num-servers", "two"}}}, 1},
      {{{"command", {"dglrun", "--num-servers-extra=9"}}}, 1},
  };
  for (const auto& [launcher, expected] : cases) {
    json job = ValidJob();
    job["spec"].erase("numServers");
    json& container = Container(job, "Launcher");
    container.erase("command");
    container.erase("args");
    container.update(launcher);
    DefaultDGLJob(job);
    EXPECT_EQ(job["spec"]["numServers"], expected) << launcher.dump();
  }
}

TEST(DefaultDGLJob, RestartPolicyDefaultsToOnFailureOnEveryReplica) {
  json job = ValidJob();
  for (const char* type : {"Launcher", "Worker", "Partitioner"}) {
    EXPECT_EQ(Replica(job, type)["restartPolicy"], "OnFailure") << type;
  }
}

TEST(DefaultDGLJob, LauncherReplicasDefaultToOneWorkerReplicasHaveNone) {
  json job = ValidJob();
  Replica(job, "Launcher").erase("replicas");
  Replica(job, "Worker").erase("replicas");
  DefaultDGLJob(job);
  EXPECT_EQ(Replica(job, "Launcher")["replicas"], 1);
  EXPECT_FALSE(Replica(job, "Worker").contains("replicas"));
}

TEST(DefaultDGLJob, DglApiAndParMetisGetAPartitionerFromTheWorkerTemplateWithTheLauncherCommand) {
  for (const char* mode : {"DGL-API", "ParMETIS"}) {
    json job = ValidJob(mode);
    const json& partitioner = Replica(job, "Partitioner");
    EXPECT_EQ(partitioner["replicas"], 1) << mode;
    json expected = Replica(job, "Worker")["template"];
    expected["spec"]["containers"][0]["command"] = {"dglrun"};
    expected["spec"]["containers"][0]["args"] = {"--num-servers", "2"};
    EXPECT_EQ(partitioner["template"], expected) << mode;
  }
}

TEST(DefaultDGLJob, DistParMetisAndSkipGetNoPartitioner) {
  for (const char* mode : {"DistParMETIS", "Skip"}) {
    EXPECT_FALSE(ValidJob(mode)["spec"]["dglReplicaSpecs"].contains("Partitioner")) << mode;
  }
}

TEST(DefaultDGLJob, UserPartitionerKeepsItsTemplateAndGetsReplicasOne) {
  json job = ValidJob();
  json custom = {{"spec", {{"containers", json::array({{{"name", "part"}, {"image", "part:1"},
                                                        {"command", {"python"}}, {"args", {"part.py"}}}})}}}};
  Replica(job, "Partitioner") = {{"template", custom}};
  DefaultDGLJob(job);
  EXPECT_EQ(Replica(job, "Partitioner")["template"], custom);
  EXPECT_EQ(Replica(job, "Partitioner")["replicas"], 1);
}

// The usual reason to write a Partitioner: more memory than a worker. Without a command it would run
// the image's default forever; it runs the Launcher's command line, as the original did.
TEST(DefaultDGLJob, PartitionerTemplateWithOnlyResourcesRunsTheLauncherCommand) {
  json job = ValidJob();
  Replica(job, "Partitioner") = {
      {"template",
       {{"spec",
         {{"containers",
           json::array({{{"name", "part"}, {"image", "part:1"},
                         {"resources", {{"limits", {{"memory", "200Gi"}}}}}}})}}}}}};
  DefaultDGLJob(job);
  const json& container = Replica(job, "Partitioner")["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["command"], json::array({"dglrun"}));
  EXPECT_EQ(container["args"], json::array({"--num-servers", "2"}));
  EXPECT_EQ(container["image"], "part:1");
  EXPECT_EQ(container["resources"]["limits"]["memory"], "200Gi");
  EXPECT_TRUE(ValidateDGLJob(job).empty()) << Describe(ValidateDGLJob(job));
}

TEST(DefaultDGLJob, PartitionerWithOnlyArgsKeepsTheImageEntrypoint) {
  json job = ValidJob();
  json custom = {{"spec", {{"containers", json::array({{{"name", "part"}, {"image", "part:1"},
                                                        {"args", {"--num-partitions", "2"}}}})}}}};
  Replica(job, "Partitioner") = {{"template", custom}};
  DefaultDGLJob(job);
  EXPECT_EQ(Replica(job, "Partitioner")["template"], custom);
}

TEST(DefaultDGLJob, UserValuesAreKept) {
  json job = ValidJob();
  job["spec"]["slotsPerWorker"] = 2;
  job["spec"]["numServers"] = 5;
  job["spec"]["runPolicy"] = {{"cleanPodPolicy", "None"}, {"backoffLimit", 0}, {"suspend", true}};
  Replica(job, "Worker")["restartPolicy"] = "ExitCode";
  json before = job;
  DefaultDGLJob(job);
  EXPECT_EQ(job, before);
}

TEST(DefaultDGLJob, NullMeansUnsetAndIsDefaulted) {
  json job = ValidJob();
  job["spec"]["partitionMode"] = nullptr;
  job["spec"]["runPolicy"]["backoffLimit"] = nullptr;
  DefaultDGLJob(job);
  EXPECT_EQ(job["spec"]["partitionMode"], "DGL-API");
  EXPECT_EQ(job["spec"]["runPolicy"]["backoffLimit"], 3);
}

TEST(DefaultDGLJob, WrongTypesAreLeftForValidation) {
  json job = ValidJob();
  job["spec"]["runPolicy"] = "soon";
  job["spec"]["partitionMode"] = 7;
  json before = job;
  DefaultDGLJob(job);
  EXPECT_EQ(job, before);
}

// ---------------------------------------------------------------------------------------------
// ValidateDGLJob

TEST(ValidateDGLJob, ValidJobsOfEveryModeHaveNoCauses) {
  for (const char* mode : {"DGL-API", "ParMETIS", "DistParMETIS", "Skip"}) {
    auto causes = ValidateDGLJob(ValidJob(mode));
    EXPECT_TRUE(causes.empty()) << mode << Describe(causes);
  }
}

TEST(ValidateDGLJob, WorkerReplicasZeroIsInvalid) {
  auto causes = ValidateWith([](json& j) { Replica(j, "Worker")["replicas"] = 0; });
  EXPECT_EQ(OnlyCause(causes, "FieldValueInvalid", "spec.dglReplicaSpecs.Worker.replicas"),
            "Invalid value: 0: must be >= 1");
}

TEST(ValidateDGLJob, WorkerReplicasAreRequired) {
  auto causes = ValidateWith([](json& j) { Replica(j, "Worker").erase("replicas"); });
  EXPECT_EQ(OnlyCause(causes, "FieldValueRequired", "spec.dglReplicaSpecs.Worker.replicas"), "Required value");
}

TEST(ValidateDGLJob, StringWhereAnIntegerBelongsIsATypeCause) {
  auto causes = ValidateWith([](json& j) { Replica(j, "Worker")["replicas"] = "2"; });
  EXPECT_EQ(OnlyCause(causes, "FieldValueTypeInvalid", "spec.dglReplicaSpecs.Worker.replicas"),
            "Invalid value: \"2\": must be of type integer");
}

TEST(ValidateDGLJob, IntegralFloatsCountAsIntegers) {
  auto causes = ValidateWith([](json& j) { Replica(j, "Worker")["replicas"] = 2.0; });
  EXPECT_TRUE(causes.empty()) << Describe(causes);
  causes = ValidateWith([](json& j) { Replica(j, "Worker")["replicas"] = 2.5; });
  OnlyCause(causes, "FieldValueTypeInvalid", "spec.dglReplicaSpecs.Worker.replicas");
}

TEST(ValidateDGLJob, LauncherReplicasMustBeOne) {
  auto causes = ValidateWith([](json& j) { Replica(j, "Launcher")["replicas"] = 2; });
  EXPECT_EQ(OnlyCause(causes, "FieldValueInvalid", "spec.dglReplicaSpecs.Launcher.replicas"),
            "Invalid value: 2: must be 1");
}

TEST(ValidateDGLJob, PartitionerReplicasMustBeZeroOrOne) {
  auto zero = ValidateWith([](json& j) { Replica(j, "Partitioner")["replicas"] = 0; });
  EXPECT_TRUE(zero.empty()) << Describe(zero);
  auto two = ValidateWith([](json& j) { Replica(j, "Partitioner")["replicas"] = 2; });
  EXPECT_EQ(OnlyCause(two, "FieldValueInvalid", "spec.dglReplicaSpecs.Partitioner.replicas"),
            "Invalid value: 2: must be 0 or 1");
}

TEST(ValidateDGLJob, PartitionModeMustBeSupported) {
  auto causes = ValidateWith([](json& j) { j["spec"]["partitionMode"] = "METIS"; });
  EXPECT_EQ(OnlyCause(causes, "FieldValueNotSupported", "spec.partitionMode"),
            "Unsupported value: \"METIS\": supported values: \"DGL-API\", \"ParMETIS\", \"DistParMETIS\", \"Skip\"");
}

TEST(ValidateDGLJob, LauncherIsRequired) {
  auto causes = ValidateWith([](json& j) { j["spec"]["dglReplicaSpecs"].erase("Launcher"); });
  EXPECT_EQ(OnlyCause(causes, "FieldValueRequired", "spec.dglReplicaSpecs.Launcher"), "Required value");
}

TEST(ValidateDGLJob, WorkerIsRequiredUnlessSkip) {
  for (const char* mode : {"DGL-API", "ParMETIS", "DistParMETIS"}) {
    auto causes = ValidateWith([](json& j) { j["spec"]["dglReplicaSpecs"].erase("Worker"); }, mode);
    OnlyCause(causes, "FieldValueRequired", "spec.dglReplicaSpecs.Worker");
  }
  auto skip = ValidateWith([](json& j) { j["spec"]["dglReplicaSpecs"].erase("Worker"); }, "Skip");
  EXPECT_TRUE(skip.empty()) << Describe(skip);
}

TEST(ValidateDGLJob, DglReplicaSpecsIsRequired) {
  auto causes = ValidateWith([](json& j) { j["spec"].erase("dglReplicaSpecs"); });
  OnlyCause(causes, "FieldValueRequired", "spec.dglReplicaSpecs");
}

TEST(ValidateDGLJob, SpecIsRequired) {
  json job = ValidJob();
  job.erase("spec");
  OnlyCause(ValidateDGLJob(job), "FieldValueRequired", "spec");
}

TEST(ValidateDGLJob, UnknownReplicaTypeIsNotSupported) {
  auto causes = ValidateWith([](json& j) { j["spec"]["dglReplicaSpecs"]["Evaluator"] = json::object(); });
  EXPECT_EQ(OnlyCause(causes, "FieldValueNotSupported", "spec.dglReplicaSpecs.Evaluator"),
            "Unsupported value: \"Evaluator\": supported values: \"Launcher\", \"Worker\", \"Partitioner\", "
            "\"Server\", \"Sampler\", \"Trainer\"");
}

TEST(ValidateDGLJob, TemplateAndItsSpecAreRequired) {
  OnlyCause(ValidateWith([](json& j) { Replica(j, "Worker").erase("template"); }), "FieldValueRequired",
            "spec.dglReplicaSpecs.Worker.template");
  OnlyCause(ValidateWith([](json& j) { Replica(j, "Worker")["template"].erase("spec"); }), "FieldValueRequired",
            "spec.dglReplicaSpecs.Worker.template.spec");
}

TEST(ValidateDGLJob, ContainersMustBeNonEmpty) {
  auto empty = ValidateWith([](json& j) { Replica(j, "Launcher")["template"]["spec"]["containers"] = json::array(); });
  OnlyCause(empty, "FieldValueRequired", "spec.dglReplicaSpecs.Launcher.template.spec.containers");
  auto missing = ValidateWith([](json& j) { Replica(j, "Launcher")["template"]["spec"].erase("containers"); });
  OnlyCause(missing, "FieldValueRequired", "spec.dglReplicaSpecs.Launcher.template.spec.containers");
}

TEST(ValidateDGLJob, ContainerNeedsANameAndAnImage) {
  OnlyCause(ValidateWith([](json& j) { Container(j, "Worker").erase("image"); }), "FieldValueRequired",
            "spec.dglReplicaSpecs.Worker.template.spec.containers[0].image");
  OnlyCause(ValidateWith([](json& j) { Container(j, "Worker").erase("name"); }), "FieldValueRequired",
            "spec.dglReplicaSpecs.Worker.template.spec.containers[0].name");
  OnlyCause(ValidateWith([](json& j) { Container(j, "Worker")["name"] = "Main_1"; }), "FieldValueInvalid",
            "spec.dglReplicaSpecs.Worker.template.spec.containers[0].name");
}

TEST(ValidateDGLJob, CommandAndArgsMustBeStringLists) {
  OnlyCause(ValidateWith([](json& j) { Container(j, "Launcher")["command"] = "dglrun"; }), "FieldValueTypeInvalid",
            "spec.dglReplicaSpecs.Launcher.template.spec.containers[0].command");
  OnlyCause(ValidateWith([](json& j) { Container(j, "Launcher")["args"][1] = 2; }), "FieldValueTypeInvalid",
            "spec.dglReplicaSpecs.Launcher.template.spec.containers[0].args[1]");
}

TEST(ValidateDGLJob, GpuLimitMustBeAWholeNumber) {
  auto causes = ValidateWith([](json& j) { Container(j, "Worker")["resources"]["limits"]["nvidia.com/gpu"] = "1.5"; });
  EXPECT_EQ(OnlyCause(causes, "FieldValueInvalid",
                      "spec.dglReplicaSpecs.Worker.template.spec.containers[0].resources.limits[nvidia.com/gpu]"),
            "Invalid value: \"1.5\": must be a whole, non-negative number of GPUs");
}

TEST(ValidateDGLJob, RestartPolicyMustBeNeverOnFailureOrExitCode) {
  for (const char* ok : {"Never", "OnFailure", "ExitCode"}) {
    auto causes = ValidateWith([&](json& j) { Replica(j, "Worker")["restartPolicy"] = ok; });
    EXPECT_TRUE(causes.empty()) << ok << Describe(causes);
  }
  auto causes = ValidateWith([](json& j) { Replica(j, "Worker")["restartPolicy"] = "Always"; });
  EXPECT_EQ(OnlyCause(causes, "FieldValueNotSupported", "spec.dglReplicaSpecs.Worker.restartPolicy"),
            "Unsupported value: \"Always\": supported values: \"Never\", \"OnFailure\", \"ExitCode\"");
}

TEST(ValidateDGLJob, SlotsPerWorkerAndNumServersMustBeAtLeastOne) {
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["spec"]["slotsPerWorker"] = 0; }), "FieldValueInvalid",
                      "spec.slotsPerWorker"),
            "Invalid value: 0: must be >= 1");
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["spec"]["numServers"] = -1; }), "FieldValueInvalid",
                      "spec.numServers"),
            "Invalid value: -1: must be >= 1");
}

TEST(ValidateDGLJob, CleanPodPolicyMustBeRunningAllOrNone) {
  auto causes = ValidateWith([](json& j) { j["spec"]["runPolicy"]["cleanPodPolicy"] = "OnCompletion"; });
  EXPECT_EQ(OnlyCause(causes, "FieldValueNotSupported", "spec.runPolicy.cleanPodPolicy"),
            "Unsupported value: \"OnCompletion\": supported values: \"Running\", \"All\", \"None\"");
}

TEST(ValidateDGLJob, RunPolicyRanges) {
  EXPECT_TRUE(ValidateWith([](json& j) { j["spec"]["runPolicy"]["ttlSecondsAfterFinished"] = 0; }).empty());
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["spec"]["runPolicy"]["ttlSecondsAfterFinished"] = -1; }),
                      "FieldValueInvalid", "spec.runPolicy.ttlSecondsAfterFinished"),
            "Invalid value: -1: must be >= 0");
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["spec"]["runPolicy"]["activeDeadlineSeconds"] = 0; }),
                      "FieldValueInvalid", "spec.runPolicy.activeDeadlineSeconds"),
            "Invalid value: 0: must be >= 1");
  EXPECT_TRUE(ValidateWith([](json& j) { j["spec"]["runPolicy"]["backoffLimit"] = 0; }).empty());
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["spec"]["runPolicy"]["backoffLimit"] = -1; }),
                      "FieldValueInvalid", "spec.runPolicy.backoffLimit"),
            "Invalid value: -1: must be >= 0");
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["spec"]["runPolicy"]["suspend"] = "true"; }),
                      "FieldValueTypeInvalid", "spec.runPolicy.suspend"),
            "Invalid value: \"true\": must be of type boolean");
}

TEST(ValidateDGLJob, SchedulingPolicyFields) {
  auto set = [](const char* field, json value) {
    return [=](json& j) { j["spec"]["runPolicy"]["schedulingPolicy"][field] = value; };
  };
  EXPECT_TRUE(ValidateWith(set("minAvailable", 4)).empty());  // partitioner + launcher + 2 workers
  EXPECT_TRUE(ValidateWith(set("queue", "gpu")).empty());
  EXPECT_TRUE(ValidateWith(set("priorityClass", "high")).empty());
  EXPECT_TRUE(ValidateWith(set("scheduleTimeoutSeconds", 60)).empty());
  const std::string sp = "spec.runPolicy.schedulingPolicy";
  EXPECT_EQ(OnlyCause(ValidateWith(set("minAvailable", 0)), "FieldValueInvalid", sp + ".minAvailable"),
            "Invalid value: 0: must be >= 1");
  EXPECT_EQ(OnlyCause(ValidateWith(set("minAvailable", 5)), "FieldValueInvalid", sp + ".minAvailable"),
            "Invalid value: 5: must be <= 4, the number of pods of the job");
  OnlyCause(ValidateWith(set("queue", 3)), "FieldValueTypeInvalid", sp + ".queue");
  OnlyCause(ValidateWith(set("priorityClass", "")), "FieldValueInvalid", sp + ".priorityClass");
  OnlyCause(ValidateWith(set("scheduleTimeoutSeconds", 0)), "FieldValueInvalid", sp + ".scheduleTimeoutSeconds");
  OnlyCause(ValidateWith([](json& j) { j["spec"]["runPolicy"]["schedulingPolicy"] = 1; }), "FieldValueTypeInvalid", sp);
}

TEST(ValidateDGLJob, NameMustBeADns1123Label) {
  for (const char* bad : {"My-Job", "job_1", "-job", "job-", "job.x"}) {
    auto causes = ValidateWith([&](json& j) { j["metadata"]["name"] = bad; });
    std::string message = OnlyCause(causes, "FieldValueInvalid", "metadata.name");
    EXPECT_NE(message.find("RFC 1123 label"), std::string::npos) << bad << ": " << message;
  }
}

TEST(ValidateDGLJob, NameIsRequiredUnlessGenerateNameIsGiven) {
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["metadata"].erase("name"); }), "FieldValueRequired",
                      "metadata.name"),
            "Required value: name or generateName is required");
  auto generated = ValidateWith([](json& j) {
    j["metadata"].erase("name");
    j["metadata"]["generateName"] = "job-";
  });
  EXPECT_TRUE(generated.empty()) << Describe(generated);
}

TEST(ValidateDGLJob, NameLeavesRoomForTheLongestPodName) {
  // DGL-API: "<name>-partitioner" is the longest pod name: 51 + 12 = 63.
  EXPECT_TRUE(ValidateWith([](json& j) { j["metadata"]["name"] = std::string(51, 'a'); }).empty());
  std::string message =
      OnlyCause(ValidateWith([](json& j) { j["metadata"]["name"] = std::string(52, 'a'); }), "FieldValueInvalid",
                "metadata.name");
  EXPECT_NE(message.find("must be no more than 51 characters"), std::string::npos) << message;
  EXPECT_NE(message.find(std::string(52, 'a') + "-partitioner"), std::string::npos) << message;

  // Skip: only "<name>-launcher".
  EXPECT_TRUE(ValidateWith([](json& j) { j["metadata"]["name"] = std::string(54, 'a'); }, "Skip").empty());

  // DistParMETIS with 11 workers: "<name>-worker-10" is the longest.
  auto eleven = [](std::size_t length) {
    return [=](json& j) {
      Replica(j, "Worker")["replicas"] = 11;
      j["metadata"]["name"] = std::string(length, 'a');
    };
  };
  EXPECT_TRUE(ValidateWith(eleven(53), "DistParMETIS").empty());
  message = OnlyCause(ValidateWith(eleven(54), "DistParMETIS"), "FieldValueInvalid", "metadata.name");
  EXPECT_NE(message.find("-worker-10\" stays within 63 characters"), std::string::npos) << message;
}

TEST(ValidateDGLJob, LegacyApiVersionAndTopLevelCleanPodPolicyAreRefused) {
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["apiVersion"] = kLegacyApiVersion; }), "FieldValueNotSupported",
                      "apiVersion"),
            "Unsupported value: \"qihoo.net/v1alpha1\": supported values: \"kubeflow.org/v1alpha1\"");
  EXPECT_EQ(OnlyCause(ValidateWith([](json& j) { j["spec"]["cleanPodPolicy"] = "All"; }), "FieldValueForbidden",
                      "spec.cleanPodPolicy"),
            "Forbidden: moved to spec.runPolicy.cleanPodPolicy in kubeflow.org/v1alpha1");
  OnlyCause(ValidateWith([](json& j) { j["kind"] = "MPIJob"; }), "FieldValueNotSupported", "kind");
}

TEST(ValidateDGLJob, ReportsEveryProblemAtOnce) {
  auto causes = ValidateWith([](json& j) {
    Replica(j, "Worker")["replicas"] = 0;
    Replica(j, "Launcher")["replicas"] = 3;
    j["spec"]["partitionMode"] = "Fast";
    j["spec"]["runPolicy"]["backoffLimit"] = "many";
  });
  EXPECT_EQ(causes.size(), 4u) << Describe(causes);
  for (const char* field : {"spec.dglReplicaSpecs.Worker.replicas", "spec.dglReplicaSpecs.Launcher.replicas",
                            "spec.partitionMode", "spec.runPolicy.backoffLimit"}) {
    EXPECT_NE(FindCause(causes, field), nullptr) << field << Describe(causes);
  }
}

TEST(ValidateDGLJob, NonObjectJobIsOneCause) {
  for (const json& garbage : {json(nullptr), json(1), json("job"), json::array({1, 2})}) {
    auto causes = ValidateDGLJob(garbage);
    ASSERT_EQ(causes.size(), 1u) << garbage.dump();
    EXPECT_EQ(causes[0].type, "FieldValueTypeInvalid");
  }
}

// ---------------------------------------------------------------------------------------------
// Garbage in every position: nothing throws, and defaulting stays idempotent.

void CollectPaths(const json& node, const json::json_pointer& here, std::vector<json::json_pointer>& out) {
  out.push_back(here);
  if (node.is_object()) {
    for (const auto& item : node.items()) CollectPaths(item.value(), here / item.key(), out);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) CollectPaths(node[i], here / i, out);
  }
}

void ExerciseEverything(json job) {
  json copy = job;
  ConvertLegacy(copy);
  DefaultDGLJob(copy);
  json once = copy;
  DefaultDGLJob(copy);
  EXPECT_EQ(copy, once) << "defaulting not idempotent for " << job.dump();
  ValidateDGLJob(job);
  ValidateDGLJob(copy);
  GetPartitionMode(copy);
  GetSlotsPerWorker(copy);
  GetNumServers(copy);
  for (const char* type : {"Launcher", "Worker", "Partitioner"}) {
    GetReplicas(copy, type);
    GetRestartPolicy(copy, type);
    GetReplicaTemplate(copy, type);
  }
  GetCleanPodPolicy(copy);
  GetBackoffLimit(copy);
  GetSuspend(copy);
  GetActiveDeadlineSeconds(copy);
  GetTtlSecondsAfterFinished(copy);
  GetSchedulingInt(copy, "minAvailable");
}

TEST(GarbageInput, NeverThrowsWhateverValueSitsAtAnyPosition) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  json base = LoadExample("GraphSAGE_dist.yaml");
  base["spec"]["runPolicy"] = {{"schedulingPolicy", {{"minAvailable", 2}, {"queue", "q"}}},
                               {"ttlSecondsAfterFinished", 10}};
  Container(base, "Worker")["resources"]["limits"]["nvidia.com/gpu"] = 2;
  std::vector<json::json_pointer> paths;
  CollectPaths(base, json::json_pointer(), paths);
  const std::vector<json> garbage = {
      json::array(), json::array({1, "x", nullptr}), json("x"), json(""), json(nullptr), json(-1), json(0),
      json(1e300), json(-0.5), json(true), json::object(), json({{"a", {{"b", 1}}}}),
      json(std::numeric_limits<std::uint64_t>::max()), json(std::string("\xff\xfe", 2))};
  std::size_t runs = 0;
  for (const auto& path : paths) {
    for (const json& value : garbage) {
      json job = base;
      job[path] = value;
      EXPECT_NO_THROW(ExerciseEverything(job)) << path.to_string() << " = " << value.dump(-1, ' ', false, json::error_handler_t::replace);
      ++runs;
    }
  }
  EXPECT_GT(runs, 500u);
}

TEST(GarbageInput, InvalidUtf8InMessagesDoesNotThrow) {
  json job = ValidJob();
  job["spec"]["partitionMode"] = std::string("\xc3\x28", 2);
  std::vector<StatusCause> causes;
  EXPECT_NO_THROW(causes = ValidateDGLJob(job));
  OnlyCause(causes, "FieldValueNotSupported", "spec.partitionMode");
}

TEST(GarbageInput, WholeDocumentsOfTheWrongTypeNeverThrow) {
  for (const json& job : {json(nullptr), json(3), json("DGLJob"), json::array({json::object()}), json::object(),
                          json({{"spec", nullptr}}), json({{"spec", json::array()}}),
                          json({{"spec", {{"dglReplicaSpecs", "x"}}}}),
                          json({{"spec", {{"dglReplicaSpecs", {{"Launcher", json::array()}, {"Worker", 3}}}}}})}) {
    EXPECT_NO_THROW(ExerciseEverything(job)) << job.dump();
  }
}

// ---------------------------------------------------------------------------------------------
// Typed accessors and helpers

TEST(Accessors, ReadTheDefaultedJob) {
  json job = ValidJob();
  job["spec"]["runPolicy"]["activeDeadlineSeconds"] = 600;
  job["spec"]["runPolicy"]["schedulingPolicy"] = {{"minAvailable", 3}};
  EXPECT_EQ(GetPartitionMode(job), PartitionMode::kDglApi);
  EXPECT_EQ(GetSlotsPerWorker(job), 4);
  EXPECT_EQ(GetNumServers(job), 2);
  EXPECT_EQ(GetReplicas(job, kReplicaLauncher), 1);
  EXPECT_EQ(GetReplicas(job, kReplicaWorker), 2);
  EXPECT_EQ(GetReplicas(job, kReplicaPartitioner), 1);
  EXPECT_EQ(GetRestartPolicy(job, kReplicaWorker), "OnFailure");
  ASSERT_NE(GetReplicaTemplate(job, kReplicaPartitioner), nullptr);
  EXPECT_EQ(GetCleanPodPolicy(job), "Running");
  EXPECT_EQ(GetBackoffLimit(job), 3);
  EXPECT_FALSE(GetSuspend(job));
  EXPECT_EQ(GetActiveDeadlineSeconds(job), 600);
  EXPECT_EQ(GetTtlSecondsAfterFinished(job), std::nullopt);
  EXPECT_EQ(GetSchedulingInt(job, "minAvailable"), 3);
  EXPECT_EQ(GetReplicas(ValidJob("Skip"), kReplicaPartitioner), 0);
}

TEST(Accessors, PartitionModeNamesRoundTrip) {
  for (PartitionMode mode : {PartitionMode::kDglApi, PartitionMode::kParMetis, PartitionMode::kDistParMetis,
                             PartitionMode::kSkip}) {
    EXPECT_EQ(ParsePartitionMode(ToString(mode)), mode);
  }
  EXPECT_EQ(ParsePartitionMode("dgl-api"), std::nullopt);
  EXPECT_TRUE(RunsPartitioner(PartitionMode::kDglApi));
  EXPECT_TRUE(RunsPartitioner(PartitionMode::kParMetis));
  EXPECT_FALSE(RunsPartitioner(PartitionMode::kDistParMetis));
  EXPECT_FALSE(RunsPartitioner(PartitionMode::kSkip));
}

TEST(Accessors, FindCommandFlagLooksAcrossCommandAndArgs) {
  json container = {{"command", {"sh", "-c"}}, {"args", {"dglrun --graph-name products --num-trainers=2"}}};
  EXPECT_EQ(FindCommandFlag(container, "--graph-name"), "products");
  EXPECT_EQ(FindCommandFlag(container, "--num-trainers"), "2");
  EXPECT_EQ(FindCommandFlag(container, "--num-servers"), std::nullopt);
  EXPECT_EQ(FindCommandFlag(json("x"), "--num-servers"), std::nullopt);
}

}  // namespace
}  // namespace dgl
