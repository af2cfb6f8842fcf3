// kube::Json, the JSON value every API object, patch and report is held in: nlohmann::json with
// its object members kept in a sorted flat map (boost::container::flat_map, one contiguous array
// per object) instead of std::map (one heap node per member).
//
// Why: an object's members are copied whole on every write (the store's new version), looked up by
// every reader (metadata.name, spec.nodeName, status.phase: a tree walk per member), and freed when
// the watch history lets a version go. In one contiguous array a copy makes one allocation per
// object instead of one per member, a lookup scans a few adjacent keys (or binary-searches a large
// object's), and a free is one block: the fleet week ran about a fifth faster in CPU and a tenth
// smaller (reports/performance.md). Members stay sorted by key, so iteration and
// serialization order are std::map's: every dump, hash and trace is the same as with nlohmann::json.
//
// The one difference a caller can meet: inserting a member into an object may move its other
// members (as inserting into a std::vector does). A reference, pointer or iterator to a member of
// an object is valid until the next insertion into or erasure from that same object, not longer;
// take it again after (`obj["a"]` once more), or insert first. Members of nested objects are not
// moved by insertions into their parent (each object's array is its own).
//
// Objects share: a sealed value (SealTree; ShareObject seals every object it makes immutable) is
// copied by counting one more holder of each object's members, and a copy that writes copies the
// objects on its path first (FlatMembers). A version made from another by changing its status or
// its resourceVersion then costs the objects it changed, not the whole pod, to make and to free.
// Unsealed values copy as before, so a reference taken into one never writes into a copy of it.
// A sealed value is also frozen: nlohmann's const member functions reach an object's members
// through a non-const pointer, and a frozen object answers them without making its members its
// own, so reading an immutable value never changes it (nor what a reference into it points at).
// A reference into a writable value that shares members with another stays valid until the next
// non-const access to the object holding it (which may give that object its own copy first).
//
// MakeObject builds a small object member by member, for code that makes one per pod or per write.
#pragma once

#include <boost/container/flat_map.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

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
// small object, an inline binary search for a large one.
//
// The members live in a counted block that copies may share (structural sharing). A block is
// shared only once it is sealed (SealTree, which ShareObject calls on every object it makes
// immutable): a copy of a sealed object takes the block and counts one more holder; a copy of an
// unsealed one copies the members (as a std::map would), because a reference into it may still be
// written through. Every non-const member function first makes the block its own (a shared block
// is copied one level deep, its members' own blocks shared in turn) and unseals it, so a write never
// reaches another holder. A version the store makes from the one before (a status write, a new
// resourceVersion) so copies the path it changes, not the whole object, and frees only that.
template <class Key, class Value, class Compare, class Allocator>
class FlatMembers {
  using Map = boost::container::flat_map<Key, Value, Compare>;
  struct Block {
    std::atomic<std::uint32_t> holders{1};
    bool sealed = false;
    Map map;
    Block() = default;
    explicit Block(const Map& m) : map(m) {}
    explicit Block(Map&& m) : map(std::move(m)) {}
  };

 public:
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using value_type = typename Map::value_type;
  using size_type = typename Map::size_type;
  using difference_type = typename Map::difference_type;
  using key_compare = typename Map::key_compare;
  using allocator_type = typename Map::allocator_type;
  using reference = typename Map::reference;
  using const_reference = typename Map::const_reference;
  using iterator = typename Map::iterator;
  using const_iterator = typename Map::const_iterator;
  using reverse_iterator = typename Map::reverse_iterator;
  using const_reverse_iterator = typename Map::const_reverse_iterator;

  FlatMembers() noexcept = default;
  FlatMembers(const FlatMembers& other) : block_(other.block_ ? Copy(other.block_) : nullptr) {}
  FlatMembers(FlatMembers&& other) noexcept : block_(other.block_) { other.block_ = nullptr; }
  template <class It>
  FlatMembers(It first, It last) : block_(first == last ? nullptr : new Block(Map(first, last))) {}
  FlatMembers(std::initializer_list<value_type> members) : FlatMembers(members.begin(), members.end()) {}
  ~FlatMembers() { Let(block_); }
  FlatMembers& operator=(const FlatMembers& other) {
    if (this != &other) {
      Block* mine = other.block_ ? Copy(other.block_) : nullptr;
      Let(block_);
      block_ = mine;
    }
    return *this;
  }
  FlatMembers& operator=(FlatMembers&& other) noexcept {
    if (this != &other) {
      Let(block_);
      block_ = other.block_;
      other.block_ = nullptr;
    }
    return *this;
  }

