// Protobuf request bodies (protobuf_body.h): the bytes kubectl 1.33 sends, as `kubectl -v=8`
// printed them, decode to the objects kubectl means; hand-built messages cover what kubectl does
// not send (pointers to zero, bytes, times, negative numbers); broken bodies are 400 and kinds the
// server cannot decode 415, never a crash; and over HTTP a protobuf write is the same write as JSON.
#include "fakeapi/server/protobuf_body.h"

#include "tests/fakeapi/server/http_test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace fakeapi {
namespace {

using json = kube::Json;
using namespace fakeapi::testing;

std::string FromHex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

// Builds protobuf messages field by field, for the cases kubectl never sends.
class ProtobufMessageBuilder {
 public:
  ProtobufMessageBuilder& Varint(int field, std::uint64_t v) {
    Raw(static_cast<std::uint64_t>(field) << 3);
    Raw(v);
    return *this;
  }
  ProtobufMessageBuilder& Bytes(int field, std::string_view v) {
    Raw(static_cast<std::uint64_t>(field) << 3 | 2);
    Raw(v.size());
    out_.append(v);
    return *this;
  }
  ProtobufMessageBuilder& Message(int field, const ProtobufMessageBuilder& m) { return Bytes(field, m.out_); }
  const std::string& bytes() const { return out_; }

 private:
  void Raw(std::uint64_t v) {
    do {
      char b = static_cast<char>(v & 0x7f);
      v >>= 7;
      if (v) b = static_cast<char>(b | 0x80);
      out_ += b;
    } while (v);
  }
  std::string out_;
};

using PB = ProtobufMessageBuilder;

// "k8s\x00" and a runtime.Unknown around `raw`.
std::string InEnvelope(const std::string& api_version, const std::string& kind, const PB& raw,
                       const std::string& content_encoding = "") {
  PB unknown;
  unknown.Message(1, PB().Bytes(1, api_version).Bytes(2, kind)).Bytes(2, raw.bytes());
  if (!content_encoding.empty()) unknown.Bytes(3, content_encoding);
  return std::string("k8s\0", 4) + unknown.bytes();
}

json Decoded(std::string_view body) {
  auto r = DecodeProtobufBody(body);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : json();
}

// kubectl 1.33 -v=8, "Request Body" of each command (against `dglsim serve`).
constexpr std::string_view kAuthCanICreatePods =
    "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577"
    "123f0a100a0012001a0022002a0032003800420012210a1f0a0764656661756c7412066372656174651a0022002a04706f647332003a001a"
    "08080012001a0020001a002200";
constexpr std::string_view kAuthCanIList =
    "6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c657352657669657712"
    "230a100a0012001a0022002a0032003800420012090a0764656661756c741a04180022001a002200";
constexpr std::string_view kCreateConfigMap =
    "6b3873000a0f0a0276311209436f6e6669674d617012250a130a03636d7812001a0022002a0032003800420012060a016112016212060a01"
    "631201641a002200";
constexpr std::string_view kCreateNamespace =
    "6b3873000a0f0a02763112094e616d657370616365121b0a130a036e737812001a0022002a0032003800420012001a020a001a002200";
constexpr std::string_view kCreateServiceAccount =
    "6b3873000a140a027631120e536572766963654163636f756e7412150a130a0373617812001a0022002a003200380042001a002200";
constexpr std::string_view kCreateRole =
    "6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512290a120a02727812001a002200"
    "2a0032003800420012130a036765740a046c69737412001a04706f64731a002200";
constexpr std::string_view kCreateClusterRoleBinding =
    "6b3873000a320a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311212436c7573746572526f6c6542696e64696e67"
    "128f010a140a046372627812001a0022002a0032003800420012260a04557365721219726261632e617574686f72697a6174696f6e2e6b38"
    "732e696f1a0175220012200a0e536572766963654163636f756e7412001a03736178220764656661756c741a2d0a19726261632e61757468"
    "6f72697a6174696f6e2e6b38732e696f120b436c7573746572526f6c651a036372781a002200";
constexpr std::string_view kCreateServiceClusterIp =
    "6b3873000a0d0a02763112075365727669636512690a1f0a0373767812001a0022002a003200380042005a0a0a0361707012037376781242"
    "0a1b0a0738302d38303830120354435018502207080010903f1a002800120a0a0361707012037376781a002209436c757374657249503a00"
    "420052005a00600068001a020a001a002200";

TEST(ProtobufBodyTest, KubectlsAuthCanIReviewsDecodeToTheirJson) {
  EXPECT_EQ(Decoded(FromHex(kAuthCanICreatePods)),
            json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{},
                            "spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}}})"));
  EXPECT_EQ(Decoded(FromHex(kAuthCanIList)),
            json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","metadata":{},
                            "spec":{"namespace":"default"}})"));
}

