// kube::Json (fakeapi/client/json.h) against nlohmann::json, whose std::map it replaces, and the
// members' lookup (a scan or a binary search by size; through kube::Member, nlohmann's find,
// count, contains, value and operator[]) against std::map's: the same members in the same order,
// the same text, the same answers, for keys that share prefixes and UTF-8 bytes above 0x7f.
#include "fakeapi/client/client.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/json_path.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace kube {
namespace {

// Keys that sort close together: prefixes of each other, the empty key, UTF-8 bytes above 0x7f
// (which sort differently as signed and unsigned chars).
std::vector<std::string> TrickyKeys() {
  return {"",          "n",    "name",   "namespace", "names",  "nam",         "metadata",
          "meta",      "spec", "status", "a",         "\x7f",   "\xc3\xa9",    "\xc3\xa9t\xc3\xa9",
          "\xe2\x82\xac", "Z",    "z",      "uid",       "uids",   "resourceVersion"};
}

// The same random document built into both representations, members inserted in random order.
template <class J>
J RandomDocument(std::mt19937_64& rng, const std::vector<std::string>& keys, int depth) {
  J obj = J::object();
  const int members = static_cast<int>(rng() % keys.size());
  for (int i = 0; i < members; ++i) {
    const std::string& key = keys[rng() % keys.size()];
    switch (depth > 0 ? rng() % 4 : rng() % 2) {
      case 0: obj[key] = static_cast<std::int64_t>(rng() % 1000); break;
      case 1: obj[key] = key + "-value"; break;
      case 2: obj[key] = RandomDocument<J>(rng, keys, depth - 1); break;
      default: obj[key] = J::array({RandomDocument<J>(rng, keys, depth - 1), 1, "x"}); break;
    }
  }
  return obj;
}

TEST(KubeJson, IteratesAndPrintsMembersInStdMapOrder) {
  const std::vector<std::string> keys = TrickyKeys();
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 a(seed), b(seed);
    const nlohmann::json reference = RandomDocument<nlohmann::json>(a, keys, 3);
    const Json flat = RandomDocument<Json>(b, keys, 3);
    ASSERT_EQ(flat.dump(), reference.dump()) << "seed " << seed;
    std::vector<std::string> flat_order, reference_order;
    for (const auto& [key, value] : flat.items()) flat_order.push_back(key);
    for (const auto& [key, value] : reference.items()) reference_order.push_back(key);
    EXPECT_EQ(flat_order, reference_order) << "seed " << seed;
    // Parsing the text back gives an equal document.
    EXPECT_EQ(Json::parse(reference.dump()), flat) << "seed " << seed;
  }
}

TEST(KubeJson, EraseAndMergePatchBehaveAsWithStdMap) {
  const std::vector<std::string> keys = TrickyKeys();
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    std::mt19937_64 a(seed), b(seed);
    nlohmann::json reference = RandomDocument<nlohmann::json>(a, keys, 2);
    Json flat = RandomDocument<Json>(b, keys, 2);
    std::mt19937_64 pa(seed * 7919), pb(seed * 7919);
    nlohmann::json patch_reference = RandomDocument<nlohmann::json>(pa, keys, 2);
    Json patch_flat = RandomDocument<Json>(pb, keys, 2);
    patch_reference[keys[seed % keys.size()]] = nullptr;  // a member the patch removes
    patch_flat[keys[seed % keys.size()]] = nullptr;
    reference.merge_patch(patch_reference);
    flat.merge_patch(patch_flat);
    reference.erase(keys[(seed * 3) % keys.size()]);
    flat.erase(keys[(seed * 3) % keys.size()]);
    EXPECT_EQ(flat.dump(), reference.dump()) << "seed " << seed;
  }
}

// MakeObject gives the initializer-list form's object, and moves rvalues in.
TEST(KubeJson, MakeObjectIsTheInitializerListObject) {
  const kube::Json nested = {{"medium", "Memory"}, {"sizeLimit", "1Gi"}};
  const std::string name = "shm-volume";
  kube::Json moved_from = kube::Json::array({1, 2, 3});
  // Keys out of order, every kind of value, a repeated key.
  const kube::Json made = kube::MakeObject("zeta", 1, "name", name, "emptyDir", nested, "items", std::move(moved_from),
                                           "flag", true, std::string("mode"), 0444, "name", "second");
  const kube::Json listed = {{"zeta", 1},     {"name", name},  {"emptyDir", nested}, {"items", {1, 2, 3}},
                             {"flag", true}, {"mode", 0444}, {"name", "second"}};
  EXPECT_EQ(made, listed);
  EXPECT_EQ(made.dump(), listed.dump());
  EXPECT_EQ(made["name"], name);  // the first of a repeated key, as the initializer list keeps it
  EXPECT_EQ(made.size(), 6u);
  EXPECT_TRUE(moved_from.is_null() || moved_from.empty());  // an rvalue is moved in, not copied
  const kube::Json empty = kube::MakeObject();
  EXPECT_TRUE(empty.is_object());
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(kube::MakeObject("a", kube::MakeObject("b", "c")).dump(), R"({"a":{"b":"c"}})");
}

