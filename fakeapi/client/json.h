// kube::Json, the JSON value every API object, patch and report is held in: nlohmann::json with
// its object members kept in a sorted flat map (boost::container::flat_map, one contiguous array
// per object) instead of std::map (one heap node per member).
//
// Why: an object's members are copied whole on every write (the store's new version), looked up by
// every reader (metadata.name, spec.nodeName, status.phase: a tree walk per member), and freed when
// the watch history lets a version go. In one contiguous array a copy makes one allocation per
// object instead of one per member, a lookup scans a few adjacent keys (or binary-searches a large
// object's), and a free is one block: the fleet week ran about a fifth faster in CPU and a tenth
// smaller (see README, "Performance at scale"). Members stay sorted by key, so iteration and
// serialization order are std::map's: every dump, hash and trace is the same as with nlohmann::json.
//
// The one difference a caller can meet: inserting a member into an object may move its other
// members (as inserting into a std::vector does). A reference, pointer or iterator to a member of
// an object is valid until the next insertion into or erasure from that same object, not longer;
// take it again after (`obj["a"]` once more), or insert first. Members of nested objects are not
// moved by insertions into their parent (each object's array is its own).
//
// MakeObject builds a small object member by member, for code that makes one per pod or per write.
#pragma once

#include <boost/container/flat_map.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace kube {
namespace detail {

// A key looked up in a large object's members (a sorted flat map with the transparent std::less<>):
// compared byte by byte inline. Keys of API objects are short and mostly differ in their first
// bytes, so this beats std::string's compare, which calls memcmp (and, for a const char*, strlen)
// at every step of the binary search.
struct MemberKey {
  std::string_view text;
};
inline int CompareKeys(std::string_view a, std::string_view b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}
inline bool operator<(const std::string& a, MemberKey b) { return CompareKeys(a, b.text) < 0; }
inline bool operator<(MemberKey a, const std::string& b) { return CompareKeys(a.text, b) < 0; }

// Objects of at most this many members are searched front to back for an equal key instead of by
// binary search. Most objects of the API are that small (a pod has 5 members at the top, 8 to 12
// in metadata, a container 6 to 10), and their keys mostly differ in length or first byte, so a
// miss costs two compares, where each step of a binary search is a full lexicographic compare.
inline constexpr std::size_t kLinearMembers = 24;
// Equal keys: lengths first, then eight (or four) bytes at a time, the last load overlapping the
// one before it ("resourceVersion" is two loads, not fifteen byte compares).
inline std::uint64_t Load8(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline std::uint32_t Load4(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline bool SameKey(const std::string& a, std::string_view b) {
  const std::size_t n = b.size();
  if (a.size() != n) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8)
      if (Load8(p + i) != Load8(q + i)) return false;
    return Load8(p + n - 8) == Load8(q + n - 8);
  }
  if (n >= 4) return Load4(p) == Load4(q) && Load4(p + n - 4) == Load4(q + n - 4);
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != q[i]) return false;
  return true;
}

// nlohmann::basic_json's ObjectType parameter: (key, value, compare, allocator). The allocator it
// names is for std::map's node type; the flat map allocates its array with the default one.
//
// Every lookup nlohmann makes goes through find, count or (for `obj["key"]` with a std::string
// key) emplace(key, nullptr), so those three find a member as kube::Member does: a scan for a
// small object, an inline binary search for a large one. Everything else is the flat map's.
template <class Key, class Value, class Compare, class Allocator>
class FlatMembers : public boost::container::flat_map<Key, Value, Compare> {
  using Base = boost::container::flat_map<Key, Value, Compare>;

 public:
  using Base::Base;
  using typename Base::const_iterator;
  using typename Base::iterator;
  using Base::emplace;

  template <class K>
  iterator find(const K& key) {
    if constexpr (std::is_convertible_v<const K&, std::string_view>) {
      return this->begin() + Index(std::string_view(key));
    } else {
      return Base::find(key);
    }
  }
  template <class K>
  const_iterator find(const K& key) const {
    if constexpr (std::is_convertible_v<const K&, std::string_view>) {
      return this->cbegin() + Index(std::string_view(key));
    } else {
      return Base::find(key);
    }
  }
  template <class K>
  std::size_t count(const K& key) const {
    return find(key) == this->cend() ? 0 : 1;
  }
  // `obj[key]`: an existing member is found without building a new one first.
  std::pair<iterator, bool> emplace(Key&& key, std::nullptr_t) {
    if (auto it = find(key); it != this->end()) return {it, false};
    return Base::emplace(std::move(key), nullptr);
  }

 private:
  // The position of `key` among the members, size() when absent.
  std::size_t Index(std::string_view key) const {
    const std::size_t n = this->size();
    if (n <= kLinearMembers) {
      std::size_t i = 0;
      for (auto it = this->cbegin(); i < n; ++i, ++it)
        if (SameKey(it->first, key)) return i;
      return n;
    }
    auto it = Base::find(MemberKey{key});
    return static_cast<std::size_t>(it - this->cbegin());
  }
};

}  // namespace detail

using Json = nlohmann::basic_json<detail::FlatMembers>;

namespace detail {
inline void PutMembers(Json::object_t&) {}
template <class K, class V, class... Rest>
void PutMembers(Json::object_t& members, K&& key, V&& value, Rest&&... rest) {
  members.emplace(std::forward<K>(key), std::forward<V>(value));
  PutMembers(members, std::forward<Rest>(rest)...);
}
}  // namespace detail

// An object from keys and values in turn: MakeObject("name", name, "value", value) is
// Json{{"name", name}, {"value", value}}, member for member (a repeated key keeps its first value,
// as there). The initializer-list form copies every value once more through a json_ref and tests
// each element for being a [key, value] pair first: for the small objects the builders make for
// every pod, this costs a fraction of it. Values are moved in when given as rvalues.
template <class... Args>
Json MakeObject(Args&&... args) {
  static_assert(sizeof...(Args) % 2 == 0, "MakeObject takes keys and values in turn");
  Json object(Json::value_t::object);
  auto& members = object.get_ref<Json::object_t&>();
  members.reserve(sizeof...(Args) / 2);
  detail::PutMembers(members, std::forward<Args>(args)...);
  return object;
}

}  // namespace kube