TEST(ProtobufBodyTest, KubectlsTypedCreatesDecodeToTheirJson) {
  EXPECT_EQ(Decoded(FromHex(kCreateConfigMap)),
            json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cmx"},"data":{"a":"b","c":"d"}})"));
  EXPECT_EQ(Decoded(FromHex(kCreateNamespace)),
            json::parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"nsx"},"spec":{}})"));
  EXPECT_EQ(Decoded(FromHex(kCreateServiceAccount)),
            json::parse(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sax"}})"));
  // A repeated string keeps its empty members: apiGroups [""] is the core group.
  EXPECT_EQ(Decoded(FromHex(kCreateRole)),
            json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"rx"},
                            "rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})"));
  EXPECT_EQ(Decoded(FromHex(kCreateClusterRoleBinding)),
            json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"crbx"},
                            "subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"},
                                        {"kind":"ServiceAccount","name":"sax","namespace":"default"}],
                            "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"crx"}})"));
  // targetPort is an IntOrString holding an int; nodePort 0 and the empty strings are left out.
  EXPECT_EQ(Decoded(FromHex(kCreateServiceClusterIp)),
            json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"svx","labels":{"app":"svx"}},
                            "spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080}],
                                    "selector":{"app":"svx"},"type":"ClusterIP"}})"));
}

TEST(ProtobufBodyTest, PointersKeepZeroValuesAndBytesTimesAndNumbersMapAsGoRendersThem) {
  PB meta = PB().Bytes(1, "c").Message(8, PB().Varint(1, 1767225600).Varint(2, 0));
  PB entry = PB().Bytes(1, "blob").Bytes(2, std::string("\x00\xff\x10", 3));
  PB config = PB().Message(1, meta).Varint(4, 0).Message(3, entry);
  EXPECT_EQ(Decoded(InEnvelope("v1", "ConfigMap", config)),
            json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","immutable":false,"binaryData":{"blob":"AP8Q"},
                            "metadata":{"name":"c","creationTimestamp":"2026-01-01T00:00:00Z"}})"));
  // A MicroTime keeps its microseconds; an int32 of -1 arrives as a ten-byte varint.
  PB renew = PB().Varint(1, 1767225600).Varint(2, 123456000);
  PB spec = PB().Bytes(1, "a").Varint(2, static_cast<std::uint64_t>(-1)).Message(4, renew).Varint(5, 0);
  EXPECT_EQ(Decoded(InEnvelope("coordination.k8s.io/v1", "Lease", PB().Message(1, PB().Bytes(1, "l")).Message(2, spec))),
            json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},
                            "spec":{"holderIdentity":"a","leaseDurationSeconds":-1,
                                    "renewTime":"2026-01-01T00:00:00.123456Z","leaseTransitions":0}})"));
  // DeleteOptions in any group version: gracePeriodSeconds 0 is "now", not "unset".
  PB options = PB().Varint(1, 0).Bytes(4, "Foreground").Bytes(5, "All").Message(2, PB().Bytes(1, "u-1"));
  EXPECT_EQ(Decoded(InEnvelope("rbac.authorization.k8s.io/v1", "DeleteOptions", options)),
            json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"DeleteOptions","gracePeriodSeconds":0,
                            "propagationPolicy":"Foreground","dryRun":["All"],"preconditions":{"uid":"u-1"}})"));
  // An IntOrString holding a string; fields the decoder does not know are skipped.
  PB port = PB().Varint(3, 80).Message(4, PB().Varint(1, 1).Bytes(3, "http")).Varint(99, 7).Bytes(98, "x");
  EXPECT_EQ(Decoded(InEnvelope("v1", "Service", PB().Message(2, PB().Message(1, port))))["spec"]["ports"][0],
            json::parse(R"({"port":80,"targetPort":"http"})"));
}

TEST(ProtobufBodyTest, KubectlCreateTokensTokenRequestDecodes) {
  // `kubectl create token sa --audience a --duration 20m`: the spec only (kubectl sends no status).
  PB spec = PB().Bytes(1, "a").Varint(4, 1200);
  EXPECT_EQ(Decoded(InEnvelope("authentication.k8s.io/v1", "TokenRequest", PB().Message(1, PB()).Message(2, spec))),
            json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{},
                            "spec":{"audiences":["a"],"expirationSeconds":1200}})"));
}

TEST(ProtobufBodyTest, BrokenBodiesAre400AndKindsItCannotDecode415) {
  auto code = [](std::string_view body) {
    auto r = DecodeProtobufBody(body);
    return r.ok() ? 200 : r.status().code();
  };
  EXPECT_EQ(code("{\"kind\":\"ConfigMap\"}"), 400);
  EXPECT_EQ(code(std::string("k8s\0\x0a\xff", 6)), 400);  // a length past the end
  EXPECT_EQ(code(InEnvelope("v1", "ConfigMap", PB().Varint(1, 5))), 400);  // metadata as a varint
  EXPECT_EQ(code(InEnvelope("v1", "ConfigMap", PB().Message(1, PB().Bytes(1, "\xff\xfe")))), 400);  // not UTF-8
  EXPECT_EQ(code(InEnvelope("v1", "ConfigMap", PB().Message(1, PB().Message(8, PB().Varint(1, 1ULL << 40))))), 400);
  EXPECT_EQ(code(InEnvelope("v1", "ConfigMap", PB(), "gzip")), 415);
  auto pod = DecodeProtobufBody(InEnvelope("v1", "Pod", PB().Message(1, PB().Bytes(1, "p"))));
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.status().code(), 415);
  EXPECT_NE(pod.status().message().find("only for authorization.k8s.io/v1 SelfSubjectAccessReview"), std::string::npos);
  EXPECT_NE(pod.status().message().find("not v1 Pod"), std::string::npos) << pod.status().message();
}

