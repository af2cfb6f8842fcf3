# Checks shared by the shell tests that run dglsim as a user does (sourced, not run). The caller
# sets `dglsim` (the binary), `tmp` (a scratch directory) and `failures=0`, and ends with
# `[ "$failures" -eq 0 ]`. `deadline` (seconds, default 600) bounds each run: a hang is a failure.

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run NAME EXPECTED_EXIT ARGS...: runs dglsim, keeps stdout/stderr in $tmp/NAME.{out,err}; fails
# on another exit code, on a timeout, and on any crash or sanitizer report whatever the code.
run() {
  local name=$1 expected=$2
  shift 2
  timeout -k 5 "${deadline:-600}" "$dglsim" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local code=$?
  if [ "$code" -ne "$expected" ]; then
    fail "$name: dglsim $* exited $code, expected $expected$([ "$code" -eq 124 ] && echo ' (timed out)')"
    sed 's/^/  stdout: /' "$tmp/$name.out" | head -20
    sed 's/^/  stderr: /' "$tmp/$name.err" | head -20
    return 1
  fi
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|terminate called|Segmentation|Aborted|bad_alloc' "$tmp/$name.err"; then
    fail "$name: dglsim $* crashed"
    sed 's/^/  stderr: /' "$tmp/$name.err" | head -20
    return 1
  fi
  return 0
}

# expect_line NAME STREAM REGEX: some line of the stream (out or err) matches the extended regex.
expect_line() {
  if ! grep -qE "$3" "$tmp/$1.$2"; then
    fail "$1: no line of std$2 matches /$3/"
    sed "s/^/  std$2: /" "$tmp/$1.$2" | head -20
  fi
}
