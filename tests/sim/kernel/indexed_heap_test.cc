#include "sim/kernel/indexed_heap.h"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/kernel/random.h"

namespace sim {
namespace {

// Ids 0..n-1 with keys in a side table, as the network keeps them: pushes, key changes, erases and
// pops checked against an ordered set of (key, id) after every step, and every id's stored index
// checked against where it really is.
TEST(IndexedHeapTest, AgreesWithAnOrderedSetUnderPushUpdateEraseAndPop) {
  constexpr std::uint32_t kIds = 200;
  constexpr std::size_t kOut = ~std::size_t{0};
  std::vector<double> key(kIds, 0);
  std::vector<std::size_t> pos(kIds, kOut);
  const auto less = [&](std::uint32_t a, std::uint32_t b) { return key[a] != key[b] ? key[a] < key[b] : a < b; };
  const auto placed = [&](std::uint32_t id, std::size_t i) { pos[id] = i; };
  std::vector<std::uint32_t> heap;
  std::set<std::pair<double, std::uint32_t>> expected;
  RandomStream rng(3);
  int pops = 0, updates = 0, erases = 0;
  for (int step = 0; step < 20'000; ++step) {
    const auto id = static_cast<std::uint32_t>(rng.UniformInt(0, kIds - 1));
    const int op = static_cast<int>(rng.UniformInt(0, 3));
    if (pos[id] == kOut) {
      key[id] = static_cast<double>(rng.UniformInt(0, 50));  // ties on purpose
      indexed_heap::Push(heap, id, less, placed);
      expected.emplace(key[id], id);
    } else if (op == 0) {
      expected.erase({key[id], id});
      key[id] = static_cast<double>(rng.UniformInt(0, 50));
      indexed_heap::Update(heap, pos[id], less, placed);
      expected.emplace(key[id], id);
      ++updates;
    } else if (op == 1) {
      expected.erase({key[id], id});
      const std::size_t i = pos[id];
      pos[id] = kOut;
      indexed_heap::Erase(heap, i, less, placed);
      ++erases;
    } else if (op == 2) {
      const std::uint32_t top = heap.front();
      ASSERT_EQ(top, expected.begin()->second) << "step " << step;
      expected.erase(expected.begin());
      pos[top] = kOut;
      indexed_heap::Erase(heap, 0, less, placed);
      ++pops;
    }
    ASSERT_EQ(heap.size(), expected.size());
    if (!heap.empty()) {
      ASSERT_EQ(heap.front(), expected.begin()->second) << "step " << step;
    }
    for (std::size_t i = 0; i < heap.size(); ++i) ASSERT_EQ(pos[heap[i]], i);
  }
  EXPECT_GT(pops, 1000);
  EXPECT_GT(updates, 1000);
  EXPECT_GT(erases, 1000);
}

TEST(IndexedHeapTest, BuildMakesAHeapOfIdsInAnyOrder) {
  std::vector<double> key = {5, 3, 9, 1, 7, 1, 4};
  std::vector<std::size_t> pos(key.size());
  const auto less = [&](int a, int b) { return key[a] != key[b] ? key[a] < key[b] : a < b; };
  const auto placed = [&](int id, std::size_t i) { pos[id] = i; };
  std::vector<int> heap = {0, 1, 2, 3, 4, 5, 6};
  indexed_heap::Build(heap, less, placed);
  std::vector<int> order;
  while (!heap.empty()) {
    order.push_back(heap.front());
    indexed_heap::Erase(heap, 0, less, placed);
    for (std::size_t i = 0; i < heap.size(); ++i) ASSERT_EQ(pos[heap[i]], i);
  }
  EXPECT_EQ(order, (std::vector<int>{3, 5, 1, 6, 0, 4, 2}));
}

}  // namespace
}  // namespace sim
