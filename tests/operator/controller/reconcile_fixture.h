// Shared by the reconciler and controller tests: a real fake API server on a ManualClock with DGLJob
// admission, job builders, and helpers that play kubelet by writing pod status directly.
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "fakeapi/server/store.h"
#include "operator/admission/dgljob_admission.h"
#include "operator/api/dgljob_api.h"
#include "operator/controller/builders.h"
#include "operator/controller/failure_policy.h"
#include "operator/controller/reconciler.h"
#include "tests/shared_examples.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace dgl::testing {

using json = kube::Json;

// YAML -> JSON with YAML 1.2 core-schema scalars: quoted scalars stay strings; plain scalars become
// null, booleans, integers or floats when they read as such.
inline json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(YamlToJson(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& item : node) out[item.first.as<std::string>()] = YamlToJson(item.second);
      return out;
    }
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted
  if (text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  json number = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (number.is_number()) return number;
  return text;
}

// An example manifest of the original operator, converted as the scenario loader does.
inline json LoadExample(const std::string& file) {
  json job = YamlToJson(YAML::LoadFile(::testing_shared::ExamplesDir() + file));
  ConvertLegacy(job);
  return job;
}

// A DGLJob "j" in namespace "ns".
inline json MakeJob(const std::string& mode, int workers, int num_servers = 1) {
  json launcher = {{"name", "main"},
                   {"image", "dgl:1"},
                   {"command", {"dglrun", "--num-servers", std::to_string(num_servers)}}};
  json worker = {{"name", "main"},
                 {"image", "dgl:1"},
                 {"resources", {{"limits", {{"cpu", "10"}, {"memory", "20Gi"}, {kGpuResource, "8"}}}}}};
  json replicas = {{"Launcher", {{"replicas", 1}, {"template", {{"spec", {{"containers", json::array({launcher})}}}}}}}};
  if (mode != "Skip") {
    replicas["Worker"] = {{"replicas", workers}, {"template", {{"spec", {{"containers", json::array({worker})}}}}}};
  }
  return {{"apiVersion", kApiVersion},
          {"kind", kKind},
          {"metadata", {{"name", "j"}, {"namespace", "ns"}}},
          {"spec", {{"partitionMode", mode}, {"dglReplicaSpecs", replicas}}}};
}

class ReconcileFixture : public ::testing::Test {
 protected:
  ReconcileFixture() : store_(fakeapi::StoreOptions{.clock = &clock_}), reader_(store_) {
    RegisterDGLJobAdmission(store_);
    EXPECT_TRUE(store_.Create("namespaces", {{"metadata", {{"name", "ns"}}}}).ok());
    EXPECT_TRUE(store_.Create("namespaces", {{"metadata", {{"name", "dgl-operator"}}}}).ok());
    store_.SetWriteObserver([this](const fakeapi::WriteRecord& w) {
      ++writes_;
      write_log_.push_back(std::string(w.verb) + " " + w.type->plural + " " + *w.key);
    });
    MakeReconciler();
  }

  void MakeReconciler(ReconcilerOptions options = {}) {
    reconciler_ = std::make_unique<Reconciler>(store_, clock_, reader_, std::move(options));
  }

  json CreateJob(json job) {
    auto r = store_.Create("dgljobs", std::move(job));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    key_ = kube::KeyOf(**r);
    return **r;
  }

  ReconcileResult Reconcile() {
    auto r = reconciler_->Reconcile(key_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r.value() : ReconcileResult{};
  }

  // Lets the current restart's back-off pass (RestartBackoff of status.restartCount): until then a
  // restart recreates nothing.
  void PassRestartBackoff() { clock_.Advance(RestartBackoff(Status().value("restartCount", std::int64_t{0}))); }

  // Writes made by one more Reconcile.
  int WritesOfReconcile() {
    const int before = writes_;
    Reconcile();
    return writes_ - before;
  }

  std::string Ns() const { return key_.substr(0, key_.find('/')); }
  std::string Name() const { return key_.substr(key_.find('/') + 1); }

  json Job() {
    auto r = store_.Get("dgljobs", Ns(), Name());
    return r.ok() ? **r : json();
  }
  json Status() { return Job().value("status", json::object()); }
  std::string Phase() { return Status().value("phase", ""); }

  json Condition(const std::string& type) {
    for (const json& c : Status().value("conditions", json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return json();
  }

  json Get(const std::string& resource, const std::string& name) {
    auto r = store_.Get(resource, Ns(), name);
    return r.ok() ? **r : json();
  }
  bool Exists(const std::string& resource, const std::string& name) { return !Get(resource, name).is_null(); }

  std::vector<std::string> Names(const std::string& resource) {
    kube::ListOptions o;
    o.namespace_ = Ns();
    auto r = store_.List(resource, o);
    std::vector<std::string> out;
    if (r.ok()) {
      for (const auto& item : r->items) out.push_back(kube::NameOf(*item));
    }
    return out;
  }

  // Plays kubelet: sets phase, IP and readiness of a pod.
  void SetPod(const std::string& pod, const std::string& phase, const std::string& ip = "", bool ready = true) {
    json obj = Get("pods", pod);
    ASSERT_FALSE(obj.is_null()) << "no pod " << pod;
    json& st = obj["status"];
    st["phase"] = phase;
    if (!ip.empty()) st["podIP"] = ip;
    st["conditions"] = json::array({{{"type", "Ready"}, {"status", phase == "Running" && ready ? "True" : "False"}}});
    if (phase == "Succeeded") {
      st["containerStatuses"] = json::array({{{"name", "main"}, {"state", {{"terminated", {{"exitCode", 0}}}}}}});
    }
    auto r = store_.UpdateStatus("pods", obj);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  void FailPod(const std::string& pod, int exit_code, const std::string& reason = "Error") {
    json obj = Get("pods", pod);
    ASSERT_FALSE(obj.is_null()) << "no pod " << pod;
    obj["status"]["phase"] = "Failed";
    obj["status"]["containerStatuses"] = json::array(
        {{{"name", "main"}, {"state", {{"terminated", {{"exitCode", exit_code}, {"reason", reason}}}}}}});
    auto r = store_.UpdateStatus("pods", obj);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  void PatchSpec(const json& patch) {
    auto r = store_.Patch("dgljobs", Ns(), Name(), {{"spec", patch}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::vector<json> Events() {
    kube::ListOptions o;
    o.namespace_ = Ns();
    auto r = store_.List("events", o);
    std::vector<json> out;
    if (r.ok()) {
      for (const auto& e : r->items) out.push_back(*e);
    }
    return out;
  }
  bool HasEvent(const std::string& reason) {
    for (const json& e : Events()) {
      if (e.value("reason", "") == reason) return true;
    }
    return false;
  }

  // Drives an SSP/SMP job to Training: partitioner succeeds, workers and launcher run.
  void DriveToTraining(int workers) {
    Reconcile();
    SetPod("j-partitioner", "Running", "10.0.0.2");
    Reconcile();
    SetPod("j-partitioner", "Succeeded", "10.0.0.2");
    Reconcile();
    for (int i = 0; i < workers; ++i) SetPod("j-worker-" + std::to_string(i), "Running", "10.0.1." + std::to_string(i));
    SetPod("j-launcher", "Running", "10.0.0.3");
    Reconcile();
  }

  kube::ManualClock clock_;
  fakeapi::Store store_;
  ClientReader reader_;
  std::unique_ptr<Reconciler> reconciler_;
  std::string key_ = "ns/j";
  int writes_ = 0;
  std::vector<std::string> write_log_;
};

}  // namespace dgl::testing
