// `dglsim chaos SCENARIO --seeds A..B [--jobs N] [--rate KIND=MEAN]... [--json F] [--junit F]
// [--write-scenario DIR] [--shrink] [--keep-expectations] [--shard I/N | --shard N --out DIR]` and
// `dglsim chaos merge SLICE|DIR... [--json F] [--junit F] [--write-scenario DIR] [--shrink]`: a
// chaos campaign (sim/harness/chaos/). Each seed of the range draws a fault schedule (schedule.h)
// that is added to the scenario's own faults; the run fails when any invariant is violated (or an
// expectation, with --keep-expectations). Seeds run on N threads with a progress line on stderr;
// the results are the same whatever N. Prints every failing seed with the command that replays it,
// then a total. --write-scenario writes each seed's scenario as an ordinary scenario file (`dglsim
// run` gives the same trace hash); --shrink reduces the first failing seed's drawn faults (shrink.h)
// and writes the result as a scenario file. The JSON and JUnit reports hold no wall-clock time.
//
// With --shard the command runs one shard's seeds (slices.h; `--shard N` takes I from
// JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it, like `dglsim sweep --shard`) and
// writes only its slice, DIR/NAME.chaos-shard-I-of-N.json; `merge` joins the slices (files, or
// directories holding *.chaos-shard-*.json) and does what the unsharded command does after its
// runs: the same lines, the same JSON and JUnit byte for byte, --write-scenario and --shrink (which
// need the scenario file where the shards read it, unchanged).
//
// Exit 0 when no seed fails, 1 when one does (or a report could not be written), 2 on bad input
// (checked before anything runs; for merge: slices of another campaign, of another shard count, a
// shard missing or twice). A shard exits 0 once its slice is written, whatever its seeds did: a
// failing seed is a result, which merge reports.
#include "fakeapi/client/json.h"
#include "sim/cli/commands.h"
#include "sim/cli/shards.h"
#include "sim/harness/chaos/campaign.h"
#include "sim/harness/chaos/scenario_file.h"
#include "sim/harness/chaos/shrink.h"
#include "sim/harness/chaos/slices.h"
#include "sim/harness/config/units.h"
#include "sim/harness/output_file.h"
#include "sim/harness/report/report_html.h"
#include "sim/harness/run_command.h"
#include "sim/kernel/input_file.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace dglsim_cli {
namespace {

using harness::chaos::SeedOutcome;

struct ChaosArgs {
  std::string scenario;
  std::string seeds;
  std::size_t jobs = 0;
  std::vector<std::string> rates;  // KIND=MEAN
  double max_conflict_rate = 0, max_error_rate = 0, max_timeout_rate = 0;
  CLI::Option *max_conflict_option = nullptr, *max_error_option = nullptr, *max_timeout_option = nullptr;
  std::string max_for;
  std::string json_path;
  std::string junit_path;
  std::string write_dir;
  bool shrink = false;
  int shrink_runs = 300;
  bool keep_expectations = false;
  std::string shard;    // --shard I/N or N
  std::string out_dir;  // where a shard writes its slice
};

// `dglsim chaos merge`'s own arguments; the rest comes from the slices.
struct MergeArgs {
  std::vector<std::string> slices;
  std::string json_path, junit_path, write_dir;
  bool shrink = false;
  int shrink_runs = 300;
};

// The slices' file names: NAME.chaos-shard-I-of-N.json (a sweep's are NAME.shard-I-of-N.json).
constexpr const char* kSliceMarker = ".chaos-shard-";

// Everything checked and parsed before anything runs.
struct ChaosPlan {
  harness::Scenario scenario;
  std::uint64_t first = 0, last = 0;
  harness::chaos::ChaosOptions options;
  std::string replay_flags;  // the options a replay needs, as typed: " --rate NodeDown=3 ..."
  std::optional<harness::Shard> shard;
};

// "A..B" or "N"; seeds as the scenario format takes them (0 .. 2^63-1).
bool ParseSeeds(const std::string& text, std::uint64_t* first, std::uint64_t* last, std::string* why) {
  auto number = [](const std::string& s, std::uint64_t* out) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *out = std::stoull(s);
    return *out <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  };
  const std::size_t dots = text.find("..");
  const std::string a = text.substr(0, dots), b = dots == std::string::npos ? a : text.substr(dots + 2);
  if (!number(a, first) || !number(b, last)) {
    *why = "expected A..B or N, whole numbers from 0 to 9223372036854775807 (got \"" + text + "\")";
    return false;
  }
  if (*first > *last) {
    *why = "the range " + text + " is empty (A must not be above B)";
    return false;
  }
  if (*last - *first >= 100'000'000) {
    *why = "at most 100000000 seeds per campaign (got " + text + ")";
    return false;
  }
  return true;
}

