#!/usr/bin/env bash
# Engine differential suite (tests/engines): a fresh venv with the engine clients and the sqlgate
# Python package built from ./bindings-python, then pytest. The engines come from the
# environment (scripts/test.sh starts them): SQLGATE_PG_URL, SQLGATE_MARIADB_SOCKET,
# SQLGATE_MARIADB_FILES; SQLite and DuckDB run in process. SQLGATE_ENGINES_REQUIRED=1 fails on a
# missing engine instead of skipping it.
#
#   bash tests/engines/run.sh            (from anywhere)
#
# Honours PYTHON (default python3), CARGO_TARGET_DIR (the package build reuses the workspace's
# target/dist, which bindings-python/ci.sh also builds), and SQLGATE_ENGINES_VENV (an existing
# venv that already has the clients and sqlgate: no install, for quick local reruns).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export PIP_DISABLE_PIP_VERSION_CHECK=1

if [ -n "${SQLGATE_ENGINES_VENV:-}" ]; then
    VPY="$SQLGATE_ENGINES_VENV/bin/python"
else
    PYTHON="${PYTHON:-python3}"
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-engines.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
    echo "== engines: venv in $WORK ($("$PYTHON" --version))"
    "$PYTHON" -m venv "$WORK/venv"
    VPY="$WORK/venv/bin/python"
    "$VPY" -m pip install --quiet duckdb pymysql 'psycopg[binary]' pytest
    echo "== engines: pip install ./bindings-python"
    "$VPY" -m pip install --quiet ./bindings-python
fi

cd "$ROOT/tests/engines"
set +e
"$VPY" -m pytest -q -s -p no:cacheprovider test_engines.py test_conflicts.py
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "engines: pytest collected no tests: failing" >&2
    exit 1
fi
exit "$status"
