#!/usr/bin/env bash
# Builds and runs every test, as CI does (.ci/run calls this). One build, in build-ci/, compiled
# once and run for everything:
#   clang++, AddressSanitizer + UndefinedBehaviorSanitizer, -O1 -g1 for the layers the simulation
#   runs in its loop, -O0 -g1 for the test modules (tests/CMakeLists.txt) and the layers around it
#   (DGLSIM_COLD_O0: loader, reports, drivers, command lines), every program linking the optimized
#   layers' objects first (dglsim_link_hot_first in CMakeLists.txt), each layer of the tree
#   compiled as one unit (DGLSIM_UNITY), warnings as errors; the GoogleTest binaries, dglsim and
#   dgl-operator. Not the benchmarks (DGLSIM_BENCH=OFF): nothing here ran them, and compiling them
#   under the sanitizers was a minute of the build's CPU (half a minute of CI's time); a plain build
#   (docs/testing.md, "Building by hand") compiles them, scripts/perf-report.sh the two its report runs.
# A compile check follows: the programs and libraries built again with g++ in Release (-O3),
# warnings as errors, in build-release/ (g++ warns at -O3 where clang does not).
# Then, all under the sanitizers, so a memory error or undefined behaviour anywhere fails the run:
#   1. every GoogleTest binary, each run once in $DGLSIM_JOBS shards;
#   2. the scenario suite (one CTest entry per scenarios/*.yaml) and the shell tests of dglsim and
#      dgl-operator as users run them (CTest labels scenario and cli); then, where Go is installed,
#      the real control plane is built (scripts/control-plane.sh build, cached by version) and the
#      tests against it run (CTest label realk8s; skipped, exit 77, without Go);
#   3. a chaos campaign: 1,000 seeds of random faults over scenarios/chaos/three-modes.yaml, every
#      invariant checked, split over $DGLSIM_JOBS processes (CTest label chaos);
#   4. a short fuzz pass: each libFuzzer target of tests/fuzz replays its seed corpus (every crash
#      found so far among it), then tries DGLSIM_FUZZ_RUNS new inputs from a fixed seed (default
#      2000, cut short after DGLSIM_FUZZ_SECONDS, default 20) (CTest label fuzz; left out where
#      clang has no libFuzzer). The rest of the build is not instrumented for coverage feedback, so
#      these mutations are unguided: scripts/fuzz.sh runs the targets guided and longer;
#   5. the coverage gate: the API server, the client library and the operator are compiled with
#      clang's source-based coverage (DGLSIM_GATED_COVERAGE), every step above writes its profiles
#      to build-ci/profiles/, and scripts/coverage_gate.sh fails the run when one of the three
#      covers less than 90 % of its lines (DGLSIM_COVERAGE_GATE to change it).
# Why this shape: on a 2-core machine the build is most of the time. clang compiles this code about
# twice as fast as g++, a unity build of a layer about five times as fast as its files one by one,
# and one sanitized build replaces the separate release and sanitizer builds CI used to make.
# scripts/run.sh (the main job) still builds the RelWithDebInfo binaries users run, in build/.
# Installs missing Debian packages first (scripts/deps.sh). Exits non-zero if anything fails and
# prints how long each step took.
# DGLSIM_JOBS sets build and test parallelism (default: the number of cores). ccache is used when
# installed (CI machines do not have it; nothing here needs it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/gtest_shards.sh

jobs=${DGLSIM_JOBS:-$(nproc)}
status=0
started=$SECONDS
step_started=$SECONDS
declare -a timings=()

step() {
  if [ -n "${current:-}" ]; then
    timings+=("$(printf '%-52s %4d s' "$current" $((SECONDS - step_started)))")
  fi
  current=$1
  step_started=$SECONDS
  echo "== $1"
}

step "Debian packages (scripts/deps.sh)"
bash scripts/deps.sh

step "build: clang, ASan + UBSan, unity (build-ci/)"
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build-ci -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" -DDGLSIM_SANITIZE=ON -DDGLSIM_UNITY=ON -DDGLSIM_WERROR=ON \
  -DDGLSIM_GATED_COVERAGE=ON -DDGLSIM_COLD_O0=ON -DDGLSIM_BENCH=OFF -DDGLSIM_CHAOS_SEEDS=1000 -DDGLSIM_CHAOS_SHARDS="$jobs" -DDGLSIM_FUZZ=ON -DDGLSIM_FUZZ_FEEDBACK=OFF \
  -DDGLSIM_FUZZ_RUNS=${DGLSIM_FUZZ_RUNS:-2000} -DDGLSIM_FUZZ_SECONDS=${DGLSIM_FUZZ_SECONDS:-20} "${launcher[@]}" >/dev/null
cmake --build build-ci -j "$jobs"

