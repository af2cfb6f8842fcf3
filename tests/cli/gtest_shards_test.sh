#!/usr/bin/env bash
# scripts/gtest_shards.sh's run_gtest_shards, with stand-in test binaries (shell scripts that print
# the shard they were given): every shard of every binary runs once, with 2 x JOBS shards and the
# arguments after `--`; a shard that fails or dies on a signal is reported with its log and makes
# the call return 1; all passing returns 0.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/scripts/gtest_shards.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# A stand-in binary: records "<name> <index> <total> <args>" and ends as $tmp/<name>.<index>.how says.
make_bin() {
  cat >"$tmp/$1" <<SCRIPT
#!/usr/bin/env bash
echo "$1 \$GTEST_SHARD_INDEX \$GTEST_TOTAL_SHARDS \$*" >>"$tmp/ran"
how=\$(cat "$tmp/$1.\$GTEST_SHARD_INDEX.how" 2>/dev/null || echo pass)
case "\$how" in
  fail) echo "shard \$GTEST_SHARD_INDEX failed here"; exit 1 ;;
  kill) kill -9 \$\$ ;;
esac
echo "shard \$GTEST_SHARD_INDEX passed"
SCRIPT
  chmod +x "$tmp/$1"
}
make_bin a_tests
make_bin b_tests
mkdir -p "$tmp/logs"

# All passing: 2 binaries x 2 x 3 shards, each once, with the arguments.
: >"$tmp/ran"
run_gtest_shards 3 "$tmp/logs" ok cat "$tmp/a_tests" "$tmp/b_tests" -- --gtest_filter=X >"$tmp/ok.out"
[ $? -eq 0 ] || fail "all passing: returned non-zero"
[ "$(wc -l <"$tmp/ran")" -eq 12 ] || fail "all passing: $(wc -l <"$tmp/ran") shard runs, not 12"
for bin in a_tests b_tests; do
  for shard in 0 1 2 3 4 5; do
    grep -qx "$bin $shard 6 --gtest_brief=1 --gtest_filter=X" "$tmp/ran" || fail "all passing: no run of $bin shard $shard of 6 with the arguments"
    grep -q "shard $shard passed" "$tmp/logs/$bin.ok$shard.log" || fail "all passing: $bin shard $shard's log is not where it belongs"
  done
done
[ -s "$tmp/ok.out" ] && fail "all passing: printed $(cat "$tmp/ok.out")"

# One shard fails, another dies on SIGKILL: both reported with their logs, return 1.
echo fail >"$tmp/b_tests.1.how"
echo kill >"$tmp/a_tests.3.how"
: >"$tmp/ran"
run_gtest_shards 2 "$tmp/logs" bad cat "$tmp/a_tests" "$tmp/b_tests" >"$tmp/bad.out"
[ $? -eq 1 ] || fail "failing shards: did not return 1"
[ "$(wc -l <"$tmp/ran")" -eq 8 ] || fail "failing shards: $(wc -l <"$tmp/ran") shard runs, not 8"
grep -qx -- "-- b_tests shard 1 of 4 FAILED:" "$tmp/bad.out" || fail "failing shards: b_tests shard 1 not reported"
grep -qx "shard 1 failed here" "$tmp/bad.out" || fail "failing shards: b_tests shard 1's log not shown"
grep -qx -- "-- a_tests shard 3 of 4 FAILED:" "$tmp/bad.out" || fail "failing shards: the killed a_tests shard 3 not reported"
[ "$(grep -c FAILED "$tmp/bad.out")" -eq 2 ] || fail "failing shards: reported $(grep -c FAILED "$tmp/bad.out") shards, not 2"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all run_gtest_shards checks passed"