// --rate KIND=MEAN, each into `rates`; problems into `problems`.
void ParseRates(const std::vector<std::string>& given, harness::chaos::ChaosRates& rates,
                std::vector<std::string>& problems) {
  for (const std::string& item : given) {
    const std::size_t eq = item.find('=');
    const std::string kind_name = item.substr(0, eq);
    const auto kind = harness::chaos::FaultKindNamed(kind_name);
    std::string kinds;
    for (auto k : harness::chaos::AllFaultKinds()) kinds += (kinds.empty() ? "" : ", ") + std::string(harness::ToString(k));
    if (!kind) {
      problems.push_back("--rate " + item + ": unknown fault kind \"" + kind_name + "\" (kinds: " + kinds + ")");
      continue;
    }
    double mean = -1;
    try {
      std::size_t used = 0;
      const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
      mean = std::stod(value, &used);
      if (used != value.size()) mean = -1;
    } catch (const std::exception&) {
      mean = -1;
    }
    if (!(mean >= 0 && mean <= harness::chaos::kMaxFaultsPerKind)) {
      problems.push_back("--rate " + item + ": expected KIND=MEAN, MEAN a number of faults per seed from 0 to " +
                         std::to_string(harness::chaos::kMaxFaultsPerKind));
      continue;
    }
    rates.per_seed[*kind] = mean;
  }
}

// The options into `plan` (rates, maxima, replay flags); problems into `problems`.
void ParseOptions(const ChaosArgs& args, ChaosPlan& plan, std::vector<std::string>& problems) {
  harness::chaos::ChaosRates& rates = plan.options.rates;
  ParseRates(args.rates, rates, problems);
  for (const std::string& r : args.rates) plan.replay_flags += " --rate " + r;
  auto maximum = [&](CLI::Option* option, double value, double& into, const char* flag) {
    if (option->count() == 0) return;
    into = value;
    std::ostringstream text;
    text << " " << flag << " " << value;
    plan.replay_flags += text.str();
  };
  maximum(args.max_conflict_option, args.max_conflict_rate, rates.max_conflict_rate, "--max-conflict-rate");
  maximum(args.max_error_option, args.max_error_rate, rates.max_error_rate, "--max-error-rate");
  maximum(args.max_timeout_option, args.max_timeout_rate, rates.max_timeout_rate, "--max-timeout-rate");
  if (!args.max_for.empty()) {
    auto d = harness::ParseDuration(args.max_for);
    if (!d.ok() || *d.value < kube::kSecond) {
      problems.push_back("--max-for " + args.max_for + ": " + (d.ok() ? "must be at least 1s" : d.error));
    } else {
      rates.max_for = *d.value;
      plan.replay_flags += " --max-for " + args.max_for;
    }
  }
  plan.options.keep_expectations = args.keep_expectations;
  if (args.keep_expectations) plan.replay_flags += " --keep-expectations";
}

// Problems with where the reports and the seeds' scenarios go, into `problems`.
void CheckOutputs(const std::string& json_path, const std::string& junit_path, const std::string& write_dir,
                  std::vector<std::string>& problems) {
  for (const auto& [path, what] : {std::pair{json_path, "JSON report"}, std::pair{junit_path, "JUnit report"}})
    if (!path.empty())
      if (std::string cannot = harness::CannotWrite(path); !cannot.empty())
        problems.push_back(path + ": cannot write the " + what + ": " + cannot);
  if (!write_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(write_dir, ec)) {
      problems.push_back("--write-scenario " + write_dir + ": no such directory");
    } else if (::access(write_dir.c_str(), W_OK | X_OK) != 0) {
      problems.push_back("--write-scenario " + write_dir + ": cannot write there");
    }
  }
}

