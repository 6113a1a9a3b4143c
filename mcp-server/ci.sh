#!/usr/bin/env bash
# Non-cargo tests of sqlgate-mcp: interop with the official MCP Python SDK over stdio and HTTP.
# Run from the repository root on a fresh machine. Cargo tests run separately (cargo test --workspace).
set -euo pipefail
cd "$(dirname "$0")/.."
# scripts/test.sh sets SQLGATE_MCP_BIN to the binary its Rust tests built; run alone, this builds one.
if [ -z "${SQLGATE_MCP_BIN:-}" ] || [ ! -x "$SQLGATE_MCP_BIN" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
  cargo build -p sqlgate-mcp
  export SQLGATE_MCP_BIN="$CARGO_TARGET_DIR/debug/sqlgate-mcp"
fi
VENV="$(mktemp -d)/venv"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0" pytest
"$VENV/bin/python" -m pytest -q mcp-server/tests/python
