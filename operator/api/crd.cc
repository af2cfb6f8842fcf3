#include "operator/api/crd.h"

#include "operator/api/types.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dgl {

using json = kube::Json;

namespace {

template <std::size_t N>
json EnumValues(const char* const (&values)[N]) {
  json out = json::array();
  for (const char* v : values) out.push_back(v);
  return out;
}

json IntAtLeastSchema(std::int64_t minimum, const std::string& description) {
  return {{"type", "integer"}, {"format", "int64"}, {"minimum", minimum}, {"description", description}};
}

json StringArraySchema() { return {{"type", "array"}, {"items", {{"type", "string"}}}}; }

// A container as ValidateContainer checks it; everything else a Pod allows is preserved as is.
json ContainerSchema() {
  json gpu = {{"x-kubernetes-int-or-string", true},
              {"pattern", "^[0-9]+$"},
              {"description", "whole, non-negative number of GPUs"}};
  json quantities = {{"type", "object"},
                     {"x-kubernetes-preserve-unknown-fields", true},
                     {"properties", {{kGpuResource, gpu}}}};
  return {{"type", "object"},
          {"required", json::array({"name", "image"})},
          {"x-kubernetes-preserve-unknown-fields", true},
          {"properties",
           {{"name", {{"type", "string"}, {"maxLength", 63}, {"pattern", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}}},
            {"image", {{"type", "string"}, {"minLength", 1}}},
            {"command", StringArraySchema()},
            {"args", StringArraySchema()},
            {"resources",
             {{"type", "object"},
              {"x-kubernetes-preserve-unknown-fields", true},
              {"properties", {{"limits", quantities}, {"requests", quantities}}}}}}}};
}

json ReplicaSchema(const char* type) {
  json replicas = {{"type", "integer"}, {"format", "int32"}};
  std::vector<std::string> required = {"template"};
  if (std::string_view(type) == kReplicaLauncher) {
    replicas["minimum"] = 1;
    replicas["maximum"] = 1;
    replicas["default"] = 1;
    replicas["description"] = "must be 1";
  } else if (std::string_view(type) != kReplicaPartitioner) {
    replicas["minimum"] = 1;
    replicas["description"] = "number of " + std::string(type) + " pods, >= 1";
    required.push_back("replicas");
  } else {
    replicas["minimum"] = 0;
    replicas["maximum"] = 1;
    replicas["description"] = "0 or 1";
  }
  json containers = {{"type", "array"}, {"minItems", 1}, {"items", ContainerSchema()}};
  json init_containers = {{"type", "array"}, {"items", ContainerSchema()}};
  json pod_template = {
      {"type", "object"},
      {"required", json::array({"spec"})},
      {"properties",
       {{"metadata", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
        {"spec",
         {{"type", "object"},
          {"required", json::array({"containers"})},
          {"x-kubernetes-preserve-unknown-fields", true},
          {"properties", {{"containers", containers}, {"initContainers", init_containers}}}}}}}};
  return {{"type", "object"},
          {"required", required},
          {"properties",
           {{"replicas", replicas},
            {"restartPolicy",
             {{"type", "string"}, {"enum", EnumValues(kRestartPolicies)}, {"default", kDefaultRestartPolicy}}},
            {"template", pod_template}}}};
}

}  // namespace

kube::Json DGLJobOpenApiSchema() {
  json scheduling = {
      {"type", "object"},
      {"properties",
       {{"minAvailable", IntAtLeastSchema(1, "gang size; at most the number of pods of the job")},
        {"queue", {{"type", "string"}}},
        {"priorityClass", {{"type", "string"}, {"minLength", 1}}},
        {"scheduleTimeoutSeconds", IntAtLeastSchema(1, "fail the job when pods stay unschedulable this long")}}}};
  json run_policy = {
      {"type", "object"},
      {"properties",
       {{"cleanPodPolicy",
         {{"type", "string"}, {"enum", EnumValues(kCleanPodPolicies)}, {"default", kDefaultCleanPodPolicy}}},
        {"ttlSecondsAfterFinished", IntAtLeastSchema(0, "delete the job this long after it finished")},
        {"activeDeadlineSeconds", IntAtLeastSchema(1, "fail the job when it runs longer")},
        {"backoffLimit", IntAtLeastSchema(0, "restarts of a failed stage before the job fails")},
        {"suspend", {{"type", "boolean"}, {"default", false}}},
        {"schedulingPolicy", scheduling}}}};
  run_policy["properties"]["backoffLimit"]["default"] = kDefaultBackoffLimit;
  json replica_specs = {{"type", "object"}, {"required", json::array({kReplicaLauncher})}, {"properties", json::object()}};
  for (const char* type : kReplicaTypes) replica_specs["properties"][type] = ReplicaSchema(type);
  json spec = {
      {"type", "object"},
      {"required", json::array({"dglReplicaSpecs"})},
      {"properties",
       {{"partitionMode",
         {{"type", "string"}, {"enum", EnumValues(kPartitionModes)}, {"default", ToString(PartitionMode::kDglApi)}}},
        {"partitionerPlacement",
         {{"type", "string"},
          {"enum", EnumValues(kPartitionerPlacements)},
          {"default", kPlacementPod},
          {"description",
           "where the partitioner of DGL-API and ParMETIS runs: Pod (its own pod) or LauncherInit (the launcher's "
           "init container, which then asks for the partitioner's CPU and memory for the whole job)"}}},
        {"slotsPerWorker", IntAtLeastSchema(1, "default: the Worker container's nvidia.com/gpu limit, else 1")},
        {"numServers", IntAtLeastSchema(1, "DGL servers per worker; default: --num-servers of the launcher, else 1")},
        // Listed only so that the rule below can refuse it instead of pruning it silently.
        {"cleanPodPolicy",
         {{"type", "string"}, {"description", std::string("moved to spec.runPolicy.cleanPodPolicy in ") + kApiVersion}}},
        {"runPolicy", run_policy},
        {"dglReplicaSpecs", replica_specs}}},
      {"x-kubernetes-validations",
       json::array({{{"rule", "!has(self.cleanPodPolicy)"},
         {"message", std::string("spec.cleanPodPolicy moved to spec.runPolicy.cleanPodPolicy in ") + kApiVersion}},
        {{"rule", "(has(self.partitionMode) && self.partitionMode == 'Skip') || has(self.dglReplicaSpecs.Worker) || "
                  "(has(self.dglReplicaSpecs.Server) && has(self.dglReplicaSpecs.Trainer))"},
         {"message", "spec.dglReplicaSpecs needs Worker, or Server and Trainer, unless partitionMode is Skip"}},
        {{"rule", "!(has(self.partitionMode) && self.partitionMode == 'Skip') || !(has(self.dglReplicaSpecs.Server) || "
                  "has(self.dglReplicaSpecs.Sampler) || has(self.dglReplicaSpecs.Trainer))"},
         {"message", "partitionMode Skip runs the launcher alone: no Server, Sampler or Trainer"}},
        {{"rule", "!has(self.partitionerPlacement) || self.partitionerPlacement == 'Pod' || !has(self.partitionMode) || "
                  "self.partitionMode == 'DGL-API' || self.partitionMode == 'ParMETIS'"},
         {"message", "partitionerPlacement LauncherInit needs a partitioner: partitionMode DGL-API or ParMETIS"}}})}};
  return {{"type", "object"},
          {"required", json::array({"spec"})},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"metadata",
             {{"type", "object"},
              {"properties",
               {{"name", {{"type", "string"}, {"maxLength", 63}, {"pattern", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}}}}}}},
            {"spec", spec},
            // Written by the operator only; kept whole.
            {"status", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}};
}

kube::Json DGLJobCrd() {
  json columns = json::array({
      {{"name", "Phase"}, {"type", "string"}, {"jsonPath", ".status.phase"}},
      {{"name", "Mode"}, {"type", "string"}, {"jsonPath", ".spec.partitionMode"}},
      {{"name", "Workers"}, {"type", "integer"}, {"jsonPath", ".spec.dglReplicaSpecs.Worker.replicas"}},
      {{"name", "Restarts"}, {"type", "integer"}, {"jsonPath", ".status.restartCount"}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
  json version = {{"name", "v1alpha1"},
                  {"served", true},
                  {"storage", true},
                  {"subresources", {{"status", json::object()}}},
                  {"additionalPrinterColumns", columns},
                  {"schema", {{"openAPIV3Schema", DGLJobOpenApiSchema()}}}};
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "dgljobs.kubeflow.org"}}},
          {"spec",
           {{"group", "kubeflow.org"},
            {"scope", "Namespaced"},
            {"names",
             {{"kind", kKind},
              {"listKind", "DGLJobList"},
              {"plural", "dgljobs"},
              {"singular", "dgljob"},
              {"shortNames", json::array({"dgl"})}}},
            {"versions", json::array({version})}}}};
}

}  // namespace dgl