// --shard and --out into `plan`; problems into `problems`. A shard writes its slice and nothing
// else that needs the whole campaign: the reports and the shrinking are merge's.
void CheckShard(const ChaosArgs& args, ChaosPlan& plan, std::vector<std::string>& problems) {
  if (args.shard.empty()) {
    if (!args.out_dir.empty()) problems.push_back("--out " + args.out_dir + ": only with --shard (where a shard writes its slice)");
    return;
  }
  std::string why;
  plan.shard = ShardFromFlag(args.shard, &why);
  if (!plan.shard) problems.push_back(why);
  for (const auto& [given, flag] : {std::pair{!args.json_path.empty(), "--json"}, std::pair{!args.junit_path.empty(), "--junit"},
                                    std::pair{args.shrink, "--shrink"}})
    if (given)
      problems.push_back(std::string(flag) + " with --shard: a shard writes its slice only; give " + flag +
                         " to `dglsim chaos merge`, which joins the slices");
  const std::string dir = args.out_dir.empty() ? "." : args.out_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec) || ::access(dir.c_str(), W_OK | X_OK) != 0)
    problems.push_back("--out " + dir + ": cannot create or write the slice's directory");
}

// Checks every input; nullopt (with the problems on stderr) when any is bad.
std::optional<ChaosPlan> Plan(const ChaosArgs& args) {
  ChaosPlan plan;
  std::vector<std::string> problems;
  std::string why;
  if (args.scenario.empty()) problems.push_back("SCENARIO: a scenario file is required");
  if (args.seeds.empty()) problems.push_back("--seeds: required (A..B or N)");
  else if (!ParseSeeds(args.seeds, &plan.first, &plan.last, &why)) problems.push_back("--seeds: " + why);
  ParseOptions(args, plan, problems);
  CheckOutputs(args.json_path, args.junit_path, args.write_dir, problems);
  CheckShard(args, plan, problems);
  if (!args.scenario.empty()) {
    harness::ScenarioLoad load = harness::LoadScenario(args.scenario);
    for (const auto& w : load.warnings) std::cerr << w << "\n";
    for (const auto& p : load.problems) problems.push_back(p);
    if (!load.ok() && load.problems.empty()) problems.push_back(args.scenario + ": the scenario could not be loaded");
    if (load.ok()) plan.scenario = std::move(*load.scenario);
  }
  for (const auto& p : problems) std::cerr << p << "\n";
  if (!problems.empty()) return std::nullopt;
  return plan;
}

std::string Clock(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return buf;
}

// The progress line: on a terminal redrawn in place, elsewhere one line per tenth of the seeds.
harness::chaos::CampaignOptions Progress(std::size_t jobs) {
  harness::chaos::CampaignOptions campaign;
  campaign.jobs = jobs;
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  campaign.on_finished = [tty, start](const SeedOutcome&, std::size_t done, std::size_t total, std::size_t failed) {
    const std::size_t step = std::max<std::size_t>(1, total / 10);
    if (!tty && done % step != 0 && done != total) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
    std::fprintf(stderr, "%schaos: %zu/%zu seeds, %zu failed, %s elapsed, %s left%s", tty ? "\r\033[K" : "", done, total,
                 failed, Clock(elapsed).c_str(), Clock(left).c_str(), tty && done < total ? "" : "\n");
  };
  return campaign;
}

std::string ReplayCommand(const ChaosArgs& args, const ChaosPlan& plan, std::uint64_t seed) {
  return "dglsim chaos " + args.scenario + " --seeds " + std::to_string(seed) + ".." + std::to_string(seed) +
         plan.replay_flags;
}

