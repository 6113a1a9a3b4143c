#!/usr/bin/env bash
# Non-cargo tests of sqlgate-mcp: interop with the official MCP Python SDK over stdio and HTTP, and
# OAuth against a real authorization server (oidc-provider, run by node from tests/oidc).
# Run from the repository root on a fresh machine. Cargo tests run separately (cargo test --workspace).
set -euo pipefail
cd "$(dirname "$0")/.."
# scripts/test.sh sets SQLGATE_MCP_BIN to the binary its Rust tests built; run alone, this builds one.
if [ -z "${SQLGATE_MCP_BIN:-}" ] || [ ! -x "$SQLGATE_MCP_BIN" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
  env -u CARGO_BUILD_TARGET cargo build -p sqlgate-mcp
  export SQLGATE_MCP_BIN="$CARGO_TARGET_DIR/debug/sqlgate-mcp"
fi
# The authorization server's packages, as its lock pins them (no install scripts run). Without
# npm the OAuth tests that need it skip, or fail under CI=true.
if command -v npm >/dev/null; then
  npm ci --prefix mcp-server/tests/oidc --ignore-scripts --no-audit --no-fund --prefer-offline \
    --loglevel=error
fi
VENV="$(mktemp -d)/venv"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0" pytest
"$VENV/bin/python" -m pytest -q mcp-server/tests/python
