# Shared by the shell tests that run the dglsim binary as a user does (sourced, not run): counted
# failures, a run that keeps each command's output, and line checks on it. The caller sets
# `dglsim` (the binary), `tmp` (a scratch directory) and `failures=0`, and exits non-zero when
# failures is. `deadline` (seconds, default 600) bounds each run: a hang is a failure.

# fail MESSAGE: prints it and counts a failure.
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run NAME EXPECTED_EXIT ARGS...: runs dglsim, keeps stdout/stderr in $tmp/NAME.{out,err}; fails
# (and returns 1) on another exit code, on a timeout, or on a crash or sanitizer report whatever
# the exit code.
run() {
  local name=$1 expected=$2
  shift 2
  timeout -k 5 "${deadline:-600}" "$dglsim" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local code=$?
  if [ "$code" -ne "$expected" ]; then
    fail "$name: dglsim $* exited $code, expected $expected$([ "$code" -eq 124 ] && echo ' (timed out)')"
    sed 's/^/  stdout: /' "$tmp/$name.out" | head -40
    sed 's/^/  stderr: /' "$tmp/$name.err" | head -40
    return 1
  fi
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|terminate called|Segmentation|Aborted|bad_alloc|dglsim: internal error' \
    "$tmp/$name.err"; then
    fail "$name: dglsim $* crashed"
    sed 's/^/  stderr: /' "$tmp/$name.err" | head -40
    return 1
  fi
  return 0
}

# expect_line NAME STREAM REGEX: some line of $tmp/NAME.STREAM (out or err) matches the extended regex.
expect_line() {
  if ! grep -qE "$3" "$tmp/$1.$2"; then
    fail "$1: no line of std$2 matches /$3/"
    sed "s/^/  std$2: /" "$tmp/$1.$2" | head -40
  fi
}
