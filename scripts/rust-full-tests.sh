#!/usr/bin/env bash
# The Rust tests whose outcome --full changes, alone: those that read the large corpora (found
# by their use of corpus_dir() or SQLGATE_CORPUS, so a new one is never missed) and the DuckDB
# backend's (cargo feature `duckdb`). For a run whose quick half already ran every other Rust
# test on the same commit: CI's second half (.ci/run). `scripts/test.sh --full` runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
core=(--lib)
for file in $(grep -l "corpus_dir()" core/tests/*.rs); do
  core+=(--test "$(basename "$file" .rs)")
done
server=(--test duckdb)
for file in $(grep -rl "SQLGATE_CORPUS\|corpus_dir()" mcp-server/tests --include=*.rs); do
  case "$file" in
    mcp-server/tests/*/*) name=${file#mcp-server/tests/}; name=${name%%/*} ;;
    *) name=$(basename "$file" .rs) ;;
  esac
  case " ${server[*]} " in *" $name "*) ;; *) server+=(--test "$name") ;; esac
done
echo "== rust-full-tests: sqlgate ${core[*]}; sqlgate-mcp (duckdb) ${server[*]}"
status=0
cargo test --no-fail-fast -p sqlgate "${core[@]}" || status=1
cargo test --no-fail-fast -p sqlgate-mcp --features duckdb "${server[@]}" || status=1
exit "$status"
