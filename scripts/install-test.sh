#!/usr/bin/env bash
# Install paths, tested the way a user without Rust meets them: takes the three artifacts a
# release ships (the sqlgate-mcp wheel, the abi3 `sqlgate` wheel, the npm tarball; built by
# scripts/build-artifacts.sh, here or beforehand into $SQLGATE_ARTIFACTS), then, in an
# environment whose PATH has no Rust toolchain (checked), installs each into a fresh venv / a fresh
# Node project and runs the first example of the README that documents it:
#   - sqlgate-mcp: `sqlgate-mcp demo` (the README's first command) through pip, pipx and uvx;
#   - Python: the first ```python block of bindings-python/README.md;
#   - Node: the first ```js block of bindings-node/README.md, in a project made with `npm init`.
# Last, with Rust, the README's route from a checkout: `pipx install ./mcp-server`.
# Prints each artifact's size and each step's time. Run from anywhere: bash scripts/install-test.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PIP_DISABLE_PIP_VERSION_CHECK=1
WORK="$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-install.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
DIST="$WORK/dist"
mkdir -p "$DIST"
PYTHON="$(command -v "${PYTHON:-python3}")"
PYTHON="$("$PYTHON" -c 'import sys; print(sys.executable)')"
NODE="$(command -v node)"
NODE_DIR="$(dirname "$NODE")"

step() { echo "== install-test: $*"; STEP_START=$SECONDS; }
done_step() { echo "   ($((SECONDS - STEP_START)) s)"; }

# --- build (with Rust) ---------------------------------------------------------------------------
# SQLGATE_ARTIFACTS names a folder scripts/build-artifacts.sh already filled (scripts/test.sh builds
# them in the background while the Rust tests run); without it, they are built here.
if [ -n "${SQLGATE_ARTIFACTS:-}" ]; then
  step "artifacts from $SQLGATE_ARTIFACTS (scripts/build-artifacts.sh)"
  cp "$SQLGATE_ARTIFACTS"/sqlgate_mcp-*.whl "$SQLGATE_ARTIFACTS"/sqlgate-*.whl \
    "$SQLGATE_ARTIFACTS"/sqlgate-*.tgz "$DIST"/
  done_step
else
  bash scripts/build-artifacts.sh "$DIST"
fi

mcp_wheel=$(ls "$DIST"/sqlgate_mcp-*.whl)
py_wheel=$(ls "$DIST"/sqlgate-*.whl)
npm_tgz=$(ls "$DIST"/sqlgate-*.tgz)

# --- install (without Rust) ----------------------------------------------------------------------
# A PATH with the system directories and Node only: no ~/.cargo/bin, no rustup.
CLEAN_PATH="$NODE_DIR:/usr/local/bin:/usr/bin:/bin"
clean() { env -i HOME="$WORK/home" PATH="$CLEAN_PATH" LANG=C.UTF-8 TMPDIR="$WORK" \
  PIP_DISABLE_PIP_VERSION_CHECK=1 ${PIP_FIND_LINKS:+PIP_FIND_LINKS="$PIP_FIND_LINKS"} "$@"; }
mkdir -p "$WORK/home"
for tool in cargo rustc rustup; do
  if clean sh -c "command -v $tool" >/dev/null; then
    echo "install-test: $tool is on the clean PATH ($CLEAN_PATH): the test would prove nothing" >&2
    exit 1
  fi
done

step "pip install the sqlgate-mcp wheel into a fresh venv; sqlgate-mcp demo"
clean "$PYTHON" -m venv "$WORK/mcp-venv"
clean "$WORK/mcp-venv/bin/pip" install --quiet --no-index "$mcp_wheel"
clean "$WORK/mcp-venv/bin/sqlgate-mcp" demo > "$WORK/demo.out"
grep -q "REFUSED multiple_statements" "$WORK/demo.out" || { cat "$WORK/demo.out"; echo "demo output lacks a refusal" >&2; exit 1; }
done_step

step "pipx install the wheel; sqlgate-mcp demo"
clean "$PYTHON" -m venv "$WORK/tools-venv"
clean "$WORK/tools-venv/bin/pip" install --quiet pipx uv
clean env PIPX_HOME="$WORK/pipx" PIPX_BIN_DIR="$WORK/pipx-bin" "$WORK/tools-venv/bin/pipx" install --quiet "$mcp_wheel"
clean "$WORK/pipx-bin/sqlgate-mcp" demo > "$WORK/demo-pipx.out"
grep -q "REFUSED multiple_statements" "$WORK/demo-pipx.out"
done_step

step "uvx --from the wheel sqlgate-mcp demo (offline)"
clean env UV_CACHE_DIR="$WORK/uv-cache" "$WORK/tools-venv/bin/uvx" --offline --from "$mcp_wheel" sqlgate-mcp demo \
  > "$WORK/demo-uvx.out"
grep -q "REFUSED multiple_statements" "$WORK/demo-uvx.out"
done_step

step "pip install the sqlgate wheel into a fresh venv; the Python README's first example"
clean "$PYTHON" -m venv "$WORK/py-venv"
clean "$WORK/py-venv/bin/pip" install --quiet --no-index "$py_wheel"
"$PYTHON" - "$ROOT/bindings-python/README.md" "$WORK/first.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
block = re.search(r"```python\n(.*?)```", text, re.S)
open(sys.argv[2], "w", encoding="utf-8").write(block.group(1))
PY
(cd "$WORK" && clean "$WORK/py-venv/bin/python" "$WORK/first.py")
done_step

step "npm install the tarball into a fresh project; the Node README's first example"
mkdir -p "$WORK/node-app"
(cd "$WORK/node-app" && clean npm init -y >/dev/null && clean npm install --no-audit --no-fund --offline --silent "$npm_tgz")
"$PYTHON" - "$ROOT/bindings-node/README.md" "$WORK/node-app/first.js" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
block = re.search(r"```js\n(.*?)```", text, re.S)
open(sys.argv[2], "w", encoding="utf-8").write(block.group(1))
PY
(cd "$WORK/node-app" && clean node first.js)
done_step

# --- from a checkout (with Rust) ----------------------------------------------------------------
# The README's one-step route from a checkout: pipx builds the wheel from source (maturin, the
# dist profile; the build above already compiled it with the same settings, so cargo reuses it).
step "pipx install ./mcp-server (from the checkout, with Rust); sqlgate-mcp demo"
PIPX_HOME="$WORK/pipx-src" PIPX_BIN_DIR="$WORK/pipx-src-bin" "$WORK/tools-venv/bin/pipx" install --quiet "$ROOT/mcp-server"
"$WORK/pipx-src-bin/sqlgate-mcp" demo > "$WORK/demo-pipx-src.out"
grep -q "REFUSED multiple_statements" "$WORK/demo-pipx-src.out"
done_step

echo "install-test: every artifact installs and runs without Rust, and pipx installs from the checkout"
