// The CRD schema says what admission says: every rule ValidateDGLJob enforces on a field is also
// refused by the openAPIV3Schema (checked with a small OpenAPI evaluator below), cross-field rules
// appear as CEL rules, every value the schema admits the validator admits too, and the checked-in
// deploy/crd.yaml is exactly DGLJobCrd().
#include "fakeapi/client/json.h"
#include "operator/api/dgljob_api.h"
#include "tests/operator/controller/reconcile_fixture.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <regex>
#include <string>
#include <vector>

namespace dgl {
namespace {

using json = kube::Json;

// The OpenAPI v3 keywords a structural CRD schema uses for values (type, enum, minimum, maximum,
// minLength, maxLength, pattern, minItems, required, properties, items, int-or-string). Appends the
// path of every violation. CEL rules are not evaluated here.
void Check(const json& schema, const json& value, const std::string& path, std::vector<std::string>* errors) {
  auto fail = [&](const std::string& why) { errors->push_back(path + ": " + why); };
  const bool int_or_string = schema.value("x-kubernetes-int-or-string", false);
  if (int_or_string) {
    if (!value.is_number_integer() && !value.is_string()) return fail("not int-or-string");
  } else if (schema.contains("type")) {
    const std::string type = schema["type"];
    const bool ok = (type == "object" && value.is_object()) || (type == "array" && value.is_array()) ||
                    (type == "string" && value.is_string()) || (type == "boolean" && value.is_boolean()) ||
                    (type == "integer" && value.is_number_integer()) || (type == "number" && value.is_number());
    if (!ok) return fail("not " + type);
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const json& allowed : schema["enum"]) found = found || allowed == value;
    if (!found) fail("not in enum");
  }
  if (value.is_number()) {
    if (schema.contains("minimum") && value.get<double>() < schema["minimum"].get<double>()) fail("below minimum");
    if (schema.contains("maximum") && value.get<double>() > schema["maximum"].get<double>()) fail("above maximum");
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (schema.contains("minLength") && s.size() < schema["minLength"].get<std::size_t>()) fail("too short");
    if (schema.contains("maxLength") && s.size() > schema["maxLength"].get<std::size_t>()) fail("too long");
    if (schema.contains("pattern") && !std::regex_search(s, std::regex(schema["pattern"].get<std::string>()))) {
      fail("does not match pattern");
    }
  }
  if (value.is_array()) {
    if (schema.contains("minItems") && value.size() < schema["minItems"].get<std::size_t>()) fail("too few items");
    if (schema.contains("items")) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        Check(schema["items"], value[i], path + "[" + std::to_string(i) + "]", errors);
      }
    }
  }
  if (value.is_object()) {
    for (const json& key : schema.value("required", json::array())) {
      if (!value.contains(key.get<std::string>())) fail("missing " + key.get<std::string>());
    }
    if (schema.contains("properties")) {
      for (const auto& [key, sub] : schema["properties"].items()) {
        if (value.contains(key)) Check(sub, value[key], path.empty() ? key : path + "." + key, errors);
      }
    }
  }
}

std::vector<std::string> SchemaErrors(const json& object) {
  std::vector<std::string> errors;
  Check(DGLJobOpenApiSchema(), object, "", &errors);
  return errors;
}

json CrdValidJob() {
  json container = {{"name", "dgl"},
                    {"image", "dgl:latest"},
                    {"command", json::array({"dglrun", "--num-servers", "1"})},
                    {"resources", {{"limits", {{"nvidia.com/gpu", 1}}}}}};
  json tmpl = {{"spec", {{"containers", json::array({container})}}}};
  json job = {{"apiVersion", kApiVersion},
              {"kind", kKind},
              {"metadata", {{"name", "graphsage"}, {"namespace", "default"}}},
              {"spec",
               {{"partitionMode", "DGL-API"},
                {"runPolicy",
                 {{"ttlSecondsAfterFinished", 60},
                  {"activeDeadlineSeconds", 3600},
                  {"schedulingPolicy",
                   {{"minAvailable", 2}, {"queue", "q"}, {"priorityClass", "high"}, {"scheduleTimeoutSeconds", 30}}}}},
                {"dglReplicaSpecs",
                 {{"Launcher", {{"replicas", 1}, {"template", tmpl}}},
                  {"Worker", {{"replicas", 2}, {"template", tmpl}}}}}}}};
  DefaultDGLJob(job);
  return job;
}

