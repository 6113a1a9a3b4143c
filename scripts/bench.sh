#!/usr/bin/env bash
# Regenerates BENCHMARKS.md: every figure in it comes from a section of this script, written
# between its `<!-- bench.sh:NAME -->` and `<!-- /bench.sh:NAME -->` markers and stamped with the
# date, the commit, the load average before and after, and the command.
#
#   scripts/bench.sh                  # every section
#   scripts/bench.sh core history     # only these; the other sections keep their last output
#
# Sections:
#   core      Guard::check on Chinook gold + Spider dev (1 207 queries), system allocator and
#             mimalloc, the two binaries run alternately (ROUNDS rounds, default 5)
#   criterion cargo bench --bench check, both allocators: policy cost, row filters, input size
#   mutation  cargo bench --bench mutation (mimalloc): check_mutation against check
#   worst     the worst_case example, both allocators
#   history   HEAD against the first release (c6a9792), mimalloc: both timing binaries run
#             alternately (ROUNDS rounds), the ratio per round
#   instructions  instructions per check (valgrind's cachegrind) of HEAD, the first release and
#             SLOW_MAIN (22795d2, the main issue 31 measured): a count the machine's load and clock
#             do not move, for comparing runs made on different machines
#   sqlglot   scripts/bench_vs_sqlglot.py: a sqlglot guard and sqlgate in one run
#   python    bindings-python/bench/compare.py (sqlglot, pglast) in a venv with the binding
#   node      bindings-node/bench/compare.mjs --rust (node-sql-parser)
#   mcp       sqlgate-mcp's bench example against throwaway PostgreSQL and MariaDB clusters
#
# Env: SQLGATE_CORPUS (default ../shared/corpus), CARGO_TARGET_DIR (default target), ROUNDS,
# FIRST_RELEASE (default c6a9792), SLOW_MAIN (default 22795d2). Run it on an idle machine: the
# stamps say how idle it was.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export SQLGATE_CORPUS=${SQLGATE_CORPUS:-$ROOT/../shared/corpus}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
ROUNDS=${ROUNDS:-5}
FIRST_RELEASE=${FIRST_RELEASE:-c6a9792}
SLOW_MAIN=${SLOW_MAIN:-22795d2}
FILES=("$SQLGATE_CORPUS/chinook/chinook_gold.jsonl" "$SQLGATE_CORPUS/spider/spider_dev.jsonl")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqlgate-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!BENCHMARKS.md' || echo "+dirty")

load() { cut -d' ' -f1-3 /proc/loadavg; }

# stamp COMMAND: the line every section starts with.
stamp() {
    printf '_%s, commit %s, load average %s (1, 5, 15 min) at the start; `%s`._\n\n' \
        "$(date -u '+%Y-%m-%d %H:%M UTC')" "$COMMIT" "$(load)" "$1"
}

# put NAME FILE: replaces the text between NAME's markers in BENCHMARKS.md by FILE.
put() {
    printf '\n_Load average at the end: %s._\n' "$(load)" >>"$2"
    python3 - "$1" "$2" <<'EOF'
import re, sys
name, body = sys.argv[1], open(sys.argv[2]).read()
text = open("BENCHMARKS.md").read()
start, end = f"<!-- bench.sh:{name} -->", f"<!-- /bench.sh:{name} -->"
if start not in text or end not in text:
    sys.exit(f"BENCHMARKS.md has no {start} ... {end} markers")
before, rest = text.split(start, 1)
_, after = rest.split(end, 1)
open("BENCHMARKS.md", "w").write(before + start + "\n" + body.strip() + "\n" + end + after)
EOF
    echo "bench.sh: section $1 written" >&2
}

# timing_binary FEATURES... : builds core's timing example, prints the path of a private copy
# (the target dir's binary is overwritten by the next build).
timing_binary() {
    local name=$WORK/timing-$RANDOM
    cargo build -q --release -p sqlgate --example timing "$@" >&2
    cp "$TARGET/release/examples/timing" "$name"
    echo "$name"
}

# slowest N: of the worst_case example's lines, its verdict line and the N slowest shapes.
slowest() {
    python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
timed = [l for l in lines if re.search(r"\s[0-9.]+ ms\s", l) and not l.startswith("slowest")]
timed.sort(key=lambda l: -float(re.search(r"\s([0-9.]+) ms\s", l).group(1)))
print("\n".join(timed[: int(sys.argv[1])] + [l for l in lines if l.startswith("slowest")]))
' "$1"
}

