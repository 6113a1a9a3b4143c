"""Engine differential suite: every approved vector is harmless on the real engines.

For every vector of tests/vectors/*.jsonl in a dialect with an engine here (postgres -> PostgreSQL,
mysql -> MariaDB, sqlite, duckdb), the verdict comes from the sqlgate Python package and the
vector's policy. Each approved.sql runs on the engine under every setting that changes how text
is read (PostgreSQL standard_conforming_strings on/off; MariaDB sql_mode default,
NO_BACKSLASH_ESCAPES, ANSI_QUOTES; SQLite execute and executescript; DuckDB execute), the worst
way a caller could run it (several statements allowed), rolled back, with a 2 s timeout. It must
not change the fixture (checksum of every table and the table list), return a marker value the
policy protects, return more rows than the cap, create a file in a watched directory, run long
or return several result sets. Engine errors are allowed, counted and printed, except for
vectors marked "engine": "runs".

The ORIGINAL SQL of every refused vector is run the same way (bar those reaching outside the
throwaway servers, see engines.HOST_EFFECTS): the counts of those that really do something are
the evidence that the attacks are real.

Environment: SQLGATE_PG_URL (superuser URL), SQLGATE_MARIADB_SOCKET and SQLGATE_MARIADB_FILES
(scripts/mariadb-cluster.sh). SQLGATE_ENGINES_REQUIRED=1 (set by scripts/test.sh under CI) turns
a missing engine into a failure; otherwise its tests are skipped and say so.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

import sqlgate
from adapters import DuckDB, MariaDB, Postgres, SQLite
from engines import (COLUMNS, HOST_EFFECTS, TABLES, Engine, Query, column_protected, fixture_rows, judge,
                     pii_protected, settings_for, tempdir, walk_values)

REPO = Path(__file__).resolve().parents[2]
VECTOR_DIR = REPO / "tests" / "vectors"
REQUIRED = os.environ.get("SQLGATE_ENGINES_REQUIRED") == "1"
ENGINE_NAMES = ["postgres", "mariadb", "sqlite", "duckdb"]
DIALECT_OF = {"postgres": "postgres", "mariadb": "mysql", "sqlite": "sqlite", "duckdb": "duckdb"}


def load_vectors() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(VECTOR_DIR.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    case = json.loads(line)
                    case["_where"] = f"{path.name}:{number}"
                    cases.append(case)
    return cases


VECTORS = load_vectors()
_GUARDS: dict[str, sqlgate.Guard] = {}


def policy_of(case: dict[str, Any]) -> dict[str, Any]:
    return {"dialect": case["dialect"], **(case.get("policy") or {})}


def verdict_of(case: dict[str, Any]) -> dict[str, Any]:
    policy = policy_of(case)
    key = json.dumps(policy, sort_keys=True)
    if key not in _GUARDS:
        _GUARDS[key] = sqlgate.Guard.from_policy(policy)
    return _GUARDS[key].verdict(case["sql"])


def mutation_verdict_of(case: dict[str, Any]) -> dict[str, Any]:
    policy = policy_of(case)
    key = json.dumps(policy, sort_keys=True)
    if key not in _GUARDS:
        _GUARDS[key] = sqlgate.Guard.from_policy(policy)
    return _GUARDS[key].mutation_verdict(case["sql"])


def cap_of(verdict: dict[str, Any], policy: dict[str, Any]) -> int | None:
    if verdict.get("allowed"):
        return (verdict.get("limit") or {}).get("value")
    return policy.get("max_rows", 1000)


class Watched:
    """Directories where no file may appear: MariaDB's secure_file_priv and the working
    directory of the in-process engines."""

    def __init__(self) -> None:
        self.cwd = tempdir("sqlgate-engines-cwd.")
        self.dirs = [self.cwd]
        files = os.environ.get("SQLGATE_MARIADB_FILES")
        if files:
            self.dirs.append(Path(files))


@pytest.fixture(scope="session")
def watched() -> Iterator[Watched]:
    w = Watched()
    old = os.getcwd()
    os.chdir(w.cwd)
    yield w
    os.chdir(old)


def open_engine(name: str, workdir: Path) -> Engine | str:
    """The engine, or why it is missing."""
    try:
        if name == "postgres":
            url = os.environ.get("SQLGATE_PG_URL")
            return Postgres(url) if url else "SQLGATE_PG_URL is not set (scripts/pg-cluster.sh)"
        if name == "mariadb":
            sock = os.environ.get("SQLGATE_MARIADB_SOCKET")
            if not sock:
                return "SQLGATE_MARIADB_SOCKET is not set (scripts/mariadb-cluster.sh)"
            return MariaDB(sock, os.environ.get("SQLGATE_MARIADB_FILES"))
        if name == "sqlite":
            return SQLite(workdir)
        return DuckDB(workdir)
    except ImportError as e:
        return f"client library missing: {e}"


@pytest.fixture(scope="session")
def engines(watched: Watched) -> Iterator[dict[str, Engine | str]]:
    workdir = tempdir("sqlgate-engines-db.")
    opened = {name: open_engine(name, workdir) for name in ENGINE_NAMES}
    yield opened
    for e in opened.values():
        if isinstance(e, Engine):
            e.close()


def engine_or_skip(engines: dict[str, Engine | str], name: str) -> Engine:
    e = engines[name]
    if isinstance(e, str):
        if REQUIRED:
            pytest.fail(f"{name}: {e} (SQLGATE_ENGINES_REQUIRED=1)")
        print(f"\nengines: {name} SKIPPED: {e}")
        pytest.skip(f"{name} SKIPPED: {e}")
    return e


def cases_for(name: str) -> list[dict[str, Any]]:
    """The read vectors of the engine's dialect (mutation vectors have their own test)."""
    return [c for c in VECTORS if c["dialect"] == DIALECT_OF[name] and c.get("entry") != "mutation"]


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_approved_vectors_are_harmless(name: str, engines: dict[str, Engine | str], watched: Watched) -> None:
    engine = engine_or_skip(engines, name)
    baseline = engine.checksum()
    stats: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    failures: list[str] = []
    errors: list[str] = []
    for case in cases_for(name):
        verdict = verdict_of(case)
        assert verdict == case["expect"], f"{case['_where']} {case['name']}: verdict differs from the vector"
        policy = policy_of(case)
        if not verdict["allowed"]:
            for setting in engine.settings:
                stats[setting]["refused"] += 1
            continue
        for setting in settings_for(engine, policy):
            outcome = engine.run(verdict["sql"], setting)
            j = judge(engine, outcome, baseline, policy, cap_of(verdict, policy), watched.dirs)
            stats[setting]["approved run"] += 1
            where = f"{case['_where']} {case['name']!r} [{setting}]"
            if j.error:
                stats[setting]["errors"] += 1
                errors.append(f"{where}: {j.error}")
                if case.get("engine") == "runs":
                    failures.append(f"{where}: marked engine=runs but failed: {j.error}\n    {verdict['sql']}")
            if j.violations:
                failures.append(f"{where}: {'; '.join(j.violations)}\n    {verdict['sql']}")
    print(f"\n== engines: {name}: approved vectors")
    for setting in engine.settings:
        s = stats[setting]
        print(f"  {name} [{setting}]: approved run {s['approved run']}, errors {s['errors']}, "
              f"refused {s['refused']}")
    for e in errors:
        print(f"  engine error (allowed): {e}")
    assert not failures, "approved SQL did something it must not:\n" + "\n".join(failures)


