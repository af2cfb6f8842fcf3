# Shared by the kubectl end-to-end tests (sourced, not run): checks on a command's output, counted
# through dglsim_lib.sh's `fail` (source that first), and where kubectl's versions are installed.

pass() { echo "ok: $*"; }

# expect_in WHAT OUTPUT NEEDLE...: every needle (a fixed string) is in OUTPUT.
expect_in() {
  local what=$1 out=$2
  shift 2
  local needle
  for needle in "$@"; do
    if ! grep -qF -- "$needle" <<<"$out"; then
      fail "$what: expected to see [$needle] in:"
      echo "$out" | sed 's/^/    | /'
      return
    fi
  done
  pass "$what"
}

# expect_re WHAT OUTPUT REGEX: an extended regex matches a line of OUTPUT.
expect_re() {
  if grep -qE -- "$3" <<<"$2"; then pass "$1"; else
    fail "$1: expected a line matching /$3/ in:"
    echo "$2" | sed 's/^/    | /'
  fi
}

# kubectl_of_minor MINOR: the path of kubectl 1.MINOR, as the Google Cloud SDK installs its
# versions side by side (bin/kubectl.1.27 ... bin/kubectl.1.33; bin/kubectl is a dispatcher that
# runs the one matching the server). Looks in $DGLSIM_KUBECTL_DIR, beside the kubectl on PATH, then
# in the SDK's usual places. Prints nothing and returns 1 when that version is not installed.
kubectl_of_minor() {
  local dirs=() dir
  [ -n "${DGLSIM_KUBECTL_DIR:-}" ] && dirs+=("$DGLSIM_KUBECTL_DIR")
  if command -v kubectl >/dev/null 2>&1; then dirs+=("$(dirname "$(readlink -f "$(command -v kubectl)")")"); fi
  dirs+=(/usr/lib/google-cloud-sdk/bin /opt/google-cloud-sdk/bin)
  for dir in "${dirs[@]}"; do
    if [ -x "$dir/kubectl.1.$1" ]; then
      echo "$dir/kubectl.1.$1"
      return 0
    fi
  done
  return 1
}