std::string JUnit(const ChaosArgs& args, const ChaosPlan& plan, const std::vector<SeedOutcome>& outcomes, std::size_t failed) {
  using harness::HtmlEscape;  // entities, valid UTF-8, no control characters: fit for XML
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"dglsim.chaos." << HtmlEscape(plan.scenario.name)
    << "\" tests=\"" << outcomes.size() << "\" failures=\"" << failed << "\" errors=\"0\">\n";
  for (const SeedOutcome& o : outcomes) {
    x << "  <testcase classname=\"dglsim.chaos." << HtmlEscape(plan.scenario.name) << "\" name=\"seed " << o.seed << "\">";
    if (o.failed)
      x << "<failure message=\"" << HtmlEscape(o.failure) << "\">"
        << HtmlEscape(o.detail + "\nreplay: " + ReplayCommand(args, plan, o.seed)) << "</failure>";
    x << "</testcase>\n";
  }
  x << "</testsuite>\n";
  return x.str();
}

kube::Json Json(const ChaosArgs& args, const ChaosPlan& plan, const std::vector<SeedOutcome>& outcomes, std::size_t failed) {
  kube::Json rates = kube::Json::object();
  for (const auto& [kind, mean] : plan.options.rates.per_seed) rates[harness::ToString(kind)] = mean;
  kube::Json by_failure = kube::Json::object();
  kube::Json failures = kube::Json::array();
  std::size_t faults = 0;
  for (const SeedOutcome& o : outcomes) {
    faults += o.drawn_faults;
    for (const std::string& f : o.failures) by_failure[f] = by_failure.value(f, 0) + 1;
    if (!o.failed) continue;
    failures.push_back({{"seed", o.seed}, {"failure", o.failure}, {"detail", o.detail}, {"failures", o.failures},
                        {"drawnFaults", o.drawn_faults}, {"traceHash", o.trace_hash},
                        {"replay", ReplayCommand(args, plan, o.seed)}});
  }
  return {{"scenario", args.scenario},
          {"name", plan.scenario.name},
          {"seeds", {{"first", plan.first}, {"last", plan.last}, {"count", outcomes.size()}}},
          {"passed", outcomes.size() - failed},
          {"failed", failed},
          {"drawnFaults", faults},
          {"ratesPerSeed", rates},
          {"keepExpectations", plan.options.keep_expectations},
          {"failuresByKind", by_failure},
          {"failures", failures}};
}

// Writes seed `seed`'s scenario (with `drawn` faults) into `dir` as `file_name`; false on failure.
bool WriteSeedScenario(const ChaosPlan& plan, std::uint64_t seed, const std::vector<harness::FaultSpec>& drawn,
                       const std::string& dir, const std::string& file_name, const std::string& comment) {
  const harness::Scenario s = harness::chaos::SeedScenario(plan.scenario, seed, drawn, plan.options.keep_expectations);
  const auto text = harness::chaos::SeedScenarioFile(plan.scenario, s, plan.options.keep_expectations, dir, comment);
  if (!text.error.empty()) {
    std::cerr << text.error << "\n";
    return false;
  }
  const std::string path = (std::filesystem::path(dir) / file_name).string();
  if (!harness::WriteReport(path, "scenario", text.text, std::cerr)) return false;
  std::cout << "wrote " << path << "\n";
  return true;
}

// Shrinks the first failing seed; writes `<name>-seed-<N>-shrunk.yaml` into `dir`. False on failure to write.
bool ShrinkFirstFailure(const ChaosArgs& args, const ChaosPlan& plan, const SeedOutcome& failing, const std::string& dir) {
  const std::vector<harness::FaultSpec> drawn =
      harness::chaos::DrawFaults(plan.scenario, plan.options.rates, failing.seed, plan.scenario.faults.size());
  std::cout << "shrink: seed " << failing.seed << " fails " << failing.failure << " with " << drawn.size()
            << " drawn faults\n";
  auto still_fails = [&](const std::vector<harness::FaultSpec>& faults) {
    return harness::chaos::RunSeedWithFaults(plan.scenario, plan.options, failing.seed, faults).failures.count(failing.failure) > 0;
  };
  auto step = [](const std::string& line) { std::cout << line << "\n" << std::flush; };
  const auto result = harness::chaos::Shrink(drawn, plan.scenario.until, still_fails, args.shrink_runs, step);
  std::cout << "shrink: " << drawn.size() << " -> " << result.faults.size() << " drawn faults in " << result.runs << " runs"
            << (result.budget_exhausted ? " (stopped at --shrink-runs; it may shrink further)" : "") << "\n";
  for (const auto& f : result.faults) std::cout << "  " << harness::chaos::DescribeFault(f) << "\n";
  const std::string name = plan.scenario.name + "-seed-" + std::to_string(failing.seed) + "-shrunk.yaml";
  const std::string comment = "Shrunk by dglsim chaos --shrink from " + args.scenario + ", seed " +
                              std::to_string(failing.seed) + ": fails " + failing.failure + " (" + failing.detail +
                              ").\n" + "Once the bug is fixed, `dglsim run` of this file passes: keep it in scenarios/.";
  return WriteSeedScenario(plan, failing.seed, result.faults, dir, name, comment);
}

