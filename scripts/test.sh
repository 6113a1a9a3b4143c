#!/usr/bin/env bash
# Runs sqlgate's tests on a fresh machine, from the repository alone.
#
#   bash scripts/test.sh                      every suite that runs from the repo (quick mode)
#   bash scripts/test.sh --full               also the DuckDB backend and the install paths (CI)
#   bash scripts/test.sh --only rust,engines  some parts only (names below)
#
# Parts, in the order they run:
#   rust             cargo test --workspace (every crate and the layout check, xtask); --full adds
#                    the DuckDB backend of sqlgate-mcp (cargo feature `duckdb`: DuckDB's C++
#                    builds from source, about 11 minutes of a cold build on 2 cores)
#   bindings-python  bindings-python/ci.sh (wheel from source in a fresh venv, pytest, mypy)
#   bindings-node    bindings-node/ci.sh (npm ci, the addon, node --test, tsc)
#   mcp-server       mcp-server/ci.sh (the official MCP Python SDK against the server)
#   install-paths    scripts/install-test.sh: the release artifacts (built in the background, dist
#                    profile) installed without Rust; --full only
#   engines          tests/engines/run.sh: approved vectors on PostgreSQL, MariaDB, SQLite, DuckDB
#   rust-full        (only by name) scripts/rust-full-tests.sh: the Rust tests --full changes
#                    (the corpora's, the DuckDB backend's), for a run that ran the rest (CI)
#
# Starts a throwaway PostgreSQL and a throwaway MariaDB (loopback, temporary directories) loaded
# with the repository's Chinook (tests/fixtures/chinook) when a selected part uses them, and stops
# both at the end, whatever happens. A missing server, or the big corpora (../shared/corpus or
# $SQLGATE_CORPUS: Spider, BIRD, pg_regress, sqlglot, TPC), make their tests say SKIPPED; under
# CI=true nothing may be skipped. A failed part does not stop the others: the summary at the end
# says what ran, what was skipped and why, and what failed; the exit status is 1 if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# shellcheck source=scripts/stages.sh
. scripts/stages.sh

all_parts="rust bindings-python bindings-node mcp-server install-paths engines"
by_name="rust-full"
full=0
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --full) full=1 ;;
    --only) only="${2:-}"; shift ;;
    --only=*) only="${1#--only=}" ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "${SQLGATE_TEST_FULL:-0}" = "1" ]; then full=1; fi
selected=" "
for part in ${only//,/ }; do
  case " $all_parts $by_name " in
    *" $part "*) selected+="$part " ;;
    *) echo "test.sh: unknown part '$part' (parts: $all_parts $by_name)" >&2; exit 2 ;;
  esac
done
[ "$selected" = " " ] && selected=" $all_parts "
wants() { case "$selected" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
mode=$([ "$full" = 1 ] && echo full || echo quick)

export SQLGATE_CORPUS="${SQLGATE_CORPUS:-$(cd "$root/.." && pwd)/shared/corpus}"

# What ran and failed, for the summary: the stage table (scripts/stages.sh) has the durations.
failed=()
skipped=()
# One part (a command, not a shell function: `set -e` is off inside a function called from `||`):
# its failure is recorded and the next part runs.
part() {
  local status=0
  stage "$@" || status=$?
  if [ "$status" -ne 0 ]; then failed+=("$1 (exit $status)"); fi
}
skip() {
  skipped+=("$1: $2")
  skip_stage "$1" "$2"
}

# Servers, the background build and the command run alongside are stopped by this trap.
envfile=""
mariadb_env=""
artifacts_build=""
alongside=""
work_dir="$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-test.XXXXXX")"
suite_pids=()
stop_servers() {
  if [ -n "$artifacts_build" ]; then kill -- "-$artifacts_build" 2>/dev/null || true; fi
  for pid in "${suite_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
  if [ -n "$alongside" ]; then kill -- "-$alongside" 2>/dev/null || true; fi
  if [ -n "$mariadb_env" ]; then scripts/mariadb-cluster.sh stop "$(dirname "$mariadb_env")" || true; fi
  if [ -n "$envfile" ]; then scripts/pg-cluster.sh stop "$(dirname "$envfile")" || true; fi
  rm -rf "$work_dir"
}
trap stop_servers EXIT

