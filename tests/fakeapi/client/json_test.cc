// kube::Json (fakeapi/client/json.h) against nlohmann::json, whose std::map it replaces, and the
// members' lookup (a scan or a binary search by size; through kube::Member, nlohmann's find,
// count, contains, value and operator[]) against std::map's: the same members in the same order,
// the same text, the same answers, for keys that share prefixes and UTF-8 bytes above 0x7f.
#include "fakeapi/client/client.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/json_path.h"

#include <gtest/gtest.h>

#include <random>
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

}  // namespace
}  // namespace kube