# The literal differentials (tests/vectors/literals.jsonl) must be real attacks under the
# non-default setting: at least this many must do something there.
LITERAL_EVIDENCE = {
    ("postgres", "standard_conforming_strings=off"): 10,
    ("mariadb", "sql_mode=NO_BACKSLASH_ESCAPES"): 10,
    ("mariadb", "sql_mode=ANSI_QUOTES"): 3,
}


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_refused_attacks_do_something_on_the_engine(name: str, engines: dict[str, Engine | str],
                                                    watched: Watched) -> None:
    """Evidence: the ORIGINAL SQL of refused vectors, run as a careless caller would."""
    engine = engine_or_skip(engines, name)
    baseline = engine.checksum()
    did: collections.Counter[str] = collections.Counter()
    literal_did: collections.Counter[str] = collections.Counter()
    ran: collections.Counter[str] = collections.Counter()
    skipped = 0
    examples: list[str] = []
    for case in cases_for(name):
        if case["expect"]["allowed"]:
            continue
        if HOST_EFFECTS.search(case["sql"]):
            skipped += 1
            continue
        policy = policy_of(case)
        # The settings change how quotes and backslashes read; what a size vector builds does
        # not depend on them, and most of them run to the timeout: once is enough.
        sizes = case["_where"].startswith("bounds.jsonl")
        for setting in engine.settings[:1] if sizes else engine.settings:
            outcome = engine.run(case["sql"], setting)
            j = judge(engine, outcome, baseline, policy, cap_of(case["expect"], policy), watched.dirs)
            ran[setting] += 1
            if j.violations:
                did[setting] += 1
                if case["_where"].startswith("literals.jsonl"):
                    literal_did[setting] += 1
                if len(examples) < 6 and case["_where"].startswith("literals.jsonl"):
                    examples.append(f"{case['name']} [{setting}]: {'; '.join(j.violations)}")
    print(f"\n== engines: {name}: original SQL of refused vectors ({skipped} not run: reach outside the server)")
    for setting in engine.settings:
        print(f"  {name} [{setting}]: ran {ran[setting]}, did something {did[setting]} "
              f"(literals.jsonl: {literal_did[setting]})")
    for e in examples:
        print(f"  e.g. {e}")
    assert engine.checksum() == baseline
    assert sum(did.values()) > 0, f"no refused vector did anything on {name}: the evidence pass is broken"
    for (engine_name, setting), least in LITERAL_EVIDENCE.items():
        if engine_name == name:
            assert literal_did[setting] >= least, (
                f"only {literal_did[setting]} literal attacks did something on {name} [{setting}]")


