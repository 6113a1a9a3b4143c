#!/usr/bin/env bash
# Builds the three artifacts a release ships into OUT: the sqlgate-mcp wheel (maturin,
# bindings=bin), the abi3 `sqlgate` wheel and the npm tarball `sqlgate` (napi addon), all with
# the `dist` profile (release, fat LTO, stripped). scripts/install-test.sh installs them without
# Rust; scripts/test.sh runs this in the background while the Rust tests run, so that the three
# optimised builds use the cores the tests leave idle (waiting on databases, linking one binary).
#
#   bash scripts/build-artifacts.sh OUT
#
# Leaves bindings-node/node_modules installed (npm ci) and the builds in the workspace's target
# dir (target/dist), which bindings-python/ci.sh and bindings-node/ci.sh then reuse.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${1:?usage: build-artifacts.sh OUT}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
export PIP_DISABLE_PIP_VERSION_CHECK=1
PYTHON="$(command -v "${PYTHON:-python3}")"
VENV="$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-build-venv.XXXXXX")"
trap 'rm -rf "$VENV"' EXIT

step() { echo "== build-artifacts: $*"; STEP_START=$SECONDS; }
done_step() { echo "   ($((SECONDS - STEP_START)) s)"; }

step "build tools (maturin)"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/pip" install --quiet "maturin>=1.9.4,<2"
done_step

step "wheel: sqlgate-mcp (maturin bindings=bin, profile dist)"
"$VENV/bin/maturin" build --quiet -m mcp-server/Cargo.toml --out "$OUT" --compatibility linux
done_step

step "wheel: sqlgate (abi3, profile dist from its pyproject.toml)"
"$VENV/bin/maturin" build --quiet -m bindings-python/Cargo.toml --out "$OUT" --compatibility linux
done_step

step "npm tarball: sqlgate (addon built with profile dist)"
# --ignore-scripts: the addon's build needs none of the packages' install scripts (better-sqlite3,
# a test dependency, would compile SQLite from source; bindings-node/ci.sh installs it for real).
(cd bindings-node && npm ci --no-audit --no-fund --silent --ignore-scripts && npm run --silent build >/dev/null \
  && npm pack --silent --pack-destination "$OUT" >/dev/null)
done_step

echo "== build-artifacts: in $OUT"
for f in "$OUT"/*; do
  awk -v name="$(basename "$f")" -v bytes="$(stat -c %s "$f")" 'BEGIN { printf "   %-60s %8.1f MB\n", name, bytes / 1048576 }'
done
