#!/usr/bin/env bash
# End-to-end test of the dglsim binary as a user runs it: version, help, exit codes and the
# `FILE:LINE:COL: field.path: message` lines of `dglsim validate`.
# Usage: dglsim_cli_test.sh DGLSIM_BINARY EXAMPLES_DIR OWN_MANIFESTS_DIR   (CTest passes all three)
# EXAMPLES_DIR holds the original operator's six manifests (../shared): where it is missing, the
# checks of the originals are skipped and the rest still runs.
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM_BINARY EXAMPLES_DIR}
examples=${2:?usage: $0 DGLSIM_BINARY EXAMPLES_DIR OWN_MANIFESTS_DIR}
own=${3:?usage: $0 DGLSIM_BINARY EXAMPLES_DIR OWN_MANIFESTS_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# fail, run and expect_line.
source "$(dirname "${BASH_SOURCE[0]}")/dglsim_lib.sh"

# --version and --help
if run version 0 --version; then
  expect_line version out '^dglsim [0-9]+\.[0-9]+\.[0-9]+$'
fi
if run help 0 --help; then
  expect_line help out 'validate'
fi
run no-subcommand 2
run unknown-subcommand 2 frobnicate && expect_line unknown-subcommand err 'frobnicate'
run validate-without-file 2 validate

# serve's limits are checked before anything is loaded or bound.
scenario_dir=$(cd "$(dirname "$0")" && pwd)/kubectl-e2e
run serve-bad-quota 2 serve "$scenario_dir/scenario.yaml" --storage-quota lots &&
  expect_line serve-bad-quota err 'storage-quota: "lots" is not a byte quantity'
run serve-bad-history 2 serve "$scenario_dir/scenario.yaml" --watch-history -1 &&
  expect_line serve-bad-history err 'watch-history: -1 is not between'
run serve-too-many-connections 2 serve "$scenario_dir/scenario.yaml" --max-connections 5000 &&
  expect_line serve-too-many-connections err 'max-connections must be 1 to 900'
run serve-no-watches 2 serve "$scenario_dir/scenario.yaml" --max-watches 0 &&
  expect_line serve-no-watches err 'max-watches at least 1'

# The project's own manifests are valid.
count=0
for manifest in "$own"/*.yaml; do
  [ -e "$manifest" ] || continue
  count=$((count + 1))
  name="own-$(basename "$manifest" .yaml)"
  run "$name" 0 validate "$manifest" && expect_line "$name" out "^$manifest: 1 document, valid$"
done
[ "$count" -ge 1 ] || fail "no manifests in $own"
good="$own/$(ls "$own" | head -1)"

# Every example manifest of the original operator is valid, legacy apiVersion and all.
if [ -d "$examples" ]; then
  count=0
  for manifest in "$examples"/*.yaml; do
    [ -e "$manifest" ] || continue
    count=$((count + 1))
    name="example-$(basename "$manifest" .yaml)"
    if run "$name" 0 validate "$manifest"; then
      expect_line "$name" out "^$manifest: 1 document, valid$"
      expect_line "$name" out "^$manifest:1:13: warning: .*qihoo.net/v1alpha1"
    fi
  done
  [ "$count" -eq 6 ] || fail "expected the 6 example manifests in $examples, found $count"
  # Several files at once: one summary line each.
  run all-examples 0 validate "$examples"/*.yaml && expect_line all-examples out "node_classification.yaml: 1 document, valid$"
else
  echo "note: $examples is not there; the original manifests' checks are skipped"
fi

# Broken YAML: exit 2, file:line:col of the syntax error.
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\ndata: {}\n' >"$tmp/broken.yaml"
run broken-yaml 2 validate "$tmp/broken.yaml" && expect_line broken-yaml err "^$tmp/broken.yaml:[0-9]+:[0-9]+: "

# An invalid DGLJob: both problems, each at its own line and column with its field path.
cat >"$tmp/invalid-job.yaml" <<'EOF'
apiVersion: kubeflow.org/v1alpha1
kind: DGLJob
metadata:
  name: bad
spec:
  partitionMode: Sideways
  dglReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: launcher
            image: dgloperator/examples:graphsage-dist
    Worker:
      replicas: 0
      template:
        spec:
          containers:
          - name: worker
            image: dgloperator/examples:graphsage-dist
EOF
if run invalid-job 2 validate "$tmp/invalid-job.yaml"; then
  expect_line invalid-job err "^$tmp/invalid-job.yaml:6:18: spec.partitionMode: Unsupported value: \"Sideways\""
  expect_line invalid-job err "^$tmp/invalid-job.yaml:16:17: spec.dglReplicaSpecs.Worker.replicas: Invalid value: 0"
fi

# A manifest without a name, and an unknown kind.
printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {a: b}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n' \
  >"$tmp/two.yaml"
if run two-problems 2 validate "$tmp/two.yaml"; then
  expect_line two-problems err "^$tmp/two.yaml:3:1: metadata.name: Required value"
  expect_line two-problems err "^$tmp/two.yaml:7:7: kind: Unsupported value: \"Deployment\""
fi

# A good file and a bad one: exit 2, the good one still reported valid.
run mixed 2 validate "$good" "$tmp/broken.yaml" && expect_line mixed out "^$good: 1 document, valid$"

# Missing file, a directory, an empty file, binary garbage: exit 2 with a message, never a crash.
run missing-file 2 validate "$tmp/does-not-exist.yaml" && expect_line missing-file err "^$tmp/does-not-exist.yaml: cannot open"
run directory 2 validate "$tmp" && expect_line directory err "is a directory"
: >"$tmp/empty.yaml"
run empty-file 2 validate "$tmp/empty.yaml" && expect_line empty-file err "no Kubernetes objects"
head -c 4096 /dev/urandom >"$tmp/garbage.yaml" 2>/dev/null || printf '\x00\xff\x01{[' >"$tmp/garbage.yaml"
"$dglsim" validate "$tmp/garbage.yaml" >"$tmp/garbage.out" 2>"$tmp/garbage.err"
code=$?
[ "$code" -eq 0 ] || [ "$code" -eq 2 ] || fail "garbage: exit $code, expected 0 or 2"
printf 'a: &x [*x]\n' >"$tmp/cycle.yaml"
run alias-cycle 2 validate "$tmp/cycle.yaml" && expect_line alias-cycle err "cycle.yaml:1:[0-9]+: "

# Scenario files go through the full scenario loader: the project's own scenarios are valid, and a
# scenario without a cluster is bad input with a file:line:col.
scenarios="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scenarios"
for scenario in "$scenarios"/*.yaml; do
  [ -e "$scenario" ] || continue
  name="scenario-$(basename "$scenario" .yaml)"
  run "$name" 0 validate "$scenario" && expect_line "$name" out "^$scenario: .*valid$"
done
printf 'apiVersion: dglsim/v1\nkind: Scenario\nmetadata:\n  name: smoke\nseed: 42\n' >"$tmp/scenario.yaml"
run scenario-without-cluster 2 validate "$tmp/scenario.yaml" &&
  expect_line scenario-without-cluster err "^$tmp/scenario.yaml:[0-9]+:[0-9]+: .*cluster"

# --progress: lines on stderr at each hundredth of `until` reached, percentages rising; the summary
# and the report are those of the same run without it.
fleet_day=$own/../scale/fleet-day.yaml
if run progress 0 run "$fleet_day" --progress --json "$tmp/progress.json" &&
  run no-progress 0 run "$fleet_day" --json "$tmp/no-progress.json"; then
  expect_line progress err '^progress: 1% \(28m50s of 2d simulated\), [0-9,]+ events, [0-9,]+ API writes, [0-9,]+ objects$'
  [ -s "$tmp/no-progress.err" ] && fail "no-progress: stderr is not empty without --progress"
  percents=$(sed -n 's/^progress: \([0-9]*\)%.*/\1/p' "$tmp/progress.err")
  [ "$(echo "$percents" | wc -l)" -ge 10 ] || fail "progress: fewer than 10 progress lines"
  [ "$percents" = "$(echo "$percents" | sort -n -u)" ] || fail "progress: the percentages do not rise: $percents"
  cmp -s "$tmp/progress.out" "$tmp/no-progress.out" || fail "progress: the summary differs from the run without --progress"
  hash() { grep -o '"traceHash": "[0-9a-f]*"' "$1"; }
  [ -n "$(hash "$tmp/progress.json")" ] && [ "$(hash "$tmp/progress.json")" = "$(hash "$tmp/no-progress.json")" ] ||
    fail "progress: the trace hash differs from the run without --progress"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all dglsim CLI checks passed"