# --- generated sizes (tests/vectors/bounds.jsonl) ----------------------------------------------

# The guard's estimate of what a refused query would generate, and the bound it cites.
# (A count past 1e15 is written with an exponent: 1.268e30.)
ESTIMATE = re.compile(r"would (?:build a value of|generate|collect \d+ generated rows into one value of about) "
                      r"(\d+(?:\.\d+e\d+)?|unbounded)")
BOUND = re.compile(r"the policy allows (\d+)")
# Refusals whose estimate is at most this are run on the engine (larger ones would really take
# the memory or the minutes the guard refused them for).
RUNNABLE_ESTIMATE = 5_000_000
# An engine build without the function or table function.
MISSING = re.compile(r"no such (table|function): \w+|does not exist|Catalog Error")


def measured(outcome: Any) -> int | None:
    """The one value a measuring query returned, as a size: a number, or a string's length."""
    if outcome.error or len(outcome.results) != 1 or len(outcome.results[0]) != 1:
        return None
    value = outcome.results[0][0][0]
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return len(value)
    return int(value) if isinstance(value, (int, float)) else None


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_refused_sizes_would_have_been_generated(name: str, engines: dict[str, Engine | str]) -> None:
    """Evidence for the size bounds: each `generated_too_large` refusal of the engine's dialect
    small enough to run is run as submitted, and the engine builds more than the bound (bytes of
    the value, or rows), and no more than the guard estimated."""
    engine = engine_or_skip(engines, name)
    checked, too_big, missing = 0, 0, []
    for case in cases_for(name):
        error = case["expect"].get("error") or {}
        if not case["_where"].startswith("bounds.jsonl") or error.get("code") != "generated_too_large":
            continue
        estimate, bound = ESTIMATE.search(error["message"]), BOUND.search(error["message"])
        assert estimate and bound, f"{case['_where']}: no estimate or bound in {error['message']!r}"
        estimate_n, bound_n = float(estimate.group(1).replace("unbounded", "inf")), int(bound.group(1))
        if estimate_n > RUNNABLE_ESTIMATE:
            too_big += 1
            continue
        outcome = engine.run(case["sql"], engine.settings[0])
        if outcome.error and MISSING.search(outcome.error):
            # Not in this build of the engine (Python's SQLite has no generate_series): the
            # guard bounds it for the builds that have it.
            missing.append(case["sql"])
            continue
        size = measured(outcome)
        assert size is not None, f"{case['_where']} {case['sql']!r} on {name}: {outcome.error or outcome.results}"
        assert bound_n < size <= estimate_n, (
            f"{case['_where']} {case['sql']!r} on {name}: the engine built {size}, "
            f"the guard estimated {estimate_n} against a bound of {bound_n}")
        checked += 1
    print(f"\n== engines: {name}: {checked} generated_too_large refusals confirmed over their bound "
          f"({too_big} estimated over {RUNNABLE_ESTIMATE}, not run; not in this build: {missing})")
    assert checked > 0, f"no size refusal of {name} was run: the evidence pass is broken"


