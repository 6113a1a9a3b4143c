#!/usr/bin/env bash
# Builds the Python package from source in a fresh virtualenv and runs its checks:
# pytest (shared vectors, API, example, typing), mypy.stubtest and mypy --strict.
#
# Run from the repository root:  bash bindings-python/ci.sh
# Needs only Rust (cargo) and Python 3.10+ with pip; maturin comes from PyPI as the build
# backend. Honours CARGO_TARGET_DIR (reuse a build) and PYTHON (interpreter, default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-py-ci.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

echo "== sqlgate-python: venv in $WORK ($("$PYTHON" --version))"
"$PYTHON" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1

echo "== pip install ./bindings-python (build from source)"
"$VPY" -m pip install --quiet ./bindings-python
"$VPY" -m pip install --quiet pytest mypy

cd "$ROOT/bindings-python"

echo "== pytest"
set +e
"$VPY" -m pytest -q -p no:cacheprovider tests
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    exit 1
elif [ "$status" -ne 0 ]; then
    exit "$status"
fi

echo "== mypy.stubtest sqlgate"
"$VPY" -m mypy.stubtest --allowlist stubtest-allowlist.txt sqlgate

echo "== mypy --strict examples/"
"$VPY" -m mypy --strict --cache-dir "$WORK/mypy-cache" examples/guarded_sqlite.py

echo "== sqlgate-python: all checks passed"
