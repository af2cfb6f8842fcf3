// The invariants of a run, in one registry: each one's name (as a scenario's `invariants:`
// expectation and the reports spell it), what it says and where the harness checks it. The
// scenario loader reads the names (`invariants: all` is every entry), the checker
// (sim/harness/run/invariants.h) checks exactly these, and the reports print their descriptions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace harness {

enum class Invariant {
  kNodeNotOvercommitted,
  kNoPodOnNotReadyNode,
  kSucceededOnlyIfLauncherSucceeded,
  kNoTrainingBeforePartition,
  kPhasesMoveForward,
  kNoObjectsAfterDelete,
  kResourceVersionsIncrease,
  kJobsTerminalOrProgressing,
};

struct InvariantInfo {
  Invariant id;
  std::string_view name;         // "nodeNotOvercommitted"
  std::string_view description;  // what holds, one sentence
  std::string_view checked;      // when and from what the harness checks it
};

// Every invariant, in report order.
const std::vector<InvariantInfo>& Invariants();
const InvariantInfo& InfoOf(Invariant invariant);
// The invariant with this name; nullopt when there is none.
std::optional<Invariant> InvariantNamed(std::string_view name);

}  // namespace harness
