#!/usr/bin/env python3
"""Times sqlgate's core check against a sqlglot-based guard on the same queries, in one run.

    python3 scripts/bench_vs_sqlglot.py            # Chinook gold + Spider dev from ../shared/corpus

The sqlglot guard does what Python guards do today: parse, refuse more than one statement, walk
the tree for data-modifying or DDL nodes, inject a LIMIT, regenerate SQL. sqlgate is timed through
`cargo run --release -p sqlgate --example timing` (median per query of 21 runs, self-check
included), once with the system allocator and once with mimalloc (`--features mimalloc`). Both report the median over queries of each query's median time.
"""

import json
import os
import statistics
import subprocess
import sys
import time
import venv

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.environ.get("SQLGATE_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
FILES = [os.path.join(CORPUS, "chinook", "chinook_gold.jsonl"), os.path.join(CORPUS, "spider", "spider_dev.jsonl")]
VENV = os.path.join(os.environ.get("TMPDIR", "/tmp"), "sqlgate-bench-venv")


def ensure_sqlglot():
    """Re-runs this script inside a venv that has sqlglot (installed from PyPI on first use)."""
    try:
        import sqlglot  # noqa: F401
        return
    except ImportError:
        pass
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        venv.create(VENV, with_pip=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "sqlglot"], check=True)
    os.execv(python, [python] + sys.argv)


def sqlglot_guard(sql, dialect, max_rows=1000):
    import sqlglot
    from sqlglot import exp

    statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    if len(statements) != 1:
        raise ValueError("one statement expected")
    tree = statements[0]
    forbidden = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter, exp.Command)
    if any(isinstance(node, forbidden) for node in tree.walk()):
        raise ValueError("not read-only")
    if not isinstance(tree, exp.Query):
        raise ValueError("not a query")
    if tree.args.get("limit") is None:
        tree = tree.limit(max_rows)
    return tree.sql(dialect=dialect)


def main():
    ensure_sqlglot()
    rows = []
    for path in FILES:
        with open(path) as f:
            rows += [json.loads(line) for line in f if line.strip()]
    per_query = []
    failures = 0
    for row in rows:
        runs = []
        for _ in range(11):
            t = time.perf_counter()
            try:
                sqlglot_guard(row["sql"], row["dialect"])
            except Exception:
                failures += 1
            runs.append((time.perf_counter() - t) * 1e6)
        per_query.append(statistics.median(runs))
    sqlglot_median = statistics.median(per_query)

    print(f"queries: {len(rows)} (Chinook gold + Spider dev)")
    print(f"sqlglot guard median: {sqlglot_median:8.1f} µs per query ({failures // 11} queries it could not handle)")
    # The system allocator is what a Rust program gets from `cargo add sqlgate`; mimalloc is what
    # sqlgate-mcp and the Python and Node packages ship with.
    for features in ([], ["--features", "mimalloc"]):
        out = subprocess.run(
            ["cargo", "run", "-q", "--release", "-p", "sqlgate", *features, "--example", "timing", "--"] + FILES,
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
        sqlgate = json.loads(out.strip().splitlines()[-1])
        print(
            f"sqlgate check median: {sqlgate['median_us']:8.1f} µs per query ({sqlgate['allocator']} allocator, "
            f"self-check included): {sqlglot_median / sqlgate['median_us']:.1f}x faster"
        )


if __name__ == "__main__":
    main()