# --- mutations (tests/vectors/mutations.jsonl) ---------------------------------------------------

# Approved mutation vectors that must run without an engine error, per engine: the test is only
# evidence if mutations really change rows.
MUTATIONS_THAT_RUN = {"postgres": 15, "mariadb": 4, "sqlite": 4, "duckdb": 2}


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_approved_sizes_stay_within_their_bounds(name: str, engines: dict[str, Engine | str]) -> None:
    """The other direction of the size evidence: each approved size vector (tests/vectors/
    bounds.jsonl) runs as approved on its engine, and no value it returns is longer than the
    policy's max_generated_bytes, nor are there more rows than max_generated_rows. The approved
    vectors sit just under the bounds where they can (a concatenation of two 300 000-byte
    values, a CTE's value used twice), so an under-estimate shows here."""
    engine = engine_or_skip(engines, name)
    measured_values, largest, over = 0, 0, []
    for case in cases_for(name):
        if not case["_where"].startswith("bounds.jsonl") or not case["expect"]["allowed"]:
            continue
        policy = policy_of(case)
        max_bytes = policy.get("max_generated_bytes", 1_048_576)
        max_rows = policy.get("max_generated_rows", 1_000_000)
        outcome = engine.run(case["expect"]["sql"], engine.settings[0])
        if outcome.error:
            continue  # not in this build, or an engine error: the harmless-run test reports it
        for rows in outcome.results:
            sizes = [len(v) for v in walk_values(rows)]
            measured_values += len(sizes)
            largest = max([largest, *sizes])
            if len(rows) > max_rows or any(size > max_bytes for size in sizes):
                over.append(f"{case['_where']} {case['sql']!r}: {len(rows)} rows, largest value "
                            f"{max(sizes, default=0)} bytes (bounds {max_rows} rows, {max_bytes} bytes)")
    print(f"\n== engines: {name}: {measured_values} values of approved size vectors measured, "
          f"largest {largest} bytes")
    assert measured_values > 0, f"no approved size vector of {name} returned a value"
    assert not over, "approved size vectors built more than their bounds:\n" + "\n".join(over)


