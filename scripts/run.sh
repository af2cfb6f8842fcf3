#!/usr/bin/env bash
# The project's main job: installs missing Debian packages, builds dglsim (RelWithDebInfo, build/),
# prints its version, validates the original DGL Operator's example manifests with it, and runs the
# default scenario suite (scenarios/), writing a JUnit report to build/scenarios.junit.xml.
# Exits non-zero on any failure.
# DGLSIM_JOBS sets build parallelism (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=${DGLSIM_JOBS:-2}
examples=../shared/reference/dgl-operator-examples

bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs" --target dglsim
dglsim=build/sim/dglsim

echo
"$dglsim" --version

if ! compgen -G "$examples/*.yaml" >/dev/null; then
  echo "run.sh: no example manifests in $examples (the shared folder belongs beside the clone)" >&2
  exit 1
fi

echo
echo "== dglsim validate: the original operator's example manifests ($examples)"
total=0
valid=0
for manifest in "$examples"/*.yaml; do
  total=$((total + 1))
  if "$dglsim" validate "$manifest"; then
    valid=$((valid + 1))
  fi
done

echo
echo "== dglsim suite: the default scenarios (scenarios/)"
suite_status=0
"$dglsim" suite scenarios/ --junit build/scenarios.junit.xml || suite_status=$?

echo
echo "== Summary: $valid of $total example manifests valid; scenario suite exit code $suite_status"
echo "   (one scenario in detail: $dglsim run scenarios/node-down-during-training.yaml)"
[ "$valid" -eq "$total" ] && [ "$suite_status" -eq 0 ]