// Structural sharing (FlatMembers' counted blocks): a copy of a sealed value shares its objects'
// members until it writes; a write, through any non-const access, reaches only the writer.
// Where a member lives: the same address in two values when they share the members holding it.
const Json* At(const Json& obj, const char* key) { return Member(obj, key); }

TEST(KubeJsonSharing, ACopyOfASealedValueSharesItsMembersAndAnUnsealedOneDoesNot) {
  Json doc = {{"metadata", {{"name", "p"}, {"labels", {{"a", "1"}}}}}, {"spec", {{"containers", {{{"name", "c"}}}}}}};
  const Json unsealed_copy = doc;
  EXPECT_NE(At(unsealed_copy, "spec"), At(doc, "spec"));  // members copied: a reference into doc may still write
  SealTree(doc);
  const Json copy = doc;
  EXPECT_EQ(At(copy, "spec"), At(doc, "spec"));  // the same members, not a copy of them
  EXPECT_EQ(At(*At(copy, "spec"), "containers"), At(*At(doc, "spec"), "containers"));
  EXPECT_EQ(At(*At(*At(copy, "metadata"), "labels"), "a"), At(*At(*At(doc, "metadata"), "labels"), "a"));
  EXPECT_EQ(copy, doc);
  // ShareObject seals what it makes immutable.
  ObjectPtr shared = ShareObject(Json(doc));
  Json from_shared = *shared;
  EXPECT_EQ(At(std::as_const(from_shared), "metadata"), At(*shared, "metadata"));
}

TEST(KubeJsonSharing, WritesToACopyNeverReachTheOriginal) {
  const std::vector<std::string> keys = TrickyKeys();
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 a(seed), b(seed);
    nlohmann::json reference = RandomDocument<nlohmann::json>(a, keys, 3);
    Json original = RandomDocument<Json>(b, keys, 3);
    SealTree(original);
    const std::string before = original.dump();
    Json copy = original;
    // Every kind of write: a member set deep inside, one erased, a merge patch, an iterator's value,
    // a reference kept across another copy and written after it.
    std::mt19937_64 w(seed * 31);
    const std::string& k1 = keys[w() % keys.size()];
    const std::string& k2 = keys[w() % keys.size()];
    if (std::as_const(copy).contains(k1) && std::as_const(copy).at(k1).is_object()) {
      copy[k1]["deep"] = "written";
      reference[k1]["deep"] = "written";
    } else {
      copy[k1] = "replaced";
      reference[k1] = "replaced";
    }
    copy.erase(k2);
    reference.erase(k2);
    nlohmann::json patch_reference = {{keys[w() % keys.size()], nullptr}, {"added", {{"x", 1}}}};
    Json patch = Json::parse(patch_reference.dump());
    reference.merge_patch(patch_reference);
    copy.merge_patch(patch);
    for (auto it = copy.begin(); it != copy.end(); ++it)
      if (it.value().is_number()) it.value() = -1;
    for (auto it = reference.begin(); it != reference.end(); ++it)
      if (it.value().is_number()) it.value() = -1;
    Json& kept = copy["added"];
    const Json second = copy;  // copy is unsealed: this copies what `kept` points into
    kept["y"] = 2;
    reference["added"]["y"] = 2;
    EXPECT_EQ(copy.dump(), reference.dump()) << "seed " << seed;
    EXPECT_EQ(original.dump(), before) << "seed " << seed;
    EXPECT_FALSE(second["added"].contains("y")) << "seed " << seed;
    // Letting a sharing copy go (its destructor, ReleaseTree) leaves the other holder whole.
    {
      Json shared = original;
      ReleaseTree(shared);
    }
    EXPECT_EQ(original.dump(), before) << "seed " << seed;
  }
}