def table_state(policy: dict[str, Any]) -> Any:
    """An `inspect` for Engine.run: per table, the sorted rows, the non-null values of the
    columns the policy protects (denied or masked), and, for a row-filtered table, the rows its
    filter does not admit (another tenant's)."""
    filters = (policy.get("rows") or {})

    def inspect(query: Query) -> dict[str, tuple[list[str], set[str], list[str]]]:
        def sorted_rows(sql: str) -> list[str]:
            return sorted(repr(tuple(str(v) for v in row)) for row in query(sql))

        state = {}
        for table in TABLES:
            rows = query(f"SELECT * FROM {table}")
            protected = [i for i, c in enumerate(COLUMNS[table])
                         if column_protected(policy, table, c) or pii_protected(policy, table, c)]
            values = {str(row[i]) for row in rows for i in protected if row[i] is not None}
            condition = filters.get(table)
            outside = sorted_rows(f"SELECT * FROM {table} WHERE NOT ({condition})") if condition else []
            state[table] = (sorted(repr(tuple(str(v) for v in row)) for row in rows), values, outside)
        return state
    return inspect


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_approved_mutations_change_only_their_target(name: str, engines: dict[str, Engine | str],
                                                     watched: Watched) -> None:
    """Every approved mutation vector runs on the engine inside a transaction that is inspected,
    then rolled back: only the target table may differ, no value of a protected column may appear
    or change there, and RETURNING may not return a protected marker. SQLite runs them with
    `execute` only (executescript commits as it goes)."""
    engine = engine_or_skip(engines, name)
    baseline = engine.checksum()
    failures: list[str] = []
    ran = errors = 0
    for case in [c for c in VECTORS if c["dialect"] == DIALECT_OF[name] and c.get("entry") == "mutation"]:
        verdict = mutation_verdict_of(case)
        assert verdict == case["expect"], f"{case['_where']} {case['name']}: verdict differs from the vector"
        if not verdict["allowed"]:
            continue
        policy = policy_of(case)
        inspect = table_state(policy)
        before = engine.run("SELECT 1", engine.settings[0], inspect).inspected
        settings = ["execute"] if name == "sqlite" else settings_for(engine, policy)
        for setting in settings:
            where = f"{case['_where']} {case['name']!r} [{setting}]"
            outcome = engine.run(verdict["sql"], setting, inspect)
            j = judge(engine, outcome, baseline, policy, None, watched.dirs)
            failures += [f"{where}: {v}\n    {verdict['sql']}" for v in j.violations]
            if outcome.error:
                errors += 1
                if case.get("engine") == "runs":
                    failures.append(f"{where}: marked engine=runs but failed: {outcome.error}\n    {verdict['sql']}")
                continue
            ran += 1
            target = verdict["target"].split(".")[-1]
            changed = {t for t in TABLES if outcome.inspected[t][0] != before[t][0]}
            if changed - {target}:
                failures.append(f"{where}: changed {sorted(changed - {target})}, target {target}")
            if target in before and outcome.inspected[target][2] != before[target][2]:
                failures.append(f"{where}: rows outside {target}'s row filter changed")
            # A masked column may be set to a literal of the statement; nothing else may appear.
            new_protected = outcome.inspected[target][1] - before[target][1] if target in before else set()
            new_protected = {v for v in new_protected if f"'{v}'" not in verdict["sql"]}
            if new_protected:
                failures.append(f"{where}: protected values written: {sorted(new_protected)[:3]}")
    print(f"\n== engines: {name}: approved mutation vectors ran {ran}, engine errors {errors}")
    assert engine.checksum() == baseline
    assert not failures, "approved mutations did what they must not:\n" + "\n".join(failures)
    assert ran >= MUTATIONS_THAT_RUN[name], f"only {ran} approved mutations ran without error on {name}"


# --- masking (tests/vectors/pii.jsonl) -------------------------------------------------------------

def expected_mask(name: str, kind: str, value: str) -> str:
    """What the engine must return for `value` under mask `kind` (core/src/mask.rs)."""
    if kind == "redact":
        return "[REDACTED]"
    if kind == "partial":
        return "****" + value[-4:] if len(value) > 4 else "****"
    digest = hashlib.md5 if name == "postgres" else hashlib.sha256
    return digest(value.encode()).hexdigest()


@pytest.mark.parametrize("name", ENGINE_NAMES)
def test_masked_columns_come_back_masked(name: str, engines: dict[str, Engine | str], watched: Watched) -> None:
    """The marker values planted in customer.email and customer.phone come back as their masks,
    computed by the engine from the approved SQL (so the masks really run, and are what the
    README says), in every setting of the engine."""
    engine = engine_or_skip(engines, name)
    email = "redact" if name == "sqlite" else "hash"
    policy = {"dialect": DIALECT_OF[name],
              "annotations": {"tables": {"customer": {"columns": {
                  "email": {"pii": "EMAIL_ADDRESS"}, "phone": {"pii": "PHONE_NUMBER"}}}}},
              "pii": {"mask": {"EMAIL_ADDRESS": email, "PHONE_NUMBER": "partial"}}}
    verdict = sqlgate.Guard.from_policy(policy).verdict(
        "SELECT c.customer_id, c.email, phone AS p FROM customer c ORDER BY c.customer_id")
    assert verdict["allowed"], verdict
    expected = [(row[0], expected_mask(name, email, row[3]), expected_mask(name, "partial", row[4]))
                for row in fixture_rows()["customer"]]
    for setting in settings_for(engine, policy):
        outcome = engine.run(verdict["sql"], setting)
        assert outcome.error is None, f"[{setting}] {outcome.error}\n    {verdict['sql']}"
        if outcome.effects_only:
            continue
        got = [(int(r[0]), str(r[1]), str(r[2])) for r in outcome.results[0]]
        assert got == expected, f"[{setting}] {verdict['sql']}"