TEST(ProtobufBodyTest, EveryTruncationAndEveryFlippedByteIsAnAnswerNeverACrash) {
  for (std::string_view hex : {kCreateServiceClusterIp, kCreateClusterRoleBinding, kAuthCanICreatePods}) {
    const std::string body = FromHex(hex);
    for (std::size_t n = 0; n < body.size(); ++n) {
      auto r = DecodeProtobufBody(std::string_view(body).substr(0, n));
      EXPECT_TRUE(r.ok() || r.status().code() == 400 || r.status().code() == 415) << n;
    }
    for (std::size_t i = 0; i < body.size(); ++i) {
      std::string flipped = body;
      flipped[i] = static_cast<char>(flipped[i] ^ 0xff);
      auto r = DecodeProtobufBody(flipped);
      EXPECT_TRUE(r.ok() || r.status().code() == 400 || r.status().code() == 415) << i;
      if (r.ok()) {
        EXPECT_NO_THROW((void)r->dump());
      }
    }
  }
}

class ProtobufHttpTest : public HttpServerTest {
 protected:
  httplib::Result PostProtobuf(const std::string& path, std::string_view hex_or_bytes, bool hex = true) {
    const std::string body = hex ? FromHex(hex_or_bytes) : std::string(hex_or_bytes);
    return client->Post(path.c_str(), {{"Accept", "application/vnd.kubernetes.protobuf,application/json"}}, body,
                        kProtobufContentType);
  }
};

TEST_F(ProtobufHttpTest, AuthCanIAsKubectl133SendsItIsAnsweredInJson) {
  auto r = PostProtobuf("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", kAuthCanICreatePods);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json; charset=utf-8");
  EXPECT_EQ(Body(r)["status"]["allowed"], true);
  EXPECT_EQ(Body(r)["spec"]["resourceAttributes"]["resource"], "pods");
  auto rules = PostProtobuf("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", kAuthCanIList);
  ASSERT_EQ(rules->status, 201) << rules->body;
  EXPECT_EQ(Body(rules)["status"]["resourceRules"][0]["verbs"][0], "*");
}

// kubectl 1.32 and later send `auth whoami`'s SelfSubjectReview as protobuf: these are the bytes
// kubectl 1.33 printed with -v=8 (an empty metadata and an empty status, which is not read).
TEST_F(ProtobufHttpTest, AuthWhoamiAsProtobufIsAnswered) {
  constexpr std::string_view kAuthWhoami =
      "6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a"
      "100a0012001a0022002a0032003800420012060a040a0012001a002200";
  EXPECT_EQ(Decoded(FromHex(kAuthWhoami)),
            json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","metadata":{}})"));
  auto r = PostProtobuf("/apis/authentication.k8s.io/v1/selfsubjectreviews", kAuthWhoami);
  ASSERT_EQ(r->status, 201) << r->body;
  EXPECT_EQ(Body(r)["status"]["userInfo"]["username"], "system:anonymous");
}

TEST_F(ProtobufHttpTest, AProtobufCreateStoresWhatTheJsonOneWouldAndDeleteOptionsMayBeProtobuf) {
  auto r = PostProtobuf("/api/v1/namespaces/default/configmaps", kCreateConfigMap);
  ASSERT_EQ(r->status, 201) << r->body;
  auto got = client->Get("/api/v1/namespaces/default/configmaps/cmx");
  ASSERT_EQ(got->status, 200);
  EXPECT_EQ(Body(got)["data"], json::parse(R"({"a":"b","c":"d"})"));
  ASSERT_EQ(PostProtobuf("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", kCreateClusterRoleBinding)->status, 201);
  EXPECT_EQ(Body(client->Get("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/crbx"))["subjects"][1]["name"], "sax");
  // A dry-run delete whose options come as protobuf deletes nothing.
  const std::string dry = InEnvelope("v1", "DeleteOptions", PB().Bytes(5, "All"));
  auto deleted = client->Delete("/api/v1/namespaces/default/configmaps/cmx", dry, kProtobufContentType);
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  EXPECT_EQ(client->Get("/api/v1/namespaces/default/configmaps/cmx")->status, 200);
  // A pod in protobuf is refused with the kinds that are decoded, and nothing is stored.
  const std::string pod = InEnvelope("v1", "Pod", PB().Message(1, PB().Bytes(1, "p")));
  ExpectStatus(PostProtobuf("/api/v1/namespaces/default/pods", pod, false), 415, "UnsupportedMediaType");
  ExpectStatus(client->Get("/api/v1/namespaces/default/pods/p"), 404, "NotFound");
}

}  // namespace
}  // namespace fakeapi
