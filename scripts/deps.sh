#!/usr/bin/env bash
# Installs the Debian packages the project builds with, only those that are missing.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  clang libclang-rt-dev  # scripts/test.sh builds with clang (faster to compile; its sanitizer runtimes)
  llvm  # llvm-profdata and llvm-cov: CI's coverage gate (scripts/coverage_gate.sh)
  nlohmann-json3-dev libyaml-cpp-dev libboost-graph-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev lcov
  libmetis-dev libcli11-dev libcpp-httplib-dev libre2-dev
  libssl-dev  # OpenSSL: the API client's certificate stores (a kubeconfig's CA data)
  chromium
  python3             # scripts/proposal_conclusions.py (the standard library only)
  python3-kubernetes  # the official Python client, for the conformance test of `dglsim serve`
  python3-yaml  # tests/controlplane/kwok_speed.py reads the fleet templates (scripts/kwok-speed.sh)
  libjemalloc-dev  # jemalloc: the programs' malloc (DGLSIM_ALLOCATOR in CMakeLists.txt)
  libgoogle-perftools-dev  # TCMalloc: their malloc where jemalloc is missing, and for comparison
  time  # GNU time: CPU time and peak memory of whole runs (scripts/perf-report.sh)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# kubectl is not a Debian package: the kubectl end-to-end tests use it when the machine has it
# and report themselves skipped (exit 77) when it does not.
command -v kubectl >/dev/null 2>&1 || echo "deps: kubectl not found; the kubectl end-to-end tests will be skipped"
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