// Prints each failing seed with its replay command; the number of them.
std::size_t PrintFailures(const ChaosArgs& args, const ChaosPlan& plan, const std::vector<SeedOutcome>& outcomes) {
  std::size_t failed = 0;
  for (const SeedOutcome& o : outcomes) {
    if (!o.failed) continue;
    ++failed;
    std::cout << "FAIL seed " << o.seed << ": " << o.failure << ": " << o.detail << " (" << o.drawn_faults
              << " drawn faults)\n  replay: " << ReplayCommand(args, plan, o.seed) << " --write-scenario DIR\n";
  }
  return failed;
}

// --write-scenario: each seed's scenario into args.write_dir. False when one could not be written.
bool WriteSeedScenarios(const ChaosArgs& args, const ChaosPlan& plan, const std::vector<SeedOutcome>& outcomes) {
  bool written = true;
  if (args.write_dir.empty()) return written;
  for (const SeedOutcome& o : outcomes) {
    const auto drawn = harness::chaos::DrawFaults(plan.scenario, plan.options.rates, o.seed, plan.scenario.faults.size());
    written = WriteSeedScenario(plan, o.seed, drawn, args.write_dir,
                                plan.scenario.name + "-seed-" + std::to_string(o.seed) + ".yaml",
                                "Written by: " + ReplayCommand(args, plan, o.seed) + " --write-scenario DIR") && written;
  }
  return written;
}

// Prints the failing seeds and the total (`how`: the wall time, or how the outcomes were merged);
// writes what was asked for. The exit code.
int Report(const ChaosArgs& args, const ChaosPlan& plan, const std::vector<SeedOutcome>& outcomes, const std::string& how) {
  const std::size_t failed = PrintFailures(args, plan, outcomes);
  char total[160];
  std::snprintf(total, sizeof total, "chaos: %zu seeds (%llu..%llu), %zu passed, %zu failed, ", outcomes.size(),
                static_cast<unsigned long long>(plan.first), static_cast<unsigned long long>(plan.last),
                outcomes.size() - failed, failed);
  std::cout << total << how << "\n" << std::flush;
  bool written = WriteSeedScenarios(args, plan, outcomes);
  if (args.shrink && failed > 0)
    for (const SeedOutcome& o : outcomes)
      if (o.failed) {
        written = ShrinkFirstFailure(args, plan, o, args.write_dir.empty() ? "." : args.write_dir) && written;
        break;
      }
  if (!args.json_path.empty())
    written = harness::WriteReport(args.json_path, "JSON report", Json(args, plan, outcomes, failed).dump(2) + "\n",
                                   std::cerr) && written;
  if (!args.junit_path.empty())
    written = harness::WriteReport(args.junit_path, "JUnit report", JUnit(args, plan, outcomes, failed), std::cerr) && written;
  return failed > 0 || !written ? kExitFailed : kExitOk;
}