TEST(DGLJobCrdTest, ValidJobPassesBothValidationAndSchema) {
  json job = CrdValidJob();
  EXPECT_TRUE(ValidateDGLJob(job).empty());
  EXPECT_EQ(SchemaErrors(job), std::vector<std::string>{});
}

TEST(DGLJobCrdTest, OriginalExamplesPassTheSchemaAfterConversionAndDefaulting) {
  DGLSIM_REQUIRE_SHARED_EXAMPLES();
  for (const char* file : {"DGL-KE.yaml", "GraphSAGE.yaml", "GraphSAGE_dist.yaml", "graph_classification.yaml",
                           "link_predict.yaml", "node_classification.yaml"}) {
    json job = testing::YamlToJson(YAML::LoadFile(::testing_shared::ExamplesDir() + file));
    ConvertLegacy(job);
    DefaultDGLJob(job);
    ASSERT_TRUE(ValidateDGLJob(job).empty()) << file;
    EXPECT_EQ(SchemaErrors(job), std::vector<std::string>{}) << file;
  }
}

struct Violation {
  std::string pointer;  // JSON pointer of the field changed
  json value;           // the bad value; null: the field is removed
  std::string field;    // the path validation and the schema both name
};

// One case per field rule in ValidateDGLJob (enums, minimums, maximums, types, required fields,
// container names, the GPU quantity).
const std::vector<Violation>& FieldViolations() {
  static const std::vector<Violation> cases = {
      {"/spec/partitionMode", "Metis", "spec.partitionMode"},
      {"/spec/slotsPerWorker", 0, "spec.slotsPerWorker"},
      {"/spec/slotsPerWorker", "two", "spec.slotsPerWorker"},
      {"/spec/numServers", 0, "spec.numServers"},
      {"/spec/runPolicy/cleanPodPolicy", "Sometimes", "spec.runPolicy.cleanPodPolicy"},
      {"/spec/runPolicy/ttlSecondsAfterFinished", -1, "spec.runPolicy.ttlSecondsAfterFinished"},
      {"/spec/runPolicy/activeDeadlineSeconds", 0, "spec.runPolicy.activeDeadlineSeconds"},
      {"/spec/runPolicy/backoffLimit", -1, "spec.runPolicy.backoffLimit"},
      {"/spec/runPolicy/suspend", "yes", "spec.runPolicy.suspend"},
      {"/spec/runPolicy/schedulingPolicy/minAvailable", 0, "spec.runPolicy.schedulingPolicy.minAvailable"},
      {"/spec/runPolicy/schedulingPolicy/priorityClass", "", "spec.runPolicy.schedulingPolicy.priorityClass"},
      {"/spec/runPolicy/schedulingPolicy/queue", 7, "spec.runPolicy.schedulingPolicy.queue"},
      {"/spec/runPolicy/schedulingPolicy/scheduleTimeoutSeconds", 0,
       "spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds"},
      {"/spec/dglReplicaSpecs/Launcher/replicas", 2, "spec.dglReplicaSpecs.Launcher.replicas"},
      {"/spec/dglReplicaSpecs/Launcher/replicas", 0, "spec.dglReplicaSpecs.Launcher.replicas"},
      {"/spec/dglReplicaSpecs/Worker/replicas", 0, "spec.dglReplicaSpecs.Worker.replicas"},
      {"/spec/dglReplicaSpecs/Worker/replicas", nullptr, "spec.dglReplicaSpecs.Worker"},
      {"/spec/dglReplicaSpecs/Partitioner/replicas", 2, "spec.dglReplicaSpecs.Partitioner.replicas"},
      {"/spec/dglReplicaSpecs/Worker/restartPolicy", "Always", "spec.dglReplicaSpecs.Worker.restartPolicy"},
      {"/spec/dglReplicaSpecs/Launcher", nullptr, "spec.dglReplicaSpecs"},
      {"/spec/dglReplicaSpecs", nullptr, "spec"},
      {"/spec/dglReplicaSpecs/Worker/template", nullptr, "spec.dglReplicaSpecs.Worker"},
      {"/spec/dglReplicaSpecs/Worker/template/spec", nullptr, "spec.dglReplicaSpecs.Worker.template"},
      {"/spec/dglReplicaSpecs/Worker/template/spec/containers", json::array(),
       "spec.dglReplicaSpecs.Worker.template.spec.containers"},
      {"/spec/dglReplicaSpecs/Worker/template/spec/containers/0/name", "Bad_Name",
       "spec.dglReplicaSpecs.Worker.template.spec.containers[0].name"},
      {"/spec/dglReplicaSpecs/Worker/template/spec/containers/0/image", nullptr,
       "spec.dglReplicaSpecs.Worker.template.spec.containers[0]"},
      {"/spec/dglReplicaSpecs/Worker/template/spec/containers/0/command", json::array({"dglrun", 3}),
       "spec.dglReplicaSpecs.Worker.template.spec.containers[0].command[1]"},
      {"/spec/dglReplicaSpecs/Worker/template/spec/containers/0/resources/limits/nvidia.com~1gpu", "1.5",
       "spec.dglReplicaSpecs.Worker.template.spec.containers[0].resources.limits.nvidia.com/gpu"},
      {"/spec/dglReplicaSpecs/Worker/template/spec/initContainers", json::array({{{"name", "x"}}}),
       "spec.dglReplicaSpecs.Worker.template.spec.initContainers[0]"},
      {"/spec/partitionerPlacement", "Node", "spec.partitionerPlacement"},
      {"/spec/dglReplicaSpecs/Server", {{"replicas", 0}, {"template", {{"spec", {{"containers", {{{"name", "s"}, {"image", "s:1"}}}}}}}}},
       "spec.dglReplicaSpecs.Server.replicas"},
      {"/spec/dglReplicaSpecs/Sampler", {{"template", {{"spec", {{"containers", {{{"name", "s"}, {"image", "s:1"}}}}}}}}},
       "spec.dglReplicaSpecs.Sampler"},
      {"/spec/dglReplicaSpecs/Trainer", {{"replicas", 0}, {"template", {{"spec", {{"containers", {{{"name", "t"}, {"image", "t:1"}}}}}}}}},
       "spec.dglReplicaSpecs.Trainer.replicas"},
      {"/metadata/name", "Graph_SAGE", "metadata.name"},
      {"/spec", nullptr, ""},
  };
  return cases;
}