echo "== test.sh: $mode mode, parts:$selected"

# Every dist-profile build of this run (the artifacts, `pip install ./bindings-python` and `napi
# build` in the bindings' suites and the engine suite) shares one build: same profile settings,
# same explicit target (napi always passes `--target`, which puts its output in
# target/<triple>/; maturin and cargo read CARGO_BUILD_TARGET). The Rust tests use the dev
# profile and no explicit target, untouched by either.
#
# The dist profile is built without whole-program LTO here (16 codegen units): the same code,
# features and packaging as a release, installed the same way; fat LTO with one codegen unit
# only makes the binaries faster (the benches measure that on the release profile) and costs
# three single-threaded whole-program optimisations, ten minutes of CPU on two cores.
# SQLGATE_ARTIFACTS_LTO=1 keeps the dist profile as it is.
if [ "${SQLGATE_ARTIFACTS_LTO:-0}" != "1" ]; then
  export CARGO_PROFILE_DIST_LTO=false CARGO_PROFILE_DIST_CODEGEN_UNITS=16
fi
dist_target="$(rustc -vV | sed -n 's/^host: //p')"

# The three release artifacts (scripts/build-artifacts.sh) build in the background, niced, in
# their own process group: they take the cores the Rust tests leave idle, and are ready for the
# install paths.
artifacts_log="$work_dir/build.log"
if wants install-paths && [ "$full" = 1 ]; then
  CARGO_BUILD_TARGET="$dist_target" setsid nice -n 10 bash -c '. scripts/stages.sh; stage "artifacts build (background, niced)" bash scripts/build-artifacts.sh "$1"' \
    _ "$work_dir/dist" >"$artifacts_log" 2>&1 &
  artifacts_build=$!
fi

