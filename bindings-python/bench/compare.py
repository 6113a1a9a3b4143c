#!/usr/bin/env python3
"""Times sqlgate's Python binding against the tools a Python user would otherwise pick.

    pip install ./bindings-python sqlglot pglast
    python bindings-python/bench/compare.py [--runs 31] [--rust-us 12.3]

On the same queries in one run (Chinook gold in sqlite and postgres, Spider dev, the repo's test
vectors) it times, per query, the median of ``--runs`` calls of:

- ``sqlgate.Guard.check`` (refusals included: a refused query raises ``Rejected``);
- a sqlglot guard: parse, walk the tree for data-modifying or DDL nodes, inject a LIMIT,
  regenerate SQL (what a Python project would write by hand);
- ``pglast.parse_sql`` (PostgreSQL's own parser; parsing only, no guard).

and prints the median over queries with the ratios. ``--rust-us`` is the "median check" line of
``cargo bench -p sqlgate --features mimalloc --bench check`` (Chinook gold + Spider dev; mimalloc is
the extension's allocator too) for the binding's overhead.
It also times one Guard shared by a ThreadPoolExecutor(2) against one thread (the GIL is released
while checking), and ``verdict()`` (serde -> Python objects) against ``json.loads(verdict_json())``.
This is a script, not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import sqlgate

logging.getLogger("sqlglot").setLevel(logging.ERROR)

BINDINGS = Path(__file__).resolve().parents[1]
REPO = BINDINGS.parent
CORPUS = Path(os.environ.get("SQLGATE_CORPUS", REPO.parent / "shared" / "corpus"))

Query = tuple[str, str, dict[str, Any]]  # (sql, dialect, policy)


def read_jsonl(path: Path, dialect: str | None = None) -> list[Query]:
    out: list[Query] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            d = dialect or row.get("dialect", "postgres")
            policy = dict(row.get("policy") or {})
            policy.setdefault("dialect", d)
            out.append((row["sql"], policy["dialect"], policy))
    return out


def datasets() -> dict[str, list[Query]]:
    sets: dict[str, list[Query]] = {}
    for name, rel, dialect in [
        ("chinook gold (sqlite)", "chinook/chinook_gold.jsonl", "sqlite"),
        ("chinook gold (postgres)", "chinook/chinook_gold_postgres.jsonl", "postgres"),
        ("spider dev (sqlite)", "spider/spider_dev.jsonl", "sqlite"),
    ]:
        path = CORPUS / rel
        if path.exists():
            sets[name] = read_jsonl(path, dialect)
        else:
            print(f"missing {path}: skipped (set SQLGATE_CORPUS)", file=sys.stderr)
    vectors: list[Query] = []
    for path in sorted((REPO / "tests" / "vectors").glob("*.jsonl")):
        vectors += read_jsonl(path)
    if vectors:
        sets["repo vectors"] = vectors
    return sets


# --- the contenders -----------------------------------------------------------------------------

_GUARDS: dict[str, sqlgate.Guard] = {}


def guard_for(policy: dict[str, Any]) -> sqlgate.Guard:
    key = json.dumps(policy, sort_keys=True)
    if key not in _GUARDS:
        _GUARDS[key] = sqlgate.Guard.from_policy(policy)
    return _GUARDS[key]


def sqlgate_check(guard: sqlgate.Guard) -> Callable[[str], object]:
    def run(sql: str) -> object:
        try:
            return guard.check(sql).sql
        except sqlgate.Rejected as e:
            return e.code

    return run


SQLGLOT_DIALECT = {"postgres": "postgres", "sqlite": "sqlite", "mysql": "mysql", "duckdb": "duckdb"}


def sqlglot_guard(dialect: str) -> Callable[[str], object] | None:
    """What a Python project would write: parse, refuse DML/DDL, cap rows, regenerate."""
    try:
        import sqlglot
        from sqlglot import exp
    except ImportError:
        return None
    read = SQLGLOT_DIALECT.get(dialect)
    forbidden = tuple(
        getattr(exp, n)
        for n in ("Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "Command",
                  "Into", "Lock", "TruncateTable", "Copy", "Grant")
        if hasattr(exp, n)
    )

    def run(sql: str) -> object:
        try:
            trees = sqlglot.parse(sql, read=read)
        except (sqlglot.errors.SqlglotError, RecursionError):
            return "parse_error"
        if len(trees) != 1 or trees[0] is None:
            return "multiple_statements"
        tree = trees[0]
        if not isinstance(tree, exp.Query):
            return "statement_not_allowed"
        for node in tree.walk():
            if isinstance(node, forbidden):
                return "statement_not_allowed"
        try:
            if tree.args.get("limit") is None:
                tree = tree.limit(1000, copy=False)
            return tree.sql(dialect=read)
        except (sqlglot.errors.SqlglotError, RecursionError):
            return "unsupported"

    return run


def pglast_parse() -> Callable[[str], object] | None:
    try:
        import pglast
    except ImportError:
        return None

    def run(sql: str) -> object:
        try:
            return pglast.parse_sql(sql)
        except Exception:  # pglast.parser.ParseError and friends: still timed
            return None

    return run


# --- timing -------------------------------------------------------------------------------------


def per_query_us(fn: Callable[[str], object], sql: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter_ns()
        fn(sql)
        times.append(time.perf_counter_ns() - t)
    return statistics.median(times) / 1000.0


def median_us(fns: Callable[[Query], Callable[[str], object] | None], queries: list[Query],
              runs: int) -> float | None:
    values = []
    for query in queries:
        fn = fns(query)
        if fn is None:
            return None
        values.append(per_query_us(fn, query[0], runs))
    return statistics.median(values) if values else None


def fmt(us: float | None) -> str:
    return "      n/a" if us is None else f"{us:8.2f}µs"


def ratio(other: float | None, base: float | None) -> str:
    if other is None or base is None or base == 0:
        return "   n/a"
    return f"{other / base:6.1f}x"


def thread_speedup(queries: list[Query], repeat: int) -> tuple[float, float]:
    """Wall time of checking every query `repeat` times on 1 thread vs 2 sharing one Guard each."""
    work = [(guard_for(p), sql) for sql, _, p in queries]

    def chunk(items: list[tuple[sqlgate.Guard, str]]) -> int:
        n = 0
        for _ in range(repeat):
            for guard, sql in items:
                try:
                    guard.check(sql)
                except sqlgate.Rejected:
                    pass
                n += 1
        return n

    t = time.perf_counter()
    chunk(work)
    one = time.perf_counter() - t
    halves = [work[0::2], work[1::2]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        t = time.perf_counter()
        list(pool.map(chunk, halves))
        two = time.perf_counter() - t
    return one, two


def verdict_conversion(queries: list[Query], runs: int) -> tuple[float, float]:
    def via_serde(q: Query) -> Callable[[str], object]:
        return guard_for(q[2]).verdict

    def via_json(q: Query) -> Callable[[str], object]:
        g = guard_for(q[2])
        return lambda sql: json.loads(g.verdict_json(sql))

    a = median_us(via_serde, queries, runs)
    b = median_us(via_json, queries, runs)
    return (a or 0.0), (b or 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=31, help="calls per query (median taken)")
    parser.add_argument("--rust-us", type=float, help="`cargo bench` median check, µs")
    parser.add_argument("--thread-repeat", type=int, default=20)
    args = parser.parse_args()

    sets = datasets()
    if not sets:
        print("no queries found", file=sys.stderr)
        return 1
    print(f"sqlgate {sqlgate.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, {args.runs} runs per query, median over queries\n")
    header = (f"{'dataset':26} {'n':>5} {'sqlgate':>10} {'sqlglot':>10} {'pglast':>10} "
              f"{'sqlglot/sg':>10} {'pglast/sg':>9}")
    print(header)
    print("-" * len(header))
    for name, queries in sets.items():
        sg = median_us(lambda q: sqlgate_check(guard_for(q[2])), queries, args.runs)
        gl = median_us(lambda q: sqlglot_guard(q[1]), queries, args.runs)
        pg = median_us(lambda q: pglast_parse(), queries, args.runs)
        print(f"{name:26} {len(queries):5} {fmt(sg)} {fmt(gl)} {fmt(pg)} "
              f"{ratio(gl, sg):>10} {ratio(pg, sg):>9}")

    rust_set = sets.get("chinook gold (sqlite)", []) + sets.get("spider dev (sqlite)", [])
    if rust_set:
        sg = median_us(lambda q: sqlgate_check(guard_for(q[2])), rust_set, args.runs)
        line = f"\nchinook gold + spider dev (as `cargo bench`): Guard.check {fmt(sg).strip()}"
        if args.rust_us:
            line += f", Rust {args.rust_us:.2f}µs, Python/Rust {ratio(sg, args.rust_us).strip()}"
        print(line)

    all_queries = [q for qs in sets.values() for q in qs]
    one, two = thread_speedup(all_queries, args.thread_repeat)
    n = len(all_queries) * args.thread_repeat
    print(f"\nthreads: {n} checks, 1 thread {one:.2f}s, ThreadPoolExecutor(2) {two:.2f}s, "
          f"speed-up {one / two:.2f}x")

    serde_us, json_us = verdict_conversion(all_queries, max(5, args.runs // 3))
    print(f"verdict(): serde->Python (pythonize) {serde_us:.2f}µs, "
          f"json.loads(verdict_json()) {json_us:.2f}µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