// What the campaign is, as each of its slices says (slices.h): the scenario as named, its name, the
// seed range, the options resolved, the replay flags as typed, and the fingerprint of all that and
// of the scenario file's text. nullopt (said on stderr) when the scenario file cannot be read again.
std::optional<kube::Json> CampaignHeader(const ChaosArgs& args, const ChaosPlan& plan) {
  const sim::InputFile text = sim::ReadInputFile(plan.scenario.file, sim::kMaxDocumentBytes);
  if (!text.ok()) {
    std::cerr << plan.scenario.file << ": cannot read the scenario again: " << text.error << "\n";
    return std::nullopt;
  }
  const harness::chaos::ChaosRates& rates = plan.options.rates;
  kube::Json per_seed = kube::Json::object();
  for (const auto& [kind, mean] : rates.per_seed) per_seed[harness::ToString(kind)] = mean;
  kube::Json header = {{"scenario", args.scenario},
                       {"name", plan.scenario.name},
                       {"seeds", {{"first", plan.first}, {"last", plan.last}}},
                       {"ratesPerSeed", per_seed},
                       {"maxConflictRate", rates.max_conflict_rate},
                       {"maxErrorRate", rates.max_error_rate},
                       {"maxTimeoutRate", rates.max_timeout_rate},
                       {"maxForMicros", rates.max_for ? kube::Json(*rates.max_for) : kube::Json()},
                       {"window", rates.window},
                       {"keepExpectations", plan.options.keep_expectations},
                       {"replayFlags", plan.replay_flags}};
  header["fingerprint"] = harness::Fingerprint(header, {text.text});
  return header;
}

// `--shard`: runs the shard's seeds, prints its failing seeds, writes its slice (and with
// --write-scenario its seeds' scenarios). 0 once the slice is written, whatever the seeds did.
int RunShard(const ChaosArgs& args, const ChaosPlan& plan) {
  const std::optional<kube::Json> header = CampaignHeader(args, plan);
  if (!header) return kExitBadInput;
  const harness::Shard shard = *plan.shard;
  harness::chaos::CampaignOptions campaign = Progress(args.jobs);
  campaign.shard = shard;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SeedOutcome> outcomes =
      harness::chaos::RunCampaign(plan.scenario, plan.options, plan.first, plan.last, campaign);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t failed = PrintFailures(args, plan, outcomes);
  const std::string path = SliceFileName(args.out_dir, plan.scenario.name, kSliceMarker, shard);
  bool written = harness::WriteReport(path, "slice", harness::chaos::ChaosSliceJson(*header, shard, outcomes).dump() + "\n", std::cerr);
  char total[200];
  std::snprintf(total, sizeof total, "chaos: shard %zu/%zu: %zu of %llu seeds (%llu..%llu), %zu passed, %zu failed, %.1fs\n",
                shard.index, shard.count, outcomes.size(), static_cast<unsigned long long>(plan.last - plan.first + 1),
                static_cast<unsigned long long>(plan.first), static_cast<unsigned long long>(plan.last), outcomes.size() - failed,
                failed, wall);
  std::cout << total;
  if (written) std::cout << "wrote " << path << "\n";
  written = WriteSeedScenarios(args, plan, outcomes) && written;
  return written ? kExitOk : kExitFailed;
}

int Chaos(const ChaosArgs& args) {
  std::optional<ChaosPlan> plan = Plan(args);
  if (!plan) return kExitBadInput;
  if (plan->shard) return RunShard(args, *plan);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SeedOutcome> outcomes =
      harness::chaos::RunCampaign(plan->scenario, plan->options, plan->first, plan->last, Progress(args.jobs));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char how[32];
  std::snprintf(how, sizeof how, "%.1fs", wall);
  return Report(args, *plan, outcomes, how);
}

