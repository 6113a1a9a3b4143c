#!/usr/bin/env bash
# Runs all of sqlgate's tests on a fresh machine: starts a throwaway PostgreSQL loaded with
# Chinook, runs the Rust tests of every crate, then the Python, Node and MCP-interop suites
# (each part's ci.sh installs what it needs). Stops PostgreSQL at the end, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export SQLGATE_CORPUS="${SQLGATE_CORPUS:-$(cd "$root/.." && pwd)/shared/corpus}"

pg_bin=""
if command -v pg_config >/dev/null 2>&1; then pg_bin=$(pg_config --bindir); fi
if [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; then
  envfile=$(scripts/pg-cluster.sh start | tail -n1)
  trap 'scripts/pg-cluster.sh stop "$(dirname "$envfile")"' EXIT
  scripts/pg-cluster.sh load-chinook "$(dirname "$envfile")"
  # shellcheck disable=SC1090
  . "$envfile"
elif [ "${CI:-}" = "true" ]; then
  echo "test.sh: PostgreSQL server binaries not found (pg_config --bindir); CI requires them" >&2
  exit 1
else
  echo "test.sh: PostgreSQL server binaries not found: PostgreSQL tests will say SKIPPED" >&2
fi

echo "== cargo test (core, command line, MCP server, bindings' Rust code)"
cargo test --workspace

for part in bindings-python bindings-node mcp-server; do
  if [ -f "$part/ci.sh" ]; then
    echo "== $part"
    bash "$part/ci.sh"
  fi
done
echo "test.sh: all test suites passed"
