#!/usr/bin/env bash
# Builds and runs every test, as CI does (.ci/run calls this):
#   1. RelWithDebInfo build in build/: every CTest test (GoogleTest units, the dglsim CLI test).
#   2. Debug build with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/: the unit
#      tests and the CLI test again, so memory errors and undefined behaviour fail the run.
# Installs missing Debian packages first (scripts/deps.sh). Exits non-zero if anything fails.
# DGLSIM_JOBS sets build and test parallelism (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=${DGLSIM_JOBS:-2}
status=0

bash scripts/deps.sh

echo "== RelWithDebInfo build (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDGLSIM_WERROR=ON
cmake --build build -j "$jobs"
echo "== Tests (build/)"
ctest --test-dir build --output-on-failure -j "$jobs" || status=1

echo "== Debug build with ASan + UBSan (build-asan/)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDGLSIM_SANITIZE=ON -DDGLSIM_BENCH=OFF -DDGLSIM_WERROR=ON
cmake --build build-asan -j "$jobs"
echo "== Unit and CLI tests under sanitizers (build-asan/)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir build-asan --output-on-failure -j "$jobs" -L 'unit|cli' || status=1

if [ "$status" -eq 0 ]; then
  echo "test.sh: all tests passed (RelWithDebInfo, and ASan+UBSan)"
else
  echo "test.sh: FAILED (see the CTest output above)"
fi
exit "$status"