// nlohmann's const member functions (at, operator[], find, contains, iteration) call the members'
// non-const functions: on an immutable value they must not copy its members, or a reference taken
// into it before would be left pointing into members another value then owns and writes.
TEST(KubeJsonSharing, ReadingAnImmutableValueNeverMovesWhatItHolds) {
  ObjectPtr v = ShareObject(Json{{"metadata", {{"name", "cpu-big-1"}, {"resourceVersion", "5"}}},
                                 {"spec", {{"taints", Json::array({Json{{"key", "k"}}})}}}});
  const std::string& name = NameOf(*v);
  const std::string* where = &name;
  Json next = Json::object();  // a new version built from v's members, as a merge patch does
  for (auto it = v->begin(); it != v->end(); ++it) next[it.key()] = *it;
  // Reads of v through every const path, while next shares its members.
  EXPECT_EQ((*v)["metadata"]["resourceVersion"], "5");
  EXPECT_TRUE(v->at("metadata").contains("name"));
  EXPECT_NE(v->find("spec"), v->end());
  EXPECT_EQ(v->at("spec").at("taints").at(0).at("key"), "k");
  for (const auto& [key, value] : v->items()) EXPECT_FALSE(key.empty()) << value.dump();
  EXPECT_EQ(&NameOf(*v), where);
  // next writes its copy of the members; v, and the reference into it, are untouched.
  next["metadata"]["resourceVersion"] = "6";
  next["metadata"]["name"] = "renamed";
  next["spec"]["taints"][0]["key"] = "changed";
  EXPECT_EQ(name, "cpu-big-1");
  EXPECT_EQ(&NameOf(*v), where);
  EXPECT_EQ((*v)["metadata"]["resourceVersion"], "5");
  EXPECT_EQ((*v)["spec"]["taints"][0]["key"], "k");
  EXPECT_EQ(next["spec"]["taints"][0]["key"], "changed");
}

// A version that took all of another's members once the other is gone (its blocks now its own
// alone) still copies a member before writing it when a third value shares that member.
TEST(KubeJsonSharing, AWriterThatOutlivedTheVersionItCopiedStillCopiesSharedMembers) {
  ObjectPtr v1 = ShareObject(Json{{"metadata", {{"name", "p"}}}, {"spec", {{"containers", {{{"image", "a"}}}}}}});
  ObjectPtr spec_holder = ShareObject(Json(v1->at("spec")));  // shares v1's spec members
  Json next = *v1;
  v1.reset();  // next is now the only holder of the top-level members
  next["spec"]["containers"][0]["image"] = "b";
  EXPECT_EQ((*spec_holder)["containers"][0]["image"], "a");
  EXPECT_EQ(next["spec"]["containers"][0]["image"], "b");
}

TEST(KubeJsonSharing, AVersionMadeFromAnotherSharesWhatItDidNotChange) {
  // What the store does on a status write: the new version takes the old one's members, changes
  // its status, and is shared in turn; the old version's release frees only what it held alone.
  Json first = {{"metadata", {{"name", "p"}, {"resourceVersion", "1"}}},
                {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}, {"image", "i"}}}}}},
                {"status", {{"phase", "Pending"}}}};
  ObjectPtr v1 = ShareObject(std::move(first));
  Json next = *v1;
  next["metadata"]["resourceVersion"] = "2";
  next["status"]["phase"] = "Running";
  ObjectPtr v2 = ShareObject(std::move(next));
  // The spec's members are v1's; the metadata's and the status's were copied before the writes.
  EXPECT_EQ(At(*At(*v2, "spec"), "containers"), At(*At(*v1, "spec"), "containers"));
  EXPECT_NE(At(*At(*v2, "metadata"), "name"), At(*At(*v1, "metadata"), "name"));
  EXPECT_EQ((*v1)["status"]["phase"], "Pending");
  EXPECT_EQ((*v1)["metadata"]["resourceVersion"], "1");
  const std::string spec = (*v2)["spec"].dump();
  v1.reset();
  EXPECT_EQ((*v2)["spec"].dump(), spec);
  EXPECT_EQ((*v2)["status"]["phase"], "Running");
}

