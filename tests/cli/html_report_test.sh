#!/usr/bin/env bash
# The page of `dglsim run --html` in a real browser: headless Chromium loads it from disk (no
# network), lays it out and runs its script, which writes how many pod bars, node rows and phase
# bars it drew (with a size) into data-* attributes of <body>; the dumped DOM must show as many as
# the page has, and a screenshot must not be blank.
# Usage: html_report_test.sh DGLSIM_BINARY SCENARIO.yaml   (CTest passes both)
# Chromium is required (scripts/deps.sh installs it); DGLSIM_SKIP_BROWSER=1 skips the test (exit 77).
set -uo pipefail

dglsim=${1:?usage: $0 DGLSIM_BINARY SCENARIO.yaml}
scenario=${2:?usage: $0 DGLSIM_BINARY SCENARIO.yaml}

if [ "${DGLSIM_SKIP_BROWSER:-0}" = 1 ]; then
  echo "SKIP: DGLSIM_SKIP_BROWSER=1, the HTML report is not rendered in a browser"
  exit 77
fi
browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$(command -v "$candidate")
    break
  fi
done
if [ -z "$browser" ]; then
  echo "FAIL: chromium not found; scripts/deps.sh installs it (or set DGLSIM_SKIP_BROWSER=1 to skip this test)"
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

"$dglsim" run "$scenario" --quiet --html "$tmp/report.html" --trace "$tmp/trace.json" >"$tmp/run.out" 2>"$tmp/run.err"
code=$?
if [ "$code" -ne 0 ] || [ ! -s "$tmp/report.html" ]; then
  echo "FAIL: dglsim run $scenario --html exited $code"
  cat "$tmp/run.out" "$tmp/run.err"
  exit 1
fi

# What the page holds, counted in its source.
want_pods=$(grep -o '<g class="pod"' "$tmp/report.html" | wc -l)
want_nodes=$(grep -o '<g class="node">' "$tmp/report.html" | wc -l)
want_phases=$(grep -o '<g class="phasebar"' "$tmp/report.html" | wc -l)
[ "$want_pods" -gt 0 ] || fail "the page has no pod bars"
[ "$want_nodes" -gt 0 ] || fail "the page has no node rows"

# Headless and offline: no network, no first-run work, a throw-away profile.
chrome() {
  local profile
  profile=$(mktemp -d "$tmp/profile.XXXX")
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-extensions \
    --disable-dev-shm-usage --user-data-dir="$profile" "$@" 2>>"$tmp/chrome.err"
}

chrome --dump-dom "file://$tmp/report.html" >"$tmp/dom.html"
if [ ! -s "$tmp/dom.html" ]; then
  fail "chromium dumped no DOM"
  tail -20 "$tmp/chrome.err"
fi
attr() { grep -o "$1=\"[0-9]*\"" "$tmp/dom.html" | head -1 | grep -o '[0-9]*'; }
got_pods=$(attr data-pod-bars)
got_nodes=$(attr data-node-rows)
got_phases=$(attr data-phase-bars)
[ "${got_pods:-none}" = "$want_pods" ] || fail "chromium drew ${got_pods:-no} pod bars, the page has $want_pods"
[ "${got_nodes:-none}" = "$want_nodes" ] || fail "chromium drew ${got_nodes:-no} node rows, the page has $want_nodes"
[ "${got_phases:-none}" = "$want_phases" ] || fail "chromium drew ${got_phases:-no} phase bars, the page has $want_phases"
grep -q '<svg id="gantt"' "$tmp/dom.html" || fail "the DOM has no Gantt chart"

chrome --screenshot="$tmp/shot.png" --window-size=1280,1600 --hide-scrollbars "file://$tmp/report.html" >/dev/null
if [ ! -s "$tmp/shot.png" ]; then
  fail "chromium wrote no screenshot"
else
  # A blank 1280x1600 page compresses to a few kilobytes; the charts and tables do not.
  size=$(wc -c <"$tmp/shot.png")
  [ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the screenshot is not a PNG"
  [ "$size" -gt 40000 ] || fail "the screenshot looks blank ($size bytes)"
  if [ -n "${DGLSIM_KEEP_SCREENSHOT:-}" ]; then cp "$tmp/shot.png" "$DGLSIM_KEEP_SCREENSHOT"; fi
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "ok: chromium drew $got_pods pod bars on $got_nodes node rows and $got_phases phase bars"
