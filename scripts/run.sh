#!/usr/bin/env bash
# The project's main job: installs missing Debian packages, builds dglsim (RelWithDebInfo, build/),
# prints its version, validates the project's example manifests (scenarios/manifests/) and, when the
# shared folder is beside the clone, the original DGL Operator's six examples (../shared), and runs
# the default scenario suite (scenarios/), writing a JUnit report to reports/scenarios.junit.xml.
# Needs nothing beside the clone. Exits non-zero on any failure.
# DGLSIM_JOBS sets build parallelism (default: the number of cores, as scripts/test.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs=${DGLSIM_JOBS:-$(nproc)}
originals=../shared/reference/dgl-operator-examples

bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs" --target dglsim
dglsim=build/sim/dglsim

echo
"$dglsim" --version

manifests=(scenarios/manifests/*.yaml)
if compgen -G "$originals/*.yaml" >/dev/null; then
  manifests+=("$originals"/*.yaml)
  echo "(the original operator's examples are beside the clone: validating them too)"
fi

echo
echo "== dglsim validate: example manifests"
total=0
valid=0
for manifest in "${manifests[@]}"; do
  total=$((total + 1))
  if "$dglsim" validate "$manifest"; then
    valid=$((valid + 1))
  fi
done

echo
echo "== dglsim suite: the default scenarios (scenarios/)"
suite_status=0
mkdir -p reports
"$dglsim" suite scenarios/ --junit reports/scenarios.junit.xml || suite_status=$?

echo
echo "== Summary: $valid of $total example manifests valid; scenario suite exit code $suite_status"
echo "   (one scenario in detail: $dglsim run scenarios/node-down-during-training.yaml)"
[ "$valid" -eq "$total" ] && [ "$suite_status" -eq 0 ]
