#!/usr/bin/env bash
# The front door stays a front door: fails when
#   - README.md is longer than 250 lines (the reference belongs in docs/, history in git);
#   - a tracked file names a piece of work by its number ("issue" or "defect" or "stop", then a
#     number: say what the thing is; citations of public trackers such as owner/repo#123 are fine);
#   - a relative link or image of README.md or docs/*.md names a file or folder that does not exist
#     (anchors are not checked; links inside fenced code blocks are not links);
#   - CHANGELOG.md's newest version is not the project's version (CMakeLists.txt's project(), what
#     `dglsim --version` prints).
# Files are those `git ls-files` lists in a git checkout, else every file under the source folder
# but build outputs. Before it checks the tree it checks itself on a small tree with one fault of
# each kind, so a check that finds nothing cannot pass by accident.
# Usage: docs_test.sh SOURCE_DIR
set -u
source_dir=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
max_readme_lines=250
work_number_re='\b(issue|defect|stop)s? [0-9]+\b'

# Lists the files of the tree at $1, one per line, relative to it.
tree_files() {
  if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
     [ "$(git -C "$1" rev-parse --show-toplevel)" = "$1" ]; then
    git -C "$1" ls-files
  else
    (cd "$1" && find . -type f ! -path './.git/*' ! -path './build*' ! -path '*/CMakeFiles/*' | sed 's|^\./||')
  fi
}

# Prints one line per problem of the tree at $1; prints nothing when it is sound.
check_tree() {
  local root=$1
  local lines
  lines=$(wc -l <"$root/README.md" 2>/dev/null || echo missing)
  if [ "$lines" = missing ]; then
    echo "README.md: missing"
  elif [ "$lines" -gt "$max_readme_lines" ]; then
    echo "README.md: $lines lines, more than $max_readme_lines (move reference to docs/)"
  fi

  (cd "$root" && tree_files "$root" | tr '\n' '\0' | xargs -0 grep -HInoiE "$work_number_re" -- 2>/dev/null) |
    sed 's/$/: names a piece of work by its number; say what the thing is/'

  local doc
  for doc in "$root"/README.md "$root"/docs/*.md; do
    [ -f "$doc" ] || continue
    # Links outside fenced code blocks: [text](target), [text](target "title") and <img src="target">.
    awk '/^[[:space:]]*```/ { fenced = !fenced; next } !fenced { print FNR ": " $0 }' "$doc" |
      grep -oE '^[0-9]+: |\]\([^)[:space:]]+|src="[^"]+' |
      awk '/^[0-9]+: $/ { line = $1; next } /^src="/ { print line " " substr($0, 6); next } { print line " " substr($0, 3) }' |
      while read -r line target; do
        case "$target" in
          http://* | https://* | mailto:* | \#*) continue ;;
        esac
        local path=${target%%#*}
        [ -e "$(dirname "$doc")/$path" ] || echo "${doc#"$root"/}:${line%:} links to $target, which does not exist"
      done
  done

  local project_version changelog_version
  project_version=$(sed -nE 's/^project\([A-Za-z0-9_]+ VERSION ([0-9.]+).*/\1/p' "$root/CMakeLists.txt" 2>/dev/null | head -n 1)
  changelog_version=$(sed -nE 's/^## \[?([0-9]+\.[0-9]+\.[0-9]+)\]?.*/\1/p' "$root/CHANGELOG.md" 2>/dev/null | head -n 1)
  if [ -z "$changelog_version" ]; then
    echo "CHANGELOG.md: no version heading (## X.Y.Z)"
  elif [ "$changelog_version" != "$project_version" ]; then
    echo "CHANGELOG.md: its newest version is $changelog_version, the project's (CMakeLists.txt) $project_version"
  fi
}

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- the checks themselves, on a tree with one fault of each kind (not a git checkout) ----------
bad=$tmp/bad
mkdir -p "$bad/docs"
printf 'project(x VERSION 1.2.3 LANGUAGES CXX)\n' >"$bad/CMakeLists.txt"
printf '# Changes\n\n## 1.2.2\n\n- something\n' >"$bad/CHANGELOG.md"
for i in $(seq 1 $((max_readme_lines + 1))); do echo "line $i"; done >"$bad/README.md"
echo "[guide](docs/guide.md) [gone](docs/gone.md#part) [web](https://example.org/x.md)" >>"$bad/README.md"
printf '# Guide\n\n[back](../README.md)\n```\n[not a link](nowhere.md)\n```\n<img src="missing.png" alt="x">\n' >"$bad/docs/guide.md"
printf 'fixed in %s %s\nsee kubernetes/kubernetes#101350\n' "Defect" "6's" >"$bad/notes.txt"
check_tree "$bad" >"$tmp/bad.out"
grep -q "^README.md: $((max_readme_lines + 2)) lines" "$tmp/bad.out" || fail "a README of $((max_readme_lines + 2)) lines was not caught"
grep -q '^notes.txt:1:.*names a piece of work' "$tmp/bad.out" || fail "a file naming a piece of work by its number was not caught"
grep -q '101350' "$tmp/bad.out" && fail "a citation of a public tracker was reported"
grep -q "^README.md:$((max_readme_lines + 2)) links to docs/gone.md#part, which does not exist" "$tmp/bad.out" ||
  fail "a broken link was not caught"
grep -q '^docs/guide.md:7 links to missing.png, which does not exist' "$tmp/bad.out" || fail "a missing image was not caught"
grep -qE 'guide.md,|example.org|nowhere.md|\.\./README.md' "$tmp/bad.out" && fail "a sound link, a web link or a code block was reported"
grep -q '^CHANGELOG.md: its newest version is 1.2.2, the project' "$tmp/bad.out" || fail "a CHANGELOG behind the project's version was not caught"
[ "$(wc -l <"$tmp/bad.out")" -eq 5 ] || { fail "expected 5 problems in the faulty tree:"; cat "$tmp/bad.out"; }

# --- the source tree -----------------------------------------------------------------------------
check_tree "$source_dir" >"$tmp/tree.out"
if [ -s "$tmp/tree.out" ]; then
  fail "the source tree:"
  cat "$tmp/tree.out"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "docs: README.md within $max_readme_lines lines, no work named by number, every relative link sound, CHANGELOG at the project's version"
