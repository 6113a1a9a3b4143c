#!/usr/bin/env bash
# What a newcomer meets: clones this repository's HEAD into an empty directory (no ../shared
# beside it, no SQLGATE_CORPUS, not CI) and runs the README's test command there, in its quick
# mode. Passes when that command passes and its summary reports the corpus tests as skipped
# (nothing beside the clone), so the claim "the test command works on a fresh clone" is checked
# on every CI run, not once.
#
# Extra arguments go to scripts/test.sh (e.g. --only rust). The clone shares this checkout's
# target dir when the checkout is clean (the same commit: identical sources, so cargo's reuse of
# the dependencies is sound); otherwise it builds in its own.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-fresh.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/empty"
git clone --quiet --no-hardlinks "$root" "$tmp/empty/sqlgate"
if [ -z "$(git -C "$root" status --porcelain)" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
else
  echo "fresh-clone: $root has uncommitted changes; the clone (HEAD) builds in its own target dir"
  export CARGO_TARGET_DIR="$tmp/target"
fi
log="$tmp/test.log"
status=0
# Under CI the servers are installed: the engine suite may skip none of them.
strict="${CI:-}"
if [ "$strict" = "true" ]; then export SQLGATE_ENGINES_REQUIRED=1; fi
(cd "$tmp/empty/sqlgate" && env -u CI -u SQLGATE_CORPUS -u SQLGATE_TEST_FULL bash scripts/test.sh "$@") 2>&1 \
  | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "fresh-clone: scripts/test.sh failed on a fresh clone (exit $status)" >&2
  exit 1
fi
if ! grep -q "skipped  corpus tests: no corpus at $tmp/empty/shared/corpus" "$log"; then
  echo "fresh-clone: the summary does not report the corpus tests as skipped" >&2
  exit 1
fi
# Under CI only what needs more than the clone may be skipped: the corpora, DuckDB's backend and
# the install paths (--full), never a server or a suite.
if [ "$strict" = "true" ]; then
  unexpected=$(grep "^  skipped  " "$log" | grep -v -e "skipped  corpus tests:" \
    -e "skipped  DuckDB backend of sqlgate-mcp:" -e "skipped  install paths:" || true)
  if [ -n "$unexpected" ]; then
    echo "fresh-clone: skipped on CI, where everything is installed:" >&2
    echo "$unexpected" >&2
    exit 1
  fi
fi
echo "fresh-clone: the README's test command passed on a fresh clone with nothing beside it"
