#!/usr/bin/env bash
# Runs a scenario that reads the original operator's example manifests from ../shared (they are
# never copied into the project). Without that folder beside the clone the test reports itself
# skipped (exit 77), so a stranger's clone passes with nothing beside it.
# usage: shared_scenario_test.sh DGLSIM SCENARIO SHARED_EXAMPLES_DIR
set -u
dglsim=$1 scenario=$2 examples=$3
if [ ! -d "$examples" ]; then
  echo "skipped: $examples is not there (the shared folder belongs beside the clone)"
  exit 77
fi
exec "$dglsim" run --quiet "$scenario"
