"""The engine differential suite's machinery: the shared fixture, the adapter interface (`Engine`;
the adapters are in adapters.py), and the checks run on every result.

Engines: PostgreSQL (SQLGATE_PG_URL, a superuser URL; a database `sqlgate_engines` is created in
it), MariaDB (SQLGATE_MARIADB_SOCKET, from scripts/mariadb-cluster.sh), SQLite and DuckDB (in
process). Each adapter runs SQL the worst way a caller could: several statements allowed
(PostgreSQL's simple-query protocol, MariaDB's MULTI_STATEMENTS, SQLite's executescript, DuckDB's
execute), as an all-powerful user, in a transaction that is rolled back, with a 2 s timeout.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

TIMEOUT_S = 2
SLOW_S = 1.5

# --- the shared fixture (notes/common.md) ------------------------------------------------------
N_CUSTOMERS = 20
N_EMPLOYEES = 5
N_INVOICES = 30
N_T = 10
N_ORDERS = 10


def fixture_rows() -> dict[str, list[tuple[Any, ...]]]:
    customers = []
    for i in range(1, N_CUSTOMERS + 1):
        last = "O'Brien" if i == 3 else f"Last{i}"
        customers.append((i, f"First{i}", last, f"secret-email-{i}@marker.invalid", f"secret-phone-{i}",
                          ["Brazil", "Canada", "France", "USA"][i % 4], (i % 3) + 1))
    employees = [(i, f"secret-employee-{i}", f"secret-employee-{i}", f"secret-employee-{i}", 987654321 + i)
                 for i in range(1, N_EMPLOYEES + 1)]
    invoices = [(i, (i % N_CUSTOMERS) + 1, f"{(i * 7) % 100}.{i % 100:02d}", ["Brazil", "Canada", "France"][i % 3])
                for i in range(1, N_INVOICES + 1)]
    ts = [(i, f"b{i}") for i in range(1, N_T + 1)]
    # For the mutation vectors (tests/vectors/mutations.jsonl): `orders` is writable there,
    # `orders.ssn` protected, `product` read.
    orders = [(i, "new", (i % N_CUSTOMERS) + 1, f"secret-ssn-{i}") for i in range(1, N_ORDERS + 1)]
    products = [(i, f"p{i}", i % 7) for i in range(1, N_ORDERS + 1)]
    return {"customer": customers, "employee": employees, "invoice": invoices, "t": ts, "orders": orders,
            "product": products}


DDL = [
    "CREATE TABLE customer (customer_id int primary key, first_name text, last_name text, email text, "
    "phone text, country text, support_rep_id int)",
    "CREATE TABLE employee (employee_id int primary key, first_name text, last_name text, email text, salary int)",
    "CREATE TABLE invoice (invoice_id int primary key, customer_id int, total numeric(10,2), billing_country text)",
    "CREATE TABLE t (a int, b text)",
    "CREATE TABLE orders (id int primary key, status text, customer_id int, ssn text)",
    "CREATE TABLE product (id int primary key, name text, price int)",
]
TABLES = ["customer", "employee", "invoice", "t", "orders", "product"]
# Each table's columns, in order (from DDL above).
COLUMNS = {ddl.split()[2]: [c.split()[0] for c in re.sub(r"\(\d+,\s*\d+\)", "", ddl)
                            [ddl.index("(") + 1:].rstrip(")").split(",")]
           for ddl in DDL}

Query = Callable[[str], list[tuple[Any, ...]]]
Inspect = Callable[[Query], Any]

# --- outcome of one run --------------------------------------------------------------------


@dataclasses.dataclass
class Outcome:
    results: list[list[tuple[Any, ...]]]  # one list of rows per result set that had rows
    extra_results: int  # result sets (or command results) beyond the first
    error: str | None
    elapsed: float
    effects_only: bool = False  # the mode returns no rows (SQLite executescript)
    inspected: Any = None  # what `inspect` saw inside the transaction, before the rollback


def walk_values(rows: list[tuple[Any, ...]]) -> Iterator[str]:
    for row in rows:
        for v in row:
            if v is not None:
                yield str(v) if not isinstance(v, (bytes, bytearray, memoryview)) else bytes(v).decode("latin-1")


# --- what the policy protects ----------------------------------------------------------------

def _name_matches(pattern: str, parts: list[str]) -> bool:
    pat = pattern.lower().split(".")
    if len(pat) > len(parts):
        return False
    return all(fnmatch.fnmatchcase(p, q) for p, q in zip(parts[-len(pat):], pat))


def table_denied(policy: dict[str, Any], table: str) -> bool:
    rules = policy.get("tables") or {}
    parts = ["public", table]
    allow = rules.get("allow") or []
    if allow and not any(_name_matches(p, parts) for p in allow):
        return True
    return any(_name_matches(p, parts) for p in rules.get("deny") or [])


def column_protected(policy: dict[str, Any], table: str, column: str) -> bool:
    parts = ["public", table, column]
    return any(_name_matches(p, parts) for p in (policy.get("columns") or {}).get("deny") or [])


def pii_protected(policy: dict[str, Any], table: str, column: str) -> bool:
    """The column's PII category (annotations) is blocked or masked, or it has its own mask:
    its unmasked value must never come back."""
    pii = policy.get("pii") or {}
    for key, annotated in ((policy.get("annotations") or {}).get("tables") or {}).items():
        if key.lower().split(".")[-1] != table:
            continue
        col = (annotated.get("columns") or {}).get(column) or {}
        category = col.get("pii")
        if col.get("mask") or category in (pii.get("block") or []) or category in (pii.get("mask") or {}):
            return True
    return False


def markers_for(policy: dict[str, Any]) -> list[str]:
    """Marker substrings whose presence in a result means a leak under this policy."""
    m = []
    if table_denied(policy, "employee"):
        m += ["secret-employee-", "98765432"]
    if (table_denied(policy, "customer") or column_protected(policy, "customer", "email")
            or pii_protected(policy, "customer", "email")):
        m.append("secret-email-")
    if (table_denied(policy, "customer") or column_protected(policy, "customer", "phone")
            or pii_protected(policy, "customer", "phone")):
        m.append("secret-phone-")
    if table_denied(policy, "orders") or column_protected(policy, "orders", "ssn"):
        m.append("secret-ssn-")
    return m


# --- engines -----------------------------------------------------------------------------------

class Engine:
    name = ""
    dialect = ""
    settings: list[str] = []

    def run(self, sql: str, setting: str, inspect: Inspect | None = None) -> Outcome:
        """Runs `sql` under `setting` in a transaction that is rolled back. When the run
        succeeded, `inspect` is called first with a function that runs a query on the same
        connection, inside the transaction (the mutation tests look at the changed tables)."""
        raise NotImplementedError

    def checksum(self) -> str:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def _digest(self, tables: list[str], fetch: Callable[[str], list[tuple[Any, ...]]]) -> str:
        h = hashlib.sha256()
        h.update(repr(sorted(tables)).encode())
        for table in sorted(tables):
            rows = fetch(table)
            h.update(table.encode())
            for r in sorted(repr(tuple(str(v) for v in row)) for row in rows):
                h.update(r.encode())
        return h.hexdigest()


# --- judging one run -----------------------------------------------------------------------


@dataclasses.dataclass
class Judgement:
    violations: list[str]
    error: str | None


def judge(engine: Engine, outcome: Outcome, baseline: str, policy: dict[str, Any], cap: int | None,
          watch: list[Path]) -> Judgement:
    """What a run did that an approved query must never do."""
    v: list[str] = []
    after = engine.checksum()
    if after != baseline:
        v.append("the fixture changed")
        engine.reload()
    for rows in outcome.results:
        if cap is not None and len(rows) > cap:
            v.append(f"{len(rows)} rows > cap {cap}")
        markers = markers_for(policy)
        for value in walk_values(rows):
            hit = next((m for m in markers if m in value), None)
            if hit:
                v.append(f"marker {hit!r} in the result")
                break
    if outcome.extra_results:
        v.append(f"{outcome.extra_results + 1} result sets (statements)")
    if outcome.elapsed > SLOW_S:
        v.append(f"ran {outcome.elapsed:.1f} s")
    for d in watch:
        found = [p for p in d.rglob("*")] if d.exists() else []
        if found:
            v.append(f"file appeared: {found[0]}")
            for p in found:
                if p.is_dir():
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    p.unlink(missing_ok=True)
    return Judgement(v, outcome.error)


def settings_for(engine: Engine, policy: dict[str, Any]) -> list[str]:
    """The settings to run a vector under: all of the engine's, but MariaDB's ANSI_QUOTES only
    when the policy does not declare the server runs without it (and only it when it declares
    the server runs with it)."""
    quotes = policy.get("mysql_ansi_quotes")
    if engine.name == "mariadb" and quotes is False:
        return [s for s in engine.settings if "ANSI_QUOTES" not in s]
    if engine.name == "mariadb" and quotes is True:
        return [s for s in engine.settings if "ANSI_QUOTES" in s]
    return list(engine.settings)


# Constructs that reach outside the throwaway servers (programs, files anywhere, other sessions,
# server shutdown, network): the evidence pass does not run the ORIGINAL SQL of such vectors.
HOST_EFFECTS = re.compile(
    r"\bPROGRAM\b|\blo_(ex|im)port\b|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|ALTER\s+SYSTEM|"
    r"\bSHUTDOWN\b|\bKILL\b|\bCOPY\b|\bINSTALL\b|\bLOAD\b|\bATTACH\b|\bEXPORT\b|INTO\s+(OUT|DUMP)FILE|"
    r"pg_promote|pg_switch_wal|dblink|pg_file_write|httpfs|\bhttps?://|\bs3://|fsdir|writefile|"
    r"\bSET\s+GLOBAL\b|@@GLOBAL|\bPRAGMA\b",
    re.IGNORECASE,
)


def tempdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ.get("TMPDIR", "/tmp")))