json Apply(const Violation& v) {
  json job = CrdValidJob();
  json::json_pointer pointer(v.pointer);
  if (v.value.is_null()) {
    job.at(pointer.parent_pointer()).erase(pointer.back());
  } else {
    job[pointer] = v.value;
  }
  return job;
}

TEST(DGLJobCrdTest, EveryFieldRuleOfValidationIsAlsoInTheSchema) {
  for (const Violation& v : FieldViolations()) {
    json job = Apply(v);
    EXPECT_FALSE(ValidateDGLJob(job).empty()) << "validation admits " << v.pointer << " = " << v.value;
    std::vector<std::string> errors = SchemaErrors(job);
    bool named = false;
    for (const std::string& e : errors) named = named || e.rfind(v.field + ": ", 0) == 0;
    EXPECT_TRUE(named) << "schema does not refuse " << v.pointer << " = " << v.value << " at " << v.field
                       << "; errors: " << json(errors).dump();
  }
}

TEST(DGLJobCrdTest, EverySchemaEnumValueIsAdmitted) {
  const json schema = DGLJobOpenApiSchema();
  const json& spec = schema["properties"]["spec"]["properties"];
  struct EnumField {
    std::string pointer;
    const json& values;
  };
  const std::vector<EnumField> fields = {
      {"/spec/partitionMode", spec["partitionMode"]["enum"]},
      {"/spec/runPolicy/cleanPodPolicy", spec["runPolicy"]["properties"]["cleanPodPolicy"]["enum"]},
      {"/spec/dglReplicaSpecs/Worker/restartPolicy",
       spec["dglReplicaSpecs"]["properties"]["Worker"]["properties"]["restartPolicy"]["enum"]},
  };
  for (const EnumField& field : fields) {
    ASSERT_GE(field.values.size(), 3u) << field.pointer;
    for (const json& value : field.values) {
      json job = CrdValidJob();
      // A gang of 2 is more than a Skip job's single pod; that rule is not the one under test.
      job["spec"]["runPolicy"]["schedulingPolicy"].erase("minAvailable");
      job[json::json_pointer(field.pointer)] = value;
      EXPECT_TRUE(ValidateDGLJob(job).empty()) << field.pointer << " = " << value;
      EXPECT_EQ(SchemaErrors(job), std::vector<std::string>{}) << field.pointer << " = " << value;
    }
  }
  EXPECT_EQ(spec["partitionMode"]["enum"], json::array({"DGL-API", "ParMETIS", "DistParMETIS", "Skip"}));
  EXPECT_EQ(spec["runPolicy"]["properties"]["cleanPodPolicy"]["enum"], json::array({"Running", "All", "None"}));
}

