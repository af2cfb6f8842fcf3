// kube::Json, the JSON value every API object, patch and report is held in: nlohmann::json with
// its object members kept in a sorted flat map (boost::container::flat_map, one contiguous array
// per object) instead of std::map (one heap node per member).
//
// Why: an object's members are copied whole on every write (the store's new version), looked up by
// every reader (metadata.name, spec.nodeName, status.phase: a tree walk per member), and freed when
// the watch history lets a version go. In one contiguous array a copy makes one allocation per
// object instead of one per member, a lookup is a binary search over adjacent keys, and a free is
// one block: the fleet week ran about a fifth faster in CPU and a tenth smaller (see README,
// "Performance at scale"). Members stay sorted by key, so iteration and serialization order are
// std::map's: every dump, hash and trace is the same as with nlohmann::json.
//
// The one difference a caller can meet: inserting a member into an object may move its other
// members (as inserting into a std::vector does). A reference, pointer or iterator to a member of
// an object is valid until the next insertion into or erasure from that same object, not longer;
// take it again after (`obj["a"]` once more), or insert first. Members of nested objects are not
// moved by insertions into their parent (each object's array is its own).
#pragma once

#include <boost/container/flat_map.hpp>
#include <nlohmann/json.hpp>

namespace kube {
namespace detail {
// nlohmann::basic_json's ObjectType parameter: (key, value, compare, allocator). The allocator it
// names is for std::map's node type; the flat map allocates its array with the default one.
template <class Key, class Value, class Compare, class Allocator>
using FlatMembers = boost::container::flat_map<Key, Value, Compare>;
}  // namespace detail

using Json = nlohmann::basic_json<detail::FlatMembers>;

}  // namespace kube