// Small objects are scanned, large ones binary-searched (detail::kLinearMembers): both are checked,
// the large ones with keys that sort among the tricky ones.
TEST(KubeJsonMember, FindsWhatStdMapFindsAndNothingElse) {
  std::vector<std::string> keys = TrickyKeys();
  std::vector<std::string> wide = keys;
  for (int i = 0; i < 40; ++i) wide.push_back((i % 2 ? "name" : "st") + std::to_string(i));
  std::vector<std::string> probes = wide;
  for (const char* extra : {"nama", "namespaces", "\xc3\xbf", "\xf0\x9f\x98\x80", "metadatum", "zz", " "}) probes.push_back(extra);
  int scanned = 0, searched = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const std::vector<std::string>& from = seed % 2 ? keys : wide;
    std::mt19937_64 a(seed), b(seed);
    const nlohmann::json reference = RandomDocument<nlohmann::json>(a, from, 0);
    const Json flat = RandomDocument<Json>(b, from, 0);
    ++(flat.size() <= detail::kLinearMembers ? scanned : searched);
    for (const std::string& probe : probes) {
      auto it = reference.find(probe);
      const Json* found = Member(flat, probe);
      ASSERT_EQ(found != nullptr, it != reference.end()) << "seed " << seed << " key '" << probe << "'";
      if (found != nullptr) {
        EXPECT_EQ(found->dump(), it->dump()) << "seed " << seed << " key '" << probe << "'";
      }
      // nlohmann's own lookups, by each kind of key, find the same member.
      const bool present = it != reference.end();
      const auto flat_it = flat.find(probe);
      EXPECT_EQ(flat_it != flat.end(), present) << "seed " << seed << " key '" << probe << "'";
      if (present && flat_it != flat.end()) {
        EXPECT_EQ(&*flat_it, found);
        EXPECT_EQ(flat_it.key(), probe);
      }
      EXPECT_EQ(flat.count(probe), present ? 1U : 0U);
      EXPECT_EQ(flat.contains(std::string_view(probe)), present);
      EXPECT_EQ(flat.contains(probe.c_str()), present);
      EXPECT_EQ(flat.value(probe, Json("absent")).dump(), present ? it->dump() : "\"absent\"");
      // operator[] on a copy: a member found is the one there, a member missing is added as null,
      // in its sorted place.
      Json edited = flat;
      nlohmann::json edited_reference = reference;
      EXPECT_EQ(edited[std::string(probe)].dump(), edited_reference[probe].dump());
      EXPECT_EQ(edited.dump(), edited_reference.dump()) << "seed " << seed << " key '" << probe << "'";
    }
  }
  EXPECT_GT(scanned, 150);
  EXPECT_GT(searched, 50);
}

// Keys of the same length that differ in one byte, at every position and for every length up to
// 20: the compare of equal-length keys reads them in chunks, and no chunk may be skipped.
TEST(KubeJsonMember, TellsApartKeysThatDifferInOneByteAnywhere) {
  for (std::size_t length = 1; length <= 20; ++length) {
    const std::string base(length, 'k');
    for (std::size_t at = 0; at < length; ++at) {
      std::string other = base;
      other[at] = 'j';
      Json obj = Json::object();
      obj[base] = 1;
      ASSERT_NE(Member(obj, base), nullptr) << length << " " << at;
      EXPECT_EQ(Member(obj, other), nullptr) << length << " " << at;
      EXPECT_FALSE(obj.contains(other)) << length << " " << at;
      obj[other] = 2;
      EXPECT_EQ(obj.size(), 2U);
      EXPECT_EQ(obj.at(base), 1);
      EXPECT_EQ(obj.at(other), 2);
    }
  }
}

TEST(KubeJsonMember, ReadsNothingFromValuesThatAreNotObjects) {
  EXPECT_EQ(Member(Json(), "a"), nullptr);
  EXPECT_EQ(Member(Json::array({1, 2}), "a"), nullptr);
  EXPECT_EQ(Member(Json("text"), "a"), nullptr);
  const Json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}}}, {"spec", {{"nodeName", "n1"}}}};
  ASSERT_NE(JsonAt(pod, {"spec", "nodeName"}), nullptr);
  EXPECT_EQ(*JsonAt(pod, {"spec", "nodeName"}), "n1");
  EXPECT_EQ(JsonAt(pod, {"spec", "nodeName", "deeper"}), nullptr);
  EXPECT_EQ(JsonAt(pod, {"metadata", "nam"}), nullptr);
  EXPECT_EQ(NameOf(pod), "p");
  EXPECT_EQ(NamespaceOf(pod), "ns");
  EXPECT_EQ(KeyOf(pod), "ns/p");
  EXPECT_EQ(NodeNameOf(pod), "n1");
}

TEST(KubeJson, KeyOfIsNamespaceSlashNameOrTheNameAlone) {
  EXPECT_EQ(KeyOf(Json{{"metadata", {{"namespace", "team-a"}, {"name", "job-7"}}}}), "team-a/job-7");
  EXPECT_EQ(KeyOf(Json{{"metadata", {{"name", "gpu-0"}}}}), "gpu-0");  // cluster-scoped
  EXPECT_EQ(KeyOf(Json{{"metadata", {{"namespace", ""}, {"name", "gpu-1"}}}}), "gpu-1");
  EXPECT_EQ(KeyOf(Json{{"metadata", {{"namespace", "ns"}}}}), "ns/");
  EXPECT_EQ(KeyOf(Json{{"metadata", {{"namespace", 3}, {"name", "x"}}}}), "x");  // not a string: absent
  EXPECT_EQ(KeyOf(Json::object()), "");
  EXPECT_EQ(KeyOf(Json("not an object")), "");
}

}  // namespace
}  // namespace kube
