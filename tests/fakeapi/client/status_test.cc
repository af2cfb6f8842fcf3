// Tests of Status: codes, reasons and messages as kube-apiserver writes them, and the round trip
// through the metav1.Status JSON form.
#include "fakeapi/client/status.h"

#include <gtest/gtest.h>

namespace kube {
namespace {

TEST(StatusTest, DefaultIsOkWithCode200AndNoReason) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), 200);
  EXPECT_EQ(s.reason(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, NotFoundReadsLikeKubeApiserver) {
  Status s = Status::NotFound("pods", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), 404);
  EXPECT_EQ(s.reason(), "NotFound");
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_FALSE(s.IsConflict());
  EXPECT_EQ(s.message(), "pods \"x\" not found");
  EXPECT_EQ(s.ToString(), "404 NotFound: pods \"x\" not found");
}

TEST(StatusTest, AlreadyExistsIs409WithItsOwnReason) {
  Status s = Status::AlreadyExists("pods", "x");
  EXPECT_EQ(s.code(), 409);
  EXPECT_TRUE(s.IsAlreadyExists());
  EXPECT_FALSE(s.IsConflict());
  EXPECT_EQ(s.message(), "pods \"x\" already exists");
}

TEST(StatusTest, ConflictNamesTheObjectAndTheReason) {
  Status s = Status::Conflict("pods", "x",
                              "the object has been modified; please apply your changes to the latest version and try again");
  EXPECT_EQ(s.code(), 409);
  EXPECT_TRUE(s.IsConflict());
  EXPECT_EQ(s.message(),
            "Operation cannot be fulfilled on pods \"x\": the object has been modified; please apply your changes to "
            "the latest version and try again");
}

TEST(StatusTest, InvalidWithOneCauseNamesFieldAndMessage) {
  Status s = Status::Invalid("DGLJob.kubeflow.org", "j",
                             {{"FieldValueInvalid", "spec.x", "Invalid value: 0: must be >= 1"}});
  EXPECT_EQ(s.code(), 422);
  EXPECT_TRUE(s.IsInvalid());
  EXPECT_EQ(s.message(), "DGLJob.kubeflow.org \"j\" is invalid: spec.x: Invalid value: 0: must be >= 1");
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].field, "spec.x");
}

TEST(StatusTest, InvalidWithSeveralCausesJoinsThemWithCommas) {
  Status s = Status::Invalid("DGLJob.kubeflow.org", "j",
                             {{"FieldValueInvalid", "spec.a", "Invalid value: 0: must be >= 1"},
                              {"FieldValueRequired", "spec.b", "Required value"}});
  EXPECT_EQ(s.message(),
            "DGLJob.kubeflow.org \"j\" is invalid: [spec.a: Invalid value: 0: must be >= 1, spec.b: Required value]");
  EXPECT_EQ(s.causes().size(), 2u);
}

TEST(StatusTest, EachFactoryHasTheKubernetesCodeAndReason) {
  struct Case {
    Status status;
    int code;
    const char* reason;
  };
  const Case cases[] = {
      {Status::Expired("too old resource version: 1 (5)"), 410, "Expired"},
      {Status::BadRequest("bad"), 400, "BadRequest"},
      {Status::Forbidden("no"), 403, "Forbidden"},
      {Status::MethodNotAllowed("no"), 405, "MethodNotAllowed"},
      {Status::Timeout("slow"), 504, "Timeout"},
      {Status::Internal("boom"), 500, "InternalError"},
      {Status::TooLarge("big"), 413, "RequestEntityTooLarge"},
      {Status::UnsupportedMediaType("yaml?"), 415, "UnsupportedMediaType"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.status.ok()) << c.reason;
    EXPECT_EQ(c.status.code(), c.code) << c.reason;
    EXPECT_EQ(c.status.reason(), c.reason);
  }
  EXPECT_TRUE(Status::Expired("x").IsExpired());
  EXPECT_EQ(Status::Expired("too old resource version: 1 (5)").message(), "too old resource version: 1 (5)");
  EXPECT_EQ(Status::Internal("boom").message(), "Internal error occurred: boom");
}