  // Reading: never copies.
  const_iterator begin() const noexcept { return Read().begin(); }
  const_iterator end() const noexcept { return Read().end(); }
  const_iterator cbegin() const noexcept { return Read().cbegin(); }
  const_iterator cend() const noexcept { return Read().cend(); }
  const_reverse_iterator rbegin() const noexcept { return Read().rbegin(); }
  const_reverse_iterator rend() const noexcept { return Read().rend(); }
  size_type size() const noexcept { return block_ ? block_->map.size() : 0; }
  bool empty() const noexcept { return size() == 0; }
  size_type max_size() const noexcept { return Read().max_size(); }
  template <class K>
  const_iterator find(const K& key) const {
    if constexpr (std::is_convertible_v<const K&, std::string_view>) {
      return cbegin() + Index(std::string_view(key));
    } else {
      return Read().find(key);
    }
  }
  template <class K>
  size_type count(const K& key) const {
    return find(key) == cend() ? 0 : 1;
  }
  template <class K>
  bool contains(const K& key) const {
    return find(key) != cend();
  }
  template <class K>
  const Value& at(const K& key) const {
    return Read().at(key);
  }
  friend bool operator==(const FlatMembers& a, const FlatMembers& b) {
    return a.block_ == b.block_ || a.Read() == b.Read();
  }
  friend bool operator!=(const FlatMembers& a, const FlatMembers& b) { return !(a == b); }
  friend bool operator<(const FlatMembers& a, const FlatMembers& b) { return a.block_ != b.block_ && a.Read() < b.Read(); }

  // Non-const access, which may hand out a reference written through later: the block is made
  // this object's own first, unless this object is frozen (nlohmann's const member functions
  // reach the members through a non-const pointer, so a read of an immutable value comes here).
  iterator begin() { return Access().begin(); }
  iterator end() { return Access().end(); }
  reverse_iterator rbegin() { return Access().rbegin(); }
  reverse_iterator rend() { return Access().rend(); }
  template <class K>
  iterator find(const K& key) {
    Map& map = Access();
    if constexpr (std::is_convertible_v<const K&, std::string_view>) {
      return map.begin() + Index(std::string_view(key));
    } else {
      return map.find(key);
    }
  }
  template <class K>
  Value& at(const K& key) {
    return Access().at(key);
  }
  template <class K>
  Value& operator[](K&& key) {
    return Own()[std::forward<K>(key)];
  }
  // `obj[key]`: an existing member is found without building a new one first.
  std::pair<iterator, bool> emplace(Key&& key, std::nullptr_t) {
    if (auto it = find(key); it != end()) return {it, false};
    return Own().emplace(std::move(key), nullptr);
  }
  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    return Own().emplace(std::forward<Args>(args)...);
  }
  // A hint from any holder of the same members (or none, for an empty object) is good here: it is
  // taken as a position.
  template <class... Args>
  iterator emplace_hint(const_iterator hint, Args&&... args) {
    const auto index = hint - cbegin();
    Map& map = Own();
    return map.emplace_hint(map.cbegin() + index, std::forward<Args>(args)...);
  }
  template <class K, class V>
  std::pair<iterator, bool> insert_or_assign(K&& key, V&& value) {
    return Own().insert_or_assign(std::forward<K>(key), std::forward<V>(value));
  }
  template <class... Args>
  std::pair<iterator, bool> try_emplace(Args&&... args) {
    return Own().try_emplace(std::forward<Args>(args)...);
  }
  template <class... Args>
  decltype(auto) insert(Args&&... args) {
    return Own().insert(std::forward<Args>(args)...);
  }
  iterator erase(const_iterator position) {
    // A const_iterator into a shared block: found again in this object's own copy.
    const auto index = position - cbegin();
    Map& map = Own();
    return map.erase(map.cbegin() + index);
  }
  iterator erase(iterator position) { return Own().erase(position); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto from = first - cbegin(), to = last - cbegin();
    Map& map = Own();
    return map.erase(map.cbegin() + from, map.cbegin() + to);
  }
  template <class K, class = std::enable_if_t<std::is_convertible_v<const K&, std::string_view>>>
  size_type erase(const K& key) {
    const auto it = std::as_const(*this).find(key);
    if (it == cend()) return 0;
    erase(it);
    return 1;
  }
  void clear() noexcept {
    Let(block_);
    block_ = nullptr;
  }
  void reserve(size_type n) {
    if (n > 0) Own().reserve(n);
  }
  void swap(FlatMembers& other) noexcept { std::swap(block_, other.block_); }

  // Freezes this object and marks its block shareable (SealTree): true when the block was not
  // sealed yet, so that the caller goes on to seal its members (Members, which does not unseal).
  // A frozen object belongs to an immutable value: its non-const reads never copy its block.
  bool SealBlock() noexcept {
    frozen_ = true;
    if (!block_ || block_->sealed) return false;
    block_->sealed = true;
    return true;
  }
  Map& Members() noexcept { return block_->map; }
  // This object holds its block alone (or has none): releasing it frees its members.
  bool Alone() const noexcept { return !block_ || block_->holders.load(std::memory_order_acquire) == 1; }

 private:
  static const Map& Empty() {
    static const Map empty;
    return empty;
  }
  // The members of an object without any, for non-const reads: never written (every write goes
  // through Own, which gives the object a block of its own first).
  static Map& EmptyForReading() {
    static Map empty;
    return empty;
  }
  Map& Access() {
    if (frozen_) return block_ ? block_->map : EmptyForReading();
    return Own();
  }
  // A block made this object's own in place: the objects it holds were frozen with it, and are now
  // reached through a writable object, so they may be written (each copying its own block first
  // when another value shares it). Arrays are looked into, down to their objects.
  static void Thaw(Value& value) {
    if (value.is_object()) {
      value.template get_ref<FlatMembers&>().frozen_ = false;
    } else if (value.is_array()) {
      for (auto& element : value.template get_ref<typename Value::array_t&>()) Thaw(element);
    }
  }
  const Map& Read() const noexcept { return block_ ? block_->map : Empty(); }
  // The block a copy gets: the same one, counted, when sealed; the members copied otherwise.
  static Block* Copy(Block* block) {
    if (block->sealed) {
      block->holders.fetch_add(1, std::memory_order_relaxed);
      return block;
    }
    return new Block(block->map);
  }
  static void Let(Block* block) noexcept {
    if (block && block->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) delete block;
  }
  Map& Own() {
    if (!block_) {
      block_ = new Block();
    } else if (block_->holders.load(std::memory_order_acquire) != 1) {
      Block* mine = new Block(block_->map);
      Let(block_);
      block_ = mine;
    } else if (block_->sealed) {
      block_->sealed = false;
      for (auto& member : block_->map) Thaw(member.second);
    }
    return block_->map;
  }
  // The position of `key` among the members, size() when absent.
  std::size_t Index(std::string_view key) const {
    const Map& map = Read();
    const std::size_t n = map.size();
    if (n <= kLinearMembers) {
      std::size_t i = 0;
      for (auto it = map.cbegin(); i < n; ++i, ++it)
        if (SameKey(it->first, key)) return i;
      return n;
    }
    auto it = map.find(MemberKey{key});
    return static_cast<std::size_t>(it - map.cbegin());
  }

  Block* block_ = nullptr;
  bool frozen_ = false;
};

}  // namespace detail

