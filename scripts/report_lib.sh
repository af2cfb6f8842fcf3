# What the report scripts share (sourced by scripts/capacity-report.sh and
# scripts/proposal-report.sh): each regenerates one committed Markdown report and its SVG plots from
# the sweep files in a folder beside it, or, with --check, regenerates them into a scratch folder
# and fails when anything differs from what is committed.
#
#   report_init NAME "$@"   parses [--check] [DGLSIM] (default build/sim/dglsim, built when
#                           missing) and sets: check (0/1), dglsim, jobs (DGLSIM_JOBS, default 2),
#                           src (reports/NAME), dir (where the sweeps run and the SVGs go: src, or a
#                           scratch copy of its YAML files under --check), report (the Markdown
#                           written: reports/NAME.md, or the scratch copy), data (a scratch folder
#                           for each sweep's JSON results)
#   report_section SWEEP    runs dir/SWEEP.yaml, writes its JSON to data/SWEEP.json, prints its
#                           Markdown section with the image links made relative to the report
#   report_finish           moves the report into place; under --check compares it and every SVG
#                           with the committed ones (exit 1 on a difference)
#
# Callers run from the repository's root (report_init changes there) with `set -euo pipefail`.

report_init() {
  report_name=$1
  shift
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  check=0
  if [[ ${1:-} == --check ]]; then check=1; shift; fi
  dglsim=${1:-build/sim/dglsim}
  jobs=${DGLSIM_JOBS:-2}
  if [[ ! -x $dglsim ]]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build build -j "$jobs" --target dglsim
    dglsim=build/sim/dglsim
  fi
  src=reports/$report_name
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  data=$scratch/data
  mkdir -p "$data"
  if ((check)); then
    dir=$scratch/$report_name
    mkdir -p "$dir"
    cp "$src"/*.yaml "$dir"/
    report=$scratch/$report_name.md
  else
    dir=$src
    report=reports/$report_name.md
    rm -f "$dir"/*.svg
  fi
}

report_section() {
  local name=$1
  echo "sweep $name ..." >&2
  "$dglsim" sweep "$dir/$name.yaml" --jobs "$jobs" --quiet --markdown "$dir/$name.md" --json "$data/$name.json"
  sed "s#](\($name-[^)]*\.svg\))#]($report_name/\1)#" "$dir/$name.md"
  rm -f "$dir/$name.md"
}

report_finish() {
  mv "$report.tmp" "$report"
  if ((check)); then
    local status=0 f
    diff -u "reports/$report_name.md" "$report" >&2 || status=1
    for f in "$dir"/*.svg; do
      cmp -s "$f" "$src/$(basename "$f")" || { echo "differs: $src/$(basename "$f")" >&2; status=1; }
    done
    for f in "$src"/*.svg; do
      [[ -e $dir/$(basename "$f") ]] || { echo "no longer written: $f" >&2; status=1; }
    done
    ((status == 0)) && echo "reports/$report_name.md matches a fresh run"
    return $status
  fi
  echo "wrote $report and $(ls "$dir"/*.svg | wc -l) SVG files in $dir"
}