TEST(StatusTest, ToJsonIsAMetav1StatusWithDetails) {
  json j = Status::NotFound("dgljobs.kubeflow.org", "j").ToJson();
  EXPECT_EQ(j["kind"], "Status");
  EXPECT_EQ(j["apiVersion"], "v1");
  EXPECT_EQ(j["metadata"], json::object());
  EXPECT_EQ(j["status"], "Failure");
  EXPECT_EQ(j["message"], "dgljobs.kubeflow.org \"j\" not found");
  EXPECT_EQ(j["reason"], "NotFound");
  EXPECT_EQ(j["code"], 404);
  EXPECT_EQ(j["details"]["name"], "j");
  EXPECT_EQ(j["details"]["kind"], "dgljobs");
  EXPECT_EQ(j["details"]["group"], "kubeflow.org");
}

TEST(StatusTest, CoreResourceDetailsHaveNoGroup) {
  json j = Status::NotFound("pods", "x").ToJson();
  EXPECT_EQ(j["details"]["kind"], "pods");
  EXPECT_FALSE(j["details"].contains("group"));
}

TEST(StatusTest, ToJsonWritesCausesWithTypeAsReason) {
  json j = Status::Invalid("DGLJob.kubeflow.org", "j", {{"FieldValueInvalid", "spec.x", "Invalid value: 0"}}).ToJson();
  ASSERT_TRUE(j["details"]["causes"].is_array());
  EXPECT_EQ(j["details"]["causes"][0], (json{{"reason", "FieldValueInvalid"},
                                              {"message", "Invalid value: 0"},
                                              {"field", "spec.x"}}));
  EXPECT_EQ(j["details"]["kind"], "DGLJob");
  EXPECT_EQ(j["details"]["group"], "kubeflow.org");
}

TEST(StatusTest, OkToJsonIsSuccess) {
  json j = Status::Ok().ToJson();
  EXPECT_EQ(j["status"], "Success");
  EXPECT_EQ(j["code"], 200);
  EXPECT_TRUE(Status::FromJson(j).ok());
}

TEST(StatusTest, FromJsonInvertsToJson) {
  Status original = Status::Invalid("DGLJob.kubeflow.org", "j",
                                    {{"FieldValueInvalid", "spec.a", "Invalid value: 0"},
                                     {"FieldValueRequired", "spec.b", "Required value"}});
  Status back = Status::FromJson(original.ToJson());
  EXPECT_EQ(back.code(), 422);
  EXPECT_EQ(back.reason(), "Invalid");
  EXPECT_EQ(back.message(), original.message());
  EXPECT_EQ(back.causes(), original.causes());
  EXPECT_EQ(back.ToJson(), original.ToJson());

  Status conflict = Status::Conflict("pods", "x", "why");
  EXPECT_EQ(Status::FromJson(conflict.ToJson()).ToJson(), conflict.ToJson());
}

TEST(StatusTest, FromJsonFillsAMissingCodeFromTheReason) {
  Status s = Status::FromJson(json{{"kind", "Status"}, {"status", "Failure"}, {"reason", "NotFound"}, {"message", "m"}});
  EXPECT_EQ(s.code(), 404);
  EXPECT_TRUE(s.IsNotFound());
}

TEST(StatusTest, FromJsonNeverTurnsGarbageIntoOk) {
  EXPECT_FALSE(Status::FromJson(json("not a status")).ok());
  EXPECT_FALSE(Status::FromJson(json::array({1, 2})).ok());
  EXPECT_FALSE(Status::FromJson(json{{"status", "Failure"}, {"code", 200}}).ok());
  Status s = Status::FromJson(json{{"status", "Failure"}, {"details", {{"causes", "not a list"}}}, {"code", "x"}});
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.causes().empty());
}

TEST(ResultTest, CarriesAValueOrAStatus) {
  Result<int> good = 7;
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  Result<int> bad = Status::NotFound("pods", "x");
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsNotFound());
}

}  // namespace
}  // namespace kube