using Json = nlohmann::basic_json<detail::FlatMembers>;

// Seals every object of `value` not sealed yet and freezes it (FlatMembers): from now on copies
// share its members instead of copying them, and reads never copy them. For a value about to become
// immutable (ShareObject): it must not be written after this, only read, copied or destroyed. An
// object sealed before is not visited again, with what it holds, so sealing a new version costs
// what changed. Below `kSealDepth` levels objects stay unsealed (they are then copied, as before).
inline constexpr int kSealDepth = 64;
inline void SealTree(Json& value, int depth = 0) {
  if (depth >= kSealDepth) return;
  if (value.is_object()) {
    auto& members = value.get_ref<Json::object_t&>();
    if (!members.SealBlock()) return;
    for (auto& member : members.Members())
      if (member.second.is_structured()) SealTree(member.second, depth + 1);
  } else if (value.is_array()) {
    for (auto& element : value.get_ref<Json::array_t&>())
      if (element.is_structured()) SealTree(element, depth + 1);
  }
}

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

// nlohmann's destroy for kube::Json, the same but for one thing: an object whose members another
// value shares (FlatMembers) is let go without visiting them (nlohmann's moves every child out
// first, which would make the shared members its own, a copy, only to free them).
template <>
inline void kube::Json::json_value::destroy(value_t t) {
  if ((t == value_t::object && object == nullptr) || (t == value_t::array && array == nullptr) ||
      (t == value_t::string && string == nullptr) || (t == value_t::binary && binary == nullptr))
    return;
  if (t == value_t::array || t == value_t::object) {
    std::vector<basic_json> stack;
    if (t == value_t::array) {
      stack.reserve(array->size());
      std::move(array->begin(), array->end(), std::back_inserter(stack));
    } else if (!object->empty() && object->Alone()) {
      stack.reserve(object->size());
      for (auto&& it : object->Members()) stack.push_back(std::move(it.second));
    }
    while (!stack.empty()) {
      basic_json current_item(std::move(stack.back()));
      stack.pop_back();
      if (current_item.is_array()) {
        std::move(current_item.m_value.array->begin(), current_item.m_value.array->end(), std::back_inserter(stack));
        current_item.m_value.array->clear();
      } else if (current_item.is_object()) {
        object_t& members = *current_item.m_value.object;
        if (!members.empty() && members.Alone()) {
          for (auto&& it : members.Members()) stack.push_back(std::move(it.second));
          members.clear();
        }
      }
    }
  }
  // The value's own block, with kube::Json's AllocatorType (std::allocator).
  auto release = [](auto* value) {
    using T = std::remove_pointer_t<decltype(value)>;
    std::allocator<T> alloc;
    std::allocator_traits<std::allocator<T>>::destroy(alloc, value);
    std::allocator_traits<std::allocator<T>>::deallocate(alloc, value, 1);
  };
  switch (t) {
    case value_t::object: release(object); break;
    case value_t::array: release(array); break;
    case value_t::string: release(string); break;
    case value_t::binary: release(binary); break;
    case value_t::null:
    case value_t::boolean:
    case value_t::number_integer:
    case value_t::number_unsigned:
    case value_t::number_float:
    case value_t::discarded:
    default:
      break;
  }
}
