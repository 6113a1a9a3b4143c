#!/usr/bin/env bash
# CI for the Node package, run from the repository root on a fresh machine (Rust, Node 20+, npm):
# install the locked dependencies, build the addon for the host, fail if the generated loader
# (index.js) or types (index.d.ts) differ from git, run the tests (which also regenerate
# types/generated.d.ts from core's JSON Schemas and fail if it differs) and the type check.
# Uses $CARGO_TARGET_DIR when it is set. Exits non-zero on any failure.
set -euo pipefail

root="$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel)"
cd "$root/bindings-node"

echo "== node $(node --version), npm $(npm --version)"
# Node 20 is supported: no locked package may require a newer one. package.json's "overrides" pin
# two build-time dependencies of @napi-rs/cli (@napi-rs/lzma, content-type) to releases that still
# declare Node 20; npm ci warns EBADENGINE when one does not, and that fails here.
npm ci --no-audit --no-fund 2>&1 | tee "${TMPDIR:-/tmp}/sqlgate-npm-ci.log"
if grep -q EBADENGINE "${TMPDIR:-/tmp}/sqlgate-npm-ci.log"; then
  echo "error: a locked package does not support node $(node --version) (EBADENGINE above)" >&2
  exit 1
fi

echo "== npm run build"
npm run build

echo "== generated files match git"
generated=(bindings-node/index.js bindings-node/index.d.ts)
if ! git -C "$root" diff --exit-code --stat -- "${generated[@]}" \
  || [ -n "$(git -C "$root" status --porcelain -- "${generated[@]}")" ]; then
  git -C "$root" diff -- "${generated[@]}" | head -100
  echo "error: the generated index.js / index.d.ts differ from git: run 'npm run build' in bindings-node and commit them" >&2
  exit 1
fi

echo "== node --test"
node --test

echo "== tsc --noEmit"
npx --no-install tsc --noEmit -p tsconfig.json

echo "== bindings-node: ok"