// The campaign's arguments and plan from a merged header (CampaignHeader), as the shards had them;
// problems into `problems`. The scenario is not loaded here (merge loads it only to write scenarios).
void PlanFromHeader(const kube::Json& header, ChaosArgs& args, ChaosPlan& plan, std::vector<std::string>& problems) {
  try {
    args.scenario = header.at("scenario").get<std::string>();
    plan.scenario.name = header.at("name").get<std::string>();
    plan.first = header.at("seeds").at("first").get<std::uint64_t>();
    plan.last = header.at("seeds").at("last").get<std::uint64_t>();
    harness::chaos::ChaosRates& rates = plan.options.rates;
    rates.per_seed.clear();
    for (const auto& [name, mean] : header.at("ratesPerSeed").items()) {
      const auto kind = harness::chaos::FaultKindNamed(name);
      if (!kind) throw std::runtime_error("ratesPerSeed: unknown fault kind \"" + name + "\"");
      rates.per_seed[*kind] = mean.get<double>();
    }
    rates.max_conflict_rate = header.at("maxConflictRate").get<double>();
    rates.max_error_rate = header.at("maxErrorRate").get<double>();
    rates.max_timeout_rate = header.at("maxTimeoutRate").get<double>();
    if (!header.at("maxForMicros").is_null()) rates.max_for = header.at("maxForMicros").get<kube::Micros>();
    rates.window = header.at("window").get<double>();
    plan.options.keep_expectations = header.at("keepExpectations").get<bool>();
    plan.replay_flags = header.at("replayFlags").get<std::string>();
  } catch (const std::exception& e) {
    problems.push_back(std::string("the slices' campaign header is not one dglsim chaos --shard writes: ") + e.what());
  }
}

// merge --write-scenario / --shrink: the scenario the shards ran, loaded again and checked unchanged.
void LoadMergedScenario(const kube::Json& header, const ChaosArgs& args, ChaosPlan& plan, std::vector<std::string>& problems) {
  harness::ScenarioLoad load = harness::LoadScenario(args.scenario);
  for (const auto& w : load.warnings) std::cerr << w << "\n";
  for (const auto& p : load.problems) problems.push_back(p);
  if (!load.ok()) {
    if (load.problems.empty()) problems.push_back(args.scenario + ": the scenario could not be loaded");
    return;
  }
  plan.scenario = std::move(*load.scenario);
  const std::optional<kube::Json> now = CampaignHeader(args, plan);
  if (!now) {
    problems.push_back(args.scenario + ": cannot read the scenario the shards ran");
  } else if ((*now)["fingerprint"] != header["fingerprint"]) {
    problems.push_back(args.scenario + ": not the scenario the shards ran (it changed since: fingerprint " +
                       (*now)["fingerprint"].get<std::string>() + ", the slices' " + header["fingerprint"].get<std::string>() +
                       "): --write-scenario and --shrink need it as it was");
  }
}

int Merge(const MergeArgs& merge) {
  const std::vector<std::string> files = SliceFiles(merge.slices, kSliceMarker);
  std::vector<std::string> problems;
  const std::vector<kube::Json> slices = ReadSlices(files, &problems);
  std::optional<harness::chaos::MergedCampaign> merged;
  if (problems.empty()) merged = harness::chaos::MergeChaosSlices(slices, files, &problems);
  ChaosArgs args;
  ChaosPlan plan;
  if (merged) {
    args.json_path = merge.json_path;
    args.junit_path = merge.junit_path;
    args.write_dir = merge.write_dir;
    args.shrink = merge.shrink;
    args.shrink_runs = merge.shrink_runs;
    PlanFromHeader(merged->header, args, plan, problems);
    CheckOutputs(args.json_path, args.junit_path, args.write_dir, problems);
    if (problems.empty() && (!args.write_dir.empty() || args.shrink)) LoadMergedScenario(merged->header, args, plan, problems);
  }
  for (const std::string& p : problems) std::cerr << p << "\n";
  if (!merged || !problems.empty()) return kExitBadInput;
  const std::size_t shards = slices.front()["shard"]["count"].get<std::size_t>();
  return Report(args, plan, merged->outcomes, "merged from " + std::to_string(shards) + " shard" + (shards == 1 ? "" : "s"));
}

}  // namespace

