#!/usr/bin/env bash
# Fuzzing in CI: build the cargo-fuzz targets on the stable toolchain (no sanitizer), seed their
# corpora from tests/vectors and fuzz/seeds, run each target for FUZZ_SECONDS (default 60). A crash
# or oracle failure prints the reproducer and fails. Runs from the repo root on a fresh machine.
# Long runs with sanitizers on nightly: see fuzz/README.md.
#
#   bash .ci/fuzz.sh [build|run]   build: tools, targets and corpora; run: the targets, two at a
#                                  time (one core each); neither: both
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${FUZZ_SECONDS:-60}"
TARGETS="${FUZZ_TARGETS:-check_bytes fixed_point grammar differential_pg sizes_sqlite}"
PARALLEL="${FUZZ_JOBS:-2}"
what="${1:-all}"

build() {

# libpg_query (pg_query crate) needs clang/libclang for bindgen.
if ! command -v clang >/dev/null 2>&1 || ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang libclang-dev
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

echo "== cargo fuzz build -s none (stable)"
(cd fuzz && cargo fuzz build -s none)

# Corpora: every `sql` of tests/vectors behind a selector byte for its dialect (policy 0) and the
# hand-picked seeds. The grammar target starts empty (its seeds are text cases for cargo test).
python3 - <<'PY'
import hashlib, json, os, pathlib, shutil
dialects = ["postgres", "mysql", "sqlite", "mssql", "duckdb", "snowflake", "bigquery",
            "redshift", "clickhouse", "databricks", "hive", "ansi", "generic"]
root = pathlib.Path("fuzz")
for target in ["check_bytes", "fixed_point", "differential_pg", "grammar", "sizes_sqlite"]:
    corpus = root / "corpus" / target
    corpus.mkdir(parents=True, exist_ok=True)
    if target == "sizes_sqlite":
        # Structure-aware (arbitrary): 64 fixed pseudo-random inputs, as for the grammar.
        import random
        r = random.Random(41)
        for i in range(64):
            (corpus / f"random-{i:03d}").write_bytes(bytes(r.randrange(256) for _ in range(128)))
        # And the inputs that once failed it (fuzz/seeds/sizes_sqlite), so each run tries them.
        for f in (root / "seeds" / target).glob("*"):
            shutil.copy(f, corpus / f.name)
        continue
    if target == "grammar":
        # Its seeds are text cases for core/tests/fuzz_regressions.rs. Start from 128 fixed
        # pseudo-random inputs instead, half for each grammar (first byte even: dangerous/benign
        # postgres grammar; odd: name-resolution shapes), large enough to build nested queries.
        import random
        r = random.Random(11)
        for i in range(128):
            data = bytes([2 * r.randrange(128) + i % 2]) + bytes(r.randrange(256) for _ in range(512))
            (corpus / f"random-{i:03d}").write_bytes(data)
        continue
    seeds = root / "seeds" / target
    if seeds.is_dir():
        for f in seeds.iterdir():
            shutil.copy(f, corpus / f.name)
    for vec in sorted(pathlib.Path("tests/vectors").glob("*.jsonl")):
        for line in vec.read_text().splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            sql = row.get("sql")
            if not isinstance(sql, str):
                continue
            d = row.get("dialect", "postgres")
            sel = dialects.index(d) if d in dialects else 0
            if target == "differential_pg":
                sel = 0
            data = bytes([sel]) + sql.encode()
            (corpus / ("vec-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)
PY
}

# One target for SECONDS_PER_TARGET; its log in fuzz/artifacts/TARGET.log, exit status its own.
fuzz_one() {
  local target="$1"
  mkdir -p "fuzz/artifacts/$target"
  (cd fuzz && cargo fuzz run -s none "$target" "corpus/$target" -- \
      -max_total_time="$SECONDS_PER_TARGET" -timeout=2 -rss_limit_mb=2048 -max_len=8192 \
      -print_final_stats=1) >"fuzz/artifacts/$target.log" 2>&1
}

# What one finished target found: its stats, and on failure the log's tail and the reproducers.
report() {
  local target="$1" rc="$2" log="fuzz/artifacts/$1.log"
  echo "== fuzz $target for ${SECONDS_PER_TARGET}s: exit $rc"
  grep -E "^(#[0-9]+.*DONE|Done|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
  tail -n 3 "$log" | grep -E "cov:|ft:" || true
  if [ "$rc" -ne 0 ]; then
    echo "!! $target FAILED (exit $rc); log tail:" >&2
    grep -vE "^(#[0-9]+|INFO:)" "$log" | tail -n 60 >&2
    for f in "fuzz/artifacts/$target"/*; do
      [ -f "$f" ] || continue
      echo "!! reproducer $f (escaped):" >&2
      python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(repr(d))' "$f" >&2
      echo "!! replay: (cd fuzz && cargo fuzz run -s none $target ${f#fuzz/})" >&2
    done
  fi
}

# The targets, PARALLEL at a time; every one runs and reports, the exit status says if any failed.
run() {
  local status=0 target rc
  local -a batch=()
  for target in $TARGETS; do
    batch+=("$target")
    if [ "${#batch[@]}" -eq "$PARALLEL" ]; then
      run_batch "${batch[@]}" || status=1
      batch=()
    fi
  done
  if [ "${#batch[@]}" -gt 0 ]; then run_batch "${batch[@]}" || status=1; fi
  return $status
}

run_batch() {
  local -a pids=()
  local target i status=0 rc
  for target in "$@"; do
    fuzz_one "$target" &
    pids+=($!)
  done
  i=0
  for target in "$@"; do
    rc=0
    wait "${pids[$i]}" || rc=$?
    report "$target" "$rc"
    [ "$rc" -eq 0 ] || status=1
    i=$((i + 1))
  done
  return $status
}

case "$what" in
  build) build ;;
  run) run ;;
  all) build; run ;;
  *) echo "usage: bash .ci/fuzz.sh [build|run]" >&2; exit 2 ;;
esac