TEST(DGLJobCrdTest, CrossFieldRulesAreCelRules) {
  const json spec = DGLJobOpenApiSchema()["properties"]["spec"];
  std::vector<std::string> rules;
  for (const json& rule : spec["x-kubernetes-validations"]) rules.push_back(rule["rule"]);
  // spec.cleanPodPolicy: admission refuses it (Forbidden); the schema lists it only to refuse it.
  json legacy = CrdValidJob();
  legacy["spec"]["cleanPodPolicy"] = "All";
  EXPECT_FALSE(ValidateDGLJob(legacy).empty());
  EXPECT_NE(std::find(rules.begin(), rules.end(), "!has(self.cleanPodPolicy)"), rules.end());
  // A Worker is required unless the mode is Skip.
  json no_worker = CrdValidJob();
  no_worker["spec"]["dglReplicaSpecs"].erase("Worker");
  EXPECT_FALSE(ValidateDGLJob(no_worker).empty());
  no_worker["spec"]["partitionMode"] = "Skip";
  no_worker["spec"]["dglReplicaSpecs"].erase("Partitioner");
  no_worker["spec"]["runPolicy"]["schedulingPolicy"]["minAvailable"] = 1;
  EXPECT_TRUE(ValidateDGLJob(no_worker).empty());
  bool worker_rule = false;
  for (const std::string& rule : rules) {
    worker_rule = worker_rule || (rule.find("'Skip'") != std::string::npos &&
                                  rule.find("has(self.dglReplicaSpecs.Worker)") != std::string::npos);
  }
  EXPECT_TRUE(worker_rule);
}

TEST(DGLJobCrdTest, PartitionerPlacementIsAnEnumDefaultingToPod) {
  const json placement = DGLJobOpenApiSchema()["properties"]["spec"]["properties"]["partitionerPlacement"];
  EXPECT_EQ(placement["enum"], json::array({"Pod", "LauncherInit"}));
  EXPECT_EQ(placement["default"], "Pod");
  for (const json& value : placement["enum"]) {
    json job = CrdValidJob();
    job["spec"]["partitionerPlacement"] = value;
    EXPECT_TRUE(ValidateDGLJob(job).empty()) << value;
    EXPECT_EQ(SchemaErrors(job), std::vector<std::string>{}) << value;
  }
}

