// Shared helpers of the harness tests (runner, faults, expectations): a small scenario with one
// DGL-API job on generic annotation-driven programs, loaded from text, and a run of it.
#pragma once

#include "sim/harness/checks/expectations.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/run/runner.h"

#include <gtest/gtest.h>

#include <string>

namespace harness::testing {

// A scenario: 3 nodes with 4 GPUs each, job default/j (DGL-API, 2 one-GPU workers; launcher and
// workers run 10 min, the partitioner 1 min), backoffLimit 3. `faults` and `expect` are YAML list
// items (each line starting with "  - "), or "".
inline std::string SmallScenario(const std::string& faults, const std::string& expect, int seed = 5) {
  std::string text = R"(apiVersion: dglsim/v1
kind: Scenario
metadata: {name: small, description: one small DGL-API job}
seed: )" + std::to_string(seed) + R"(
until: 12h
cluster:
  nodes:
    - {name: n, count: 3, capacity: {cpu: "32", memory: 128Gi, nvidia.com/gpu: "4", ephemeral-storage: 1Ti}}
  images: {defaultSize: 1G}
jobs:
  - at: 0s
    inline:
      apiVersion: kubeflow.org/v1alpha1
      kind: DGLJob
      metadata: {name: j, namespace: default}
      spec:
        partitionMode: DGL-API
        runPolicy: {backoffLimit: 3}
        dglReplicaSpecs:
          Launcher:
            replicas: 1
            template:
              metadata: {annotations: {dglsim.io/duration: 10m}}
              spec:
                containers: [{name: main, image: dgloperator/graphsage:v1, command: [dglrun]}]
          Partitioner:
            replicas: 1
            template:
              metadata: {annotations: {dglsim.io/duration: 1m}}
              spec:
                containers: [{name: main, image: dgloperator/graphsage:v1, command: [dglrun]}]
          Worker:
            replicas: 2
            template:
              metadata: {annotations: {dglsim.io/duration: 10m}}
              spec:
                containers:
                  - name: main
                    image: dgloperator/graphsage:v1
                    resources: {limits: {nvidia.com/gpu: "1", cpu: "4", memory: 16Gi}}
)";
  if (!faults.empty()) text += "faults:\n" + faults;
  text += "expect:\n" + (expect.empty() ? std::string("  - {invariants: all}\n") : expect);
  return text;
}

inline Scenario Load(const std::string& text) {
  ScenarioLoad load = LoadScenarioString(text, "test.yaml", ".");
  std::string problems;
  for (const auto& p : load.problems) problems += p + "\n";
  EXPECT_TRUE(load.ok()) << problems;
  if (!load.ok()) return Scenario{};
  return *load.scenario;
}

inline std::string Timeline(const JobRecord& job) {
  std::string out;
  for (const auto& p : job.phases) out += p.phase + "@" + std::to_string(p.at / kube::kSecond) + "s ";
  return out;
}

}  // namespace harness::testing