median_of() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["median_us"])'; }

section_core() {
    local out=$WORK/core.md sys mi
    sys=$(timing_binary)
    mi=$(timing_binary --features mimalloc)
    {
        stamp "ROUNDS=$ROUNDS scripts/bench.sh core"
        echo "Median over the 1 207 queries of each query's median of 21 \`Guard::check\` calls"
        echo "(\`cargo build --release -p sqlgate --example timing [--features mimalloc]\`, run as"
        echo "\`timing chinook_gold.jsonl spider_dev.jsonl\`), the two binaries alternately:"
        echo
        echo "| round | system allocator | mimalloc | load average |"
        echo "|---:|---:|---:|---:|"
        for round in $(seq "$ROUNDS"); do
            a=$("$sys" "${FILES[@]}" | median_of)
            b=$("$mi" "${FILES[@]}" | median_of)
            echo "| $round | $a µs | $b µs | $(cut -d' ' -f1 /proc/loadavg) |"
        done
    } >"$out"
    put core "$out"
}

section_criterion() {
    local out=$WORK/criterion.md
    {
        stamp "cargo bench -p sqlgate --bench check [--features mimalloc]"
        for features in "" "--features mimalloc"; do
            echo '```text'
            # shellcheck disable=SC2086
            cargo bench -q -p sqlgate --bench check $features 2>/dev/null |
                grep -E '^(median check|policy overhead|row filters|annotations|size )' || true
            echo '```'
        done
    } >"$out"
    put criterion "$out"
}

section_mutation() {
    local out=$WORK/mutation.md
    {
        stamp "cargo bench -p sqlgate --bench mutation --features mimalloc"
        echo '```text'
        cargo bench -q -p sqlgate --bench mutation --features mimalloc 2>/dev/null |
            grep -E '^(allocator|check_mutation)' || true
        echo '```'
    } >"$out"
    put mutation "$out"
}

section_worst() {
    local out=$WORK/worst.md
    {
        stamp "cargo run --release -p sqlgate [--features mimalloc] --example worst_case"
        for features in "" "--features mimalloc"; do
            echo '```text'
            # shellcheck disable=SC2086
            cargo run -q --release -p sqlgate $features --example worst_case 2>&1 | slowest 8
            echo '```'
        done
    } >"$out"
    put worst "$out"
}

# old_timing COMMIT DIR: builds COMMIT's timing example (mimalloc) from `git archive` in a target
# dir of its own ($TARGET/DIR), prints the path of a private copy. A target dir of its own: cargo
# names a workspace's artifacts by their path inside the workspace, so an old `sqlgate` would
# replace HEAD's in the shared one, and the sections after would link the old library.
old_timing() {
    local src=$WORK/src-$1 name=$WORK/timing-$1
    mkdir -p "$src"
    git archive "$1" | tar -x -C "$src"
    (cd "$src" && CARGO_TARGET_DIR="$TARGET/$2" \
        cargo build -q --release -p sqlgate --example timing --features mimalloc >&2)
    cp "$TARGET/$2/release/examples/timing" "$name"
    echo "$name"
}

section_history() {
    local out=$WORK/history.md head first
    head=$(timing_binary --features mimalloc)
    first=$(old_timing "$FIRST_RELEASE" first-release)
    {
        stamp "ROUNDS=$ROUNDS scripts/bench.sh history"
        echo "HEAD against the first release ($FIRST_RELEASE, built from \`git archive\`), both with"
        echo "mimalloc, the two timing binaries alternately on the same 1 207 queries; a ratio"
        echo "above 1 is a regression:"
        echo
        echo "| round | $FIRST_RELEASE | HEAD | HEAD / $FIRST_RELEASE | load average |"
        echo "|---:|---:|---:|---:|---:|"
        for round in $(seq "$ROUNDS"); do
            a=$("$first" "${FILES[@]}" | median_of)
            b=$("$head" "${FILES[@]}" | median_of)
            ratio=$(python3 -c "print(f'{$b / $a:.3f}')")
            echo "| $round | $a µs | $b µs | $ratio | $(cut -d' ' -f1 /proc/loadavg) |"
        done
    } >"$out"
    put history "$out"
}

