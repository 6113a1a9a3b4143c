#!/usr/bin/env bash
# Runs all of sqlgate's tests on a fresh machine: starts a throwaway PostgreSQL and a throwaway
# MariaDB, both loaded with Chinook (the repository's copy, tests/fixtures/chinook), runs the
# Rust tests of every crate, then the Python, Node and MCP-interop suites (each part's ci.sh
# installs what it needs), the install paths
# (scripts/install-test.sh: the release artifacts, built in the background meanwhile, installed
# without Rust), and the engine differential suite (tests/engines/run.sh). Stops both servers at
# the end, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# shellcheck source=scripts/stages.sh
. scripts/stages.sh
export SQLGATE_CORPUS="${SQLGATE_CORPUS:-$(cd "$root/.." && pwd)/shared/corpus}"

# Servers and the background build started below are stopped by this trap, whatever happens.
envfile=""
mariadb_env=""
artifacts_build=""
alongside=""
artifacts_dir="$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-artifacts.XXXXXX")"
stop_servers() {
  if [ -n "$artifacts_build" ]; then kill -- "-$artifacts_build" 2>/dev/null || true; fi
  if [ -n "$alongside" ]; then kill -- "-$alongside" 2>/dev/null || true; fi
  if [ -n "$mariadb_env" ]; then scripts/mariadb-cluster.sh stop "$(dirname "$mariadb_env")" || true; fi
  if [ -n "$envfile" ]; then scripts/pg-cluster.sh stop "$(dirname "$envfile")" || true; fi
  rm -rf "$artifacts_dir"
}
trap stop_servers EXIT

# The three release artifacts (scripts/build-artifacts.sh: the dist profile) build in the
# background, niced, in their own process group and profile dir: they take the cores the Rust
# tests below leave idle, and are ready for the bindings' suites and the install paths.
#
# Every dist-profile build of this run (the artifacts, then `pip install ./bindings-python` and
# `napi build` in the bindings' suites and the engine suite) shares one build: same profile
# settings, same explicit target (napi always passes `--target`, which puts its output in
# target/<triple>/; maturin and cargo read CARGO_BUILD_TARGET). The Rust tests above use the
# dev profile and no explicit target, untouched by either.
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
artifacts_log="$artifacts_dir/build.log"
CARGO_BUILD_TARGET="$dist_target" setsid nice -n 10 bash -c '. scripts/stages.sh; stage "artifacts build (background, niced)" bash scripts/build-artifacts.sh "$1"' \
  _ "$artifacts_dir/dist" >"$artifacts_log" 2>&1 &
artifacts_build=$!

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
  echo "test.sh: PostgreSQL server binaries not found: PostgreSQL tests will say SKIPPED" >&2
fi

# MariaDB, loaded with Chinook: the MySQL backend's tests (mcp-server/tests/mysql.rs) and the
# engine differential suite below.
if command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; then
  mariadb_env=$(scripts/mariadb-cluster.sh start | tail -n1)
  stage "MariaDB: load Chinook" scripts/mariadb-cluster.sh load-chinook "$(dirname "$mariadb_env")"
  # shellcheck disable=SC1090
  . "$mariadb_env"
elif [ "${CI:-}" = "true" ]; then
  echo "test.sh: mariadbd not found (apt-get install mariadb-server); CI requires it" >&2
  exit 1
else
  echo "test.sh: mariadbd not found: the MariaDB tests will say SKIPPED" >&2
fi

# Every crate's tests and the layout check (xtask), the DuckDB backend's included (feature duckdb:
# DuckDB's C++ builds from source). One feature set for the whole workspace, the one .ci/run lints
# with, so that nothing is compiled twice.
stage "cargo test --workspace --features sqlgate-mcp/duckdb" cargo test --workspace --features sqlgate-mcp/duckdb
# The MCP interop tests start the binary the Rust tests built.
export SQLGATE_MCP_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/sqlgate-mcp"

artifacts_status=0
wait "$artifacts_build" || artifacts_status=$?
artifacts_build=""
echo "== artifacts build (ran in the background; its log)"
cat "$artifacts_log"
if [ "$artifacts_status" -ne 0 ]; then
  echo "test.sh: the artifacts build failed (exit $artifacts_status)" >&2
  exit 1
fi
export SQLGATE_ARTIFACTS="$artifacts_dir/dist"
export CARGO_BUILD_TARGET="$dist_target"

# A command to run alongside the suites below, which leave a core idle much of the time (pip,
# npm, waiting on the databases): .ci/run passes the fuzz targets (time-boxed, niced). Its
# failure fails this script, after the suites.
alongside=""
alongside_log="$artifacts_dir/alongside.log"
if [ -n "${SQLGATE_TEST_ALONGSIDE:-}" ]; then
  setsid nice -n 10 bash -c "$SQLGATE_TEST_ALONGSIDE" >"$alongside_log" 2>&1 &
  alongside=$!
fi

for part in bindings-python bindings-node mcp-server; do
  if [ -f "$part/ci.sh" ]; then
    stage "$part (ci.sh)" bash "$part/ci.sh"
  fi
done
# Install paths (README "Install"): the wheels and the npm tarball, installed without Rust.
stage "install paths (scripts/install-test.sh)" bash scripts/install-test.sh

# Engine differential suite (tests/engines): approved vectors on real PostgreSQL, MariaDB, SQLite
# and DuckDB under every setting that changes how SQL text is read.
if [ "${CI:-}" = "true" ]; then export SQLGATE_ENGINES_REQUIRED=1; fi
stage "engines (tests/engines)" bash tests/engines/run.sh

if [ -n "$alongside" ]; then
  alongside_status=0
  wait "$alongside" || alongside_status=$?
  alongside=""
  echo "== alongside the suites: $SQLGATE_TEST_ALONGSIDE (exit $alongside_status)"
  cat "$alongside_log"
  if [ "$alongside_status" -ne 0 ]; then
    echo "test.sh: $SQLGATE_TEST_ALONGSIDE failed (exit $alongside_status)" >&2
    exit 1
  fi
fi

print_stages
echo "test.sh: all test suites passed"
