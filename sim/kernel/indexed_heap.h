// An indexed binary min-heap kept in a caller's vector of ids: the caller orders ids with
// `less(a, b)` and is told each id's new index through `placed(id, index)`, so it can find an id's
// entry and update or erase it in O(log n) (a plain heap can only pop its top). Free functions over
// the vector rather than a class, so the vector can be reused as scratch and the index stored
// wherever the caller keeps its per-id state.
//
// `less` must be a strict weak order that never changes for an id while the id is in the heap,
// except through Update. The order among equal ids is fixed by the operations made, so a caller
// whose `less` breaks every tie gets the same heap from the same calls.
#pragma once

#include <cstddef>
#include <vector>

namespace sim::indexed_heap {

// Moves the id at index i down past every child that comes before it.
template <class Id, class Less, class Placed>
void SiftDown(std::vector<Id>& heap, std::size_t i, const Less& less, const Placed& placed) {
  const Id id = heap[i];
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= heap.size()) break;
    if (child + 1 < heap.size() && less(heap[child + 1], heap[child])) ++child;
    if (!less(heap[child], id)) break;
    heap[i] = heap[child];
    placed(heap[i], i);
    i = child;
  }
  heap[i] = id;
  placed(id, i);
}

// Restores the heap after the key of the id at index i changed, whichever way.
template <class Id, class Less, class Placed>
void Update(std::vector<Id>& heap, std::size_t i, const Less& less, const Placed& placed) {
  const Id id = heap[i];
  while (i > 0 && less(id, heap[(i - 1) / 2])) {
    heap[i] = heap[(i - 1) / 2];
    placed(heap[i], i);
    i = (i - 1) / 2;
  }
  heap[i] = id;
  placed(id, i);
  SiftDown(heap, i, less, placed);
}

// Makes a heap of ids in any order, in O(n).
template <class Id, class Less, class Placed>
void Build(std::vector<Id>& heap, const Less& less, const Placed& placed) {
  for (std::size_t i = 0; i < heap.size(); ++i) placed(heap[i], i);
  for (std::size_t i = heap.size() / 2; i-- > 0;) SiftDown(heap, i, less, placed);
}

template <class Id, class Less, class Placed>
void Push(std::vector<Id>& heap, Id id, const Less& less, const Placed& placed) {
  heap.push_back(id);
  Update(heap, heap.size() - 1, less, placed);
}

// Removes the id at index i (the caller marks the id itself as out of the heap).
template <class Id, class Less, class Placed>
void Erase(std::vector<Id>& heap, std::size_t i, const Less& less, const Placed& placed) {
  const Id last = heap.back();
  heap.pop_back();
  if (i == heap.size()) return;
  heap[i] = last;
  placed(last, i);
  Update(heap, i, less, placed);
}

}  // namespace sim::indexed_heap