Subcommand AddChaosCommand(CLI::App& app) {
  auto args = std::make_shared<ChaosArgs>();
  CLI::App* chaos = app.add_subcommand(
      "chaos",
      "Run a scenario once per seed with a random fault schedule added to its own faults; check every invariant");
  // Both required (checked in Plan, so that `chaos merge` needs neither).
  chaos->add_option("SCENARIO", args->scenario, "The scenario file (YAML, kind: Scenario)");
  chaos->add_option("--seeds", args->seeds, "Seeds to run: A..B (both included) or N; seed N draws the faults and seeds the run");
  chaos->add_option("--jobs,-j", args->jobs, "Seeds run at once, each on its own thread (default: one per core)")
      ->check(CLI::Range(0, 1024));
  chaos->add_option("--rate", args->rates,
                    "KIND=MEAN: mean number of faults of KIND per seed (repeatable; 0 turns a kind off). Defaults: "
                    "NodeDown=1 NodeUp=0.5 PodKill=1 OOM=0.5 ImagePullError=0.5 NetworkSlow=0.5 ApiFaults=1 "
                    "WatchDrop=1 OperatorRestart=1")
      ->allow_extra_args(false);  // one KIND=MEAN per --rate: the scenario may follow
  args->max_conflict_option = chaos->add_option("--max-conflict-rate", args->max_conflict_rate,
                                                "Highest ApiFaults conflictRate drawn (default 0.3)")->check(CLI::Range(0.0, 1.0));
  args->max_error_option = chaos->add_option("--max-error-rate", args->max_error_rate,
                                             "Highest ApiFaults errorRate drawn (default 0.05)")->check(CLI::Range(0.0, 1.0));
  args->max_timeout_option = chaos->add_option("--max-timeout-rate", args->max_timeout_rate,
                                               "Highest ApiFaults timeoutRate drawn (default 0.02)")->check(CLI::Range(0.0, 1.0));
  chaos->add_option("--max-for", args->max_for, "Longest `for` of a drawn fault (default: a quarter of the scenario's until)");
  chaos->add_flag("--keep-expectations", args->keep_expectations,
                  "Also judge the scenario's own expect: list (by default only the invariants, which hold under any faults)");
  chaos->add_option("--json", args->json_path, "Write a JSON summary (counts, every failing seed with its replay command)");
  chaos->add_option("--junit", args->junit_path, "Write a JUnit XML report, one test case per seed");
  chaos->add_option("--write-scenario", args->write_dir,
                    "Write each seed's scenario, its faults listed, into this directory as <name>-seed-<N>.yaml "
                    "(`dglsim run` of it reproduces the seed's run)");
  chaos->add_flag("--shrink", args->shrink,
                  "Shrink the first failing seed's faults to a small schedule that fails the same invariant; write it as "
                  "<name>-seed-<N>-shrunk.yaml (into the --write-scenario directory, else the current one)");
  chaos->add_option("--shrink-runs", args->shrink_runs, "Most runs the shrinker makes (default 300)")->check(CLI::Range(1, 100000));
  chaos->add_option("--shard", args->shard,
                    "Run shard I of N (I/N: seeds A+I, A+I+N, ...), or N with I from JOB_COMPLETION_INDEX; writes the "
                    "shard's slice only, for `dglsim chaos merge`");
  chaos->add_option("--out", args->out_dir,
                    "With --shard: write the slice here as <name>.chaos-shard-I-of-N.json (created when missing; default .)");
  auto merge_args = std::make_shared<MergeArgs>();
  CLI::App* merge = chaos->add_subcommand(
      "merge", "Join the slices of a sharded campaign: the unsharded campaign's output, JSON and JUnit, byte for byte");
  merge->add_option("SLICES", merge_args->slices, "Slice files, or directories holding *.chaos-shard-I-of-N.json")->required();
  merge->add_option("--json", merge_args->json_path, "Write the JSON summary, as the unsharded campaign does");
  merge->add_option("--junit", merge_args->junit_path, "Write the JUnit XML report, as the unsharded campaign does");
  merge->add_option("--write-scenario", merge_args->write_dir,
                    "Write each seed's scenario into this directory (reads the scenario file the shards ran)");
  merge->add_flag("--shrink", merge_args->shrink,
                  "Shrink the campaign's first failing seed, as the unsharded campaign does (reads the scenario file "
                  "the shards ran, which must be unchanged)");
  merge->add_option("--shrink-runs", merge_args->shrink_runs, "Most runs the shrinker makes (default 300)")->check(CLI::Range(1, 100000));
  return Subcommand{chaos, [args, merge, merge_args] { return merge->parsed() ? Merge(*merge_args) : Chaos(*args); }};
}

}  // namespace dglsim_cli