TEST(DGLJobCrdTest, TriWorkloadRoleCombinationsAreCelRules) {
  const json spec = DGLJobOpenApiSchema()["properties"]["spec"];
  for (const char* type : {"Server", "Sampler", "Trainer"}) {
    EXPECT_EQ(spec["properties"]["dglReplicaSpecs"]["properties"][type]["properties"]["replicas"]["minimum"], 1) << type;
  }
  std::vector<std::string> rules;
  for (const json& rule : spec["x-kubernetes-validations"]) rules.push_back(rule["rule"]);
  auto has_rule = [&](std::initializer_list<const char*> parts) {
    for (const std::string& rule : rules) {
      bool all = true;
      for (const char* part : parts) all = all && rule.find(part) != std::string::npos;
      if (all) return true;
    }
    return false;
  };
  // Worker, or Server and Trainer, unless Skip; no roles in Skip; LauncherInit only with a partitioner.
  EXPECT_TRUE(has_rule({"has(self.dglReplicaSpecs.Worker)", "has(self.dglReplicaSpecs.Server) && "
                                                             "has(self.dglReplicaSpecs.Trainer)"}));
  EXPECT_TRUE(has_rule({"'Skip'", "has(self.dglReplicaSpecs.Sampler)"}));
  EXPECT_TRUE(has_rule({"self.partitionerPlacement == 'Pod'", "'ParMETIS'"}));
  // What validation says of the same combinations.
  json trainers_only = CrdValidJob();
  trainers_only["spec"]["dglReplicaSpecs"]["Trainer"] = trainers_only["spec"]["dglReplicaSpecs"]["Worker"];
  trainers_only["spec"]["dglReplicaSpecs"].erase("Worker");
  EXPECT_FALSE(ValidateDGLJob(trainers_only).empty());
  trainers_only["spec"]["dglReplicaSpecs"]["Server"] = trainers_only["spec"]["dglReplicaSpecs"]["Trainer"];
  EXPECT_TRUE(ValidateDGLJob(trainers_only).empty());
}

TEST(DGLJobCrdTest, CrdNamesTheResourceAsTheApiContractSays) {
  const json crd = DGLJobCrd();
  EXPECT_EQ(crd["metadata"]["name"], "dgljobs.kubeflow.org");
  EXPECT_EQ(crd["spec"]["group"], "kubeflow.org");
  EXPECT_EQ(crd["spec"]["scope"], "Namespaced");
  EXPECT_EQ(crd["spec"]["names"]["kind"], "DGLJob");
  EXPECT_EQ(crd["spec"]["names"]["plural"], "dgljobs");
  EXPECT_EQ(crd["spec"]["names"]["singular"], "dgljob");
  EXPECT_EQ(crd["spec"]["names"]["shortNames"], json::array({"dgl"}));
  ASSERT_EQ(crd["spec"]["versions"].size(), 1u);
  const json& version = crd["spec"]["versions"][0];
  EXPECT_EQ(version["name"], "v1alpha1");
  EXPECT_TRUE(version["storage"].get<bool>());
  EXPECT_TRUE(version["subresources"].contains("status"));
  EXPECT_EQ(version["schema"]["openAPIV3Schema"], DGLJobOpenApiSchema());
}

TEST(DGLJobCrdTest, CheckedInCrdYamlIsTheGeneratedCrd) {
  const std::string path = std::string(DGLSIM_SOURCE_DIR) + "/deploy/crd.yaml";
  json checked_in = testing::YamlToJson(YAML::LoadFile(path));
  EXPECT_EQ(checked_in, DGLJobCrd()) << path << " is stale: regenerate it with `dgl-operator crd > deploy/crd.yaml`";
}

}  // namespace
}  // namespace dgl