step "compile check: g++ Release, warnings as errors, unity (build-release/)"
# The sanitized build is clang's; g++ at -O3 warns where clang does not (-Wmaybe-uninitialized,
# libstdc++'s -Wrestrict false positives), and users build with g++ (README). So the programs and
# libraries compile once more, with g++ in Release, each layer as one unit, warnings as errors.
# Nothing runs them: no tests, no benchmarks. Cold (empty ccache) it cost 424 s of CPU (405 s user,
# 19 s system; g++ 12, the shared 2-core machine under a load of about 20), so about 3.5 min of wall
# time on two idle cores; with ccache warm, seconds.
cmake -S . -B build-release -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Release -DDGLSIM_UNITY=ON \
  -DDGLSIM_WERROR=ON -DDGLSIM_UNIT_TESTS=OFF -DDGLSIM_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build build-release -j "$jobs" || status=1

# Allocation and free stacks two frames deep, and a 16 MB quarantine of freed memory (ASan's
# defaults: 30 frames, 256 MB). Every memory error is still caught and reported with the whole
# stack of the access; only the stacks of where the memory was allocated and freed are short.
# Measured on 12 chaos seeds in this build (one thread, median of three): 4.95 s of CPU with the
# defaults, 2.88 s with these, and 72 MB peak instead of 465 MB. To see the long stacks of a
# failure, run its command again with ASAN_OPTIONS=malloc_context_size=30.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:malloc_context_size=2:quarantine_size_mb=16}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Every process of every step adds its coverage counts to a small pool of files (%4m: merged in
# place, four per program), read by the gate at the end.
rm -rf build-ci/profiles
export LLVM_PROFILE_FILE=$PWD/build-ci/profiles/%4m.profraw

step "unit tests (build-ci/tests/*_tests, sharded)"
# Each GoogleTest binary runs once, split into shards that $jobs processes run side by side
# (scripts/gtest_shards.sh), rather than once per test through CTest: a sanitized binary takes
# about half a second to start, and a thousand starts were most of this step. A failing shard
# prints its log. (`ctest --test-dir build-ci -L unit` still runs every test in a process of its
# own.)
# The scenarios of scenarios/ are not among them: the next step runs each once, one CTest entry per
# file.
# The largest binary first, so that the pool's last shards are short ones.
mapfile -t unit_bins < <(ls -S build-ci/tests/*_tests)
if run_gtest_shards "$jobs" build-ci shard cat "${unit_bins[@]}"; then
  echo "unit tests: every shard of ${unit_bins[*]##*/} passed"
else
  status=1
fi

step "scenario suite and shell tests (build-ci/)"
# Twice as many at once as there are cores: the end-to-end tests against `dglsim serve` run in real
# time (the simulation paced at ten times the wall clock) and spend half of it waiting (the operator
# over HTTP: 18.7 s of wall time for 8.8 s of CPU), which the other tests fill.
ctest --test-dir build-ci --output-on-failure -j "$((jobs * 2))" -L 'scenario|cli' || status=1

step "real control plane (scripts/control-plane.sh; CTest label realk8s)"
# kube-apiserver, kube-controller-manager, kube-scheduler, etcd and kwok built from Go modules and
# cached outside the tree by version (docs/real-control-plane.md): seconds when cached, a long
# cold build the first time on a machine. Without Go the build exits 77 and every realk8s test
# reports itself skipped.
cp_status=0
bash scripts/control-plane.sh build || cp_status=$?
if [ "$cp_status" -eq 77 ]; then
  echo "real control plane: Go is not installed; the realk8s tests are skipped"
elif [ "$cp_status" -ne 0 ]; then
  status=1
fi
ctest --test-dir build-ci --output-on-failure -j "$jobs" -L realk8s || status=1

step "chaos campaign (build-ci/)"
# The chaos regressions (labels scenario and chaos) ran with the suite.
ctest --test-dir build-ci --output-on-failure -j "$jobs" -L chaos -LE scenario || status=1

step "fuzz pass (build-ci/, DGLSIM_FUZZ_RUNS inputs per target)"
ctest --test-dir build-ci --output-on-failure -j "$jobs" -L fuzz || status=1

step "coverage gate (scripts/coverage_gate.sh)"
bash scripts/coverage_gate.sh build-ci --gate "${DGLSIM_COVERAGE_GATE:-90}" || status=1

step "done"
echo "test.sh: time per step"
printf '  %s\n' "${timings[@]}"
echo "  total $((SECONDS - started)) s"
if [ "$status" -eq 0 ]; then
  echo "test.sh: all tests passed (units, scenarios, shell tests, the chaos campaign and the fuzz pass, under ASan+UBSan), the g++ Release build compiled without a warning and the coverage gate held"
else
  echo "test.sh: FAILED (see the output above; a sanitizer report shows short allocation stacks: run the failing command again with ASAN_OPTIONS=malloc_context_size=30 for whole ones)"
fi
exit "$status"