# The databases, for the parts that use them.
if wants rust || wants rust-full || wants mcp-server || wants engines; then
  pg_bin=""
  if command -v pg_config >/dev/null 2>&1; then pg_bin=$(pg_config --bindir); fi
  if [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; then
    envfile=$(scripts/pg-cluster.sh start | tail -n1)
    stage "PostgreSQL: load Chinook" scripts/pg-cluster.sh load-chinook "$(dirname "$envfile")"
    # shellcheck disable=SC1090
    . "$envfile"
  elif [ "${CI:-}" = "true" ]; then
    echo "test.sh: PostgreSQL server binaries not found (pg_config --bindir); CI requires them" >&2
    exit 1
  else
    skip "PostgreSQL tests" "no PostgreSQL server binaries (pg_config --bindir; apt-get install postgresql)"
  fi
  if command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; then
    mariadb_env=$(scripts/mariadb-cluster.sh start | tail -n1)
    stage "MariaDB: load Chinook" scripts/mariadb-cluster.sh load-chinook "$(dirname "$mariadb_env")"
    # shellcheck disable=SC1090
    . "$mariadb_env"
  elif [ "${CI:-}" = "true" ]; then
    echo "test.sh: mariadbd not found (apt-get install mariadb-server); CI requires it" >&2
    exit 1
  else
    skip "MariaDB tests" "no mariadbd (apt-get install mariadb-server)"
  fi
fi

if (wants rust || wants rust-full) && [ ! -d "$SQLGATE_CORPUS" ]; then
  skip "corpus tests" "no corpus at $SQLGATE_CORPUS (set SQLGATE_CORPUS); the repository's Chinook ran"
fi
if wants rust; then
  if [ "$full" = 1 ]; then
    # One feature set for the whole workspace, the one .ci/run lints with: nothing compiles twice.
    part "rust: cargo test --workspace --features sqlgate-mcp/duckdb" \
      cargo test --workspace --no-fail-fast --features sqlgate-mcp/duckdb
  else
    skip "DuckDB backend of sqlgate-mcp" "--full compiles DuckDB's C++ (the engines part still runs DuckDB)"
    part "rust: cargo test --workspace" cargo test --workspace --no-fail-fast
  fi
fi
if wants rust-full; then
  part "rust-full: the corpora's and DuckDB's Rust tests" bash scripts/rust-full-tests.sh
fi
# The MCP interop tests start the binary the Rust tests built (mcp-server/ci.sh builds one if not).
if wants rust; then
  export SQLGATE_MCP_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/sqlgate-mcp"
fi

if [ -n "$artifacts_build" ]; then
  artifacts_status=0
  wait "$artifacts_build" || artifacts_status=$?
  artifacts_build=""
  echo "== artifacts build (ran in the background; its log)"
  cat "$artifacts_log"
  if [ "$artifacts_status" -ne 0 ]; then failed+=("artifacts build (exit $artifacts_status)"); fi
fi
artifacts_ok=$([ "$full" = 1 ] && [ "${artifacts_status:-1}" -eq 0 ] && echo 1 || echo 0)
export CARGO_BUILD_TARGET="$dist_target"

# A command to run alongside the suites below, which leave a core idle much of the time (pip,
# npm, waiting on the databases): .ci/run passes the fuzz targets (time-boxed, niced). Its
# failure fails this script, after the suites.
alongside_log="$work_dir/alongside.log"
if [ -n "${SQLGATE_TEST_ALONGSIDE:-}" ]; then
  setsid nice -n 10 bash -c "$SQLGATE_TEST_ALONGSIDE" >"$alongside_log" 2>&1 &
  alongside=$!
fi

# The Python, Node and MCP-interop suites are independent (each has its own venv or
# node_modules): they run side by side, each into its own log, printed whole once all have
# ended. Their builds share one target dir and queue on cargo's lock, so that while one builds
# another runs its tests. The engine suite runs after them, alone: its approved vectors run under
# a 2 s timeout, which a loaded machine could pass.
suite_pids=()
suite_names=()
for suite in bindings-python bindings-node mcp-server; do
  if wants "$suite"; then
    setsid bash -c '. scripts/stages.sh; stage "$1 (ci.sh)" bash "$1/ci.sh"' _ "$suite" \
      >"$work_dir/$suite.log" 2>&1 &
    suite_pids+=("$!")
    suite_names+=("$suite")
  fi
done
for i in "${!suite_pids[@]}"; do
  suite_status=0
  wait "${suite_pids[$i]}" || suite_status=$?
  cat "$work_dir/${suite_names[$i]}.log"
  if [ "$suite_status" -ne 0 ]; then failed+=("${suite_names[$i]} (ci.sh) (exit $suite_status)"); fi
done
suite_pids=()
if wants install-paths; then
  if [ "$artifacts_ok" = 1 ]; then
    part "install paths (scripts/install-test.sh)" env SQLGATE_ARTIFACTS="$work_dir/dist" bash scripts/install-test.sh
  elif [ "$full" = 0 ]; then
    skip "install paths" "--full builds the release artifacts and installs them without Rust"
  fi
fi
if wants engines; then
  if [ "${CI:-}" = "true" ]; then export SQLGATE_ENGINES_REQUIRED=1; fi
  part "engines (tests/engines)" bash tests/engines/run.sh
fi

if [ -n "$alongside" ]; then
  alongside_status=0
  wait "$alongside" || alongside_status=$?
  alongside=""
  echo "== alongside the suites: $SQLGATE_TEST_ALONGSIDE (exit $alongside_status)"
  cat "$alongside_log"
  if [ "$alongside_status" -ne 0 ]; then failed+=("alongside: $SQLGATE_TEST_ALONGSIDE (exit $alongside_status)"); fi
fi

print_stages
echo "== test.sh summary ($mode mode)"
for line in "${skipped[@]}"; do echo "  skipped  $line"; done
for line in "${failed[@]}"; do echo "  FAILED   $line"; done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "test.sh: ${#failed[@]} part(s) failed (their output is above)"
  exit 1
fi
echo "test.sh: all selected parts passed ($mode mode, ${#skipped[@]} skipped)"