# instructions BINARY: one run of BINARY on the queries under cachegrind; prints the instructions
# it executed (21 checks per query, plus reading the files) and the number of queries it read.
instructions() {
    local log=$WORK/cachegrind.log queries
    queries=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        --log-file="$log" "$1" "${FILES[@]}" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["queries"])')
    echo "$(sed -n 's/.*I *refs: *//p' "$log" | tr -d ,) $queries"
}

section_instructions() {
    local out=$WORK/instructions.md rows=$WORK/instructions-rows.md head first slow base="" checks
    command -v valgrind >/dev/null || { echo "bench.sh: instructions needs valgrind" >&2; exit 2; }
    head=$(timing_binary --features mimalloc)
    first=$(old_timing "$FIRST_RELEASE" first-release)
    slow=$(old_timing "$SLOW_MAIN" slow-main)
    for pair in "$FIRST_RELEASE:$first" "$SLOW_MAIN:$slow" "HEAD ($COMMIT):$head"; do
        local name=${pair%%:*} bin=${pair#*:} n queries
        read -r n queries < <(instructions "$bin")
        [ -n "$base" ] || base=$n
        checks=$((queries * 21))
        python3 -c "print(f'| $name | {$n:,} | {$n / $checks:,.0f} | {$n / $base:.3f} |')" >>"$rows"
    done
    {
        stamp "scripts/bench.sh instructions"
        echo "Instructions executed by the timing binary (mimalloc) on the 1 207 queries, 21 checks"
        echo "each, counted by \`valgrind --tool=cachegrind --cache-sim=no\`, divided by the $checks"
        echo "checks (reading the files is counted too, and is the same for all three). Unlike the"
        echo "times above, these counts do not move with the machine's load or clock: compare them"
        echo "across machines and days."
        [ "$SLOW_MAIN" != 22795d2 ] ||
            echo "22795d2 is main when issue 31 measured a median of 23.9-26.8 µs."
        echo
        echo "| commit | instructions | per check | against $FIRST_RELEASE |"
        echo "|---|---:|---:|---:|"
        cat "$rows"
    } >"$out"
    put instructions "$out"
}

section_sqlglot() {
    local out=$WORK/sqlglot.md
    {
        stamp "python3 scripts/bench_vs_sqlglot.py"
        echo '```text'
        python3 scripts/bench_vs_sqlglot.py
        echo '```'
    } >"$out"
    put sqlglot "$out"
}

section_python() {
    local out=$WORK/python.md venv=$WORK/venv rust
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q ./bindings-python sqlglot pglast >&2
    rust=$("$(timing_binary --features mimalloc)" "${FILES[@]}" | median_of)
    {
        stamp "python bindings-python/bench/compare.py --rust-us $rust"
        echo '```text'
        "$venv/bin/python" bindings-python/bench/compare.py --rust-us "$rust"
        echo '```'
    } >"$out"
    put python "$out"
}

section_node() {
    local out=$WORK/node.md
    (cd bindings-node && npm install -q >&2 && npm run -s build >&2)
    {
        stamp "node bindings-node/bench/compare.mjs --rust"
        echo '```text'
        node bindings-node/bench/compare.mjs --rust
        echo '```'
    } >"$out"
    put node "$out"
}

section_mcp() {
    local out=$WORK/mcp.md pg maria
    pg=$(scripts/pg-cluster.sh start | tail -n1)
    scripts/pg-cluster.sh load-chinook "$(dirname "$pg")" >&2
    maria=$(scripts/mariadb-cluster.sh start | tail -n1)
    scripts/mariadb-cluster.sh load-chinook "$(dirname "$maria")" >&2
    {
        stamp "cargo run --release -p sqlgate-mcp --example bench"
        echo '```text'
        # shellcheck disable=SC1090
        (. "$pg" && . "$maria" && cargo run -q --release -p sqlgate-mcp --example bench 2>&1)
        echo '```'
    } >"$out" || true
    scripts/mariadb-cluster.sh stop "$(dirname "$maria")" >&2 || true
    scripts/pg-cluster.sh stop "$(dirname "$pg")" >&2 || true
    put mcp "$out"
}

ALL=(core criterion mutation worst history instructions sqlglot python node mcp)
SECTIONS=("$@")
[ ${#SECTIONS[@]} -eq 0 ] && SECTIONS=("${ALL[@]}")
for s in "${SECTIONS[@]}"; do
    case " ${ALL[*]} " in
    *" $s "*) "section_$s" ;;
    *) echo "bench.sh: unknown section $s (sections: ${ALL[*]})" >&2; exit 2 ;;
    esac
done
