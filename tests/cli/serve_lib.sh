# Shared by the shell tests that drive `dglsim serve` over HTTP (sourced, not run). The caller
# defines `fail MESSAGE` (prints its logs, exits 1) and `$tmp` (a scratch directory).

# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds or the deadline passes.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.1
  done
}

# start_serve DGLSIM SCENARIO ARGS...: `DGLSIM serve SCENARIO --port 0 ARGS...` in the background,
# its output in $tmp/serve.out and $tmp/serve.err; sets serve_pid, and url once it prints where it
# listens.
start_serve() {
  local dglsim=$1 scenario=$2
  shift 2
  "$dglsim" serve "$scenario" --port 0 "$@" >"$tmp/serve.out" 2>"$tmp/serve.err" &
  serve_pid=$!
  wait_for 30 grep -q '^serving on ' "$tmp/serve.out" || fail "dglsim serve printed no 'serving on' line"
  url=$(sed -n 's/^serving on //p' "$tmp/serve.out")
}
