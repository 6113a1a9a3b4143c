"""The engine differential suite's machinery: the shared fixture, one adapter per engine, and the
checks run on every result.

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
import sqlite3
import tempfile
import threading
import time
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


def markers_for(policy: dict[str, Any]) -> list[str]:
    """Marker substrings whose presence in a result means a leak under this policy."""
    m = []
    if table_denied(policy, "employee"):
        m += ["secret-employee-", "98765432"]
    if table_denied(policy, "customer") or column_protected(policy, "customer", "email"):
        m.append("secret-email-")
    if table_denied(policy, "customer") or column_protected(policy, "customer", "phone"):
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


class Postgres(Engine):
    name = "postgres"
    dialect = "postgres"
    settings = ["standard_conforming_strings=on", "standard_conforming_strings=off"]
    DB = "sqlgate_engines"

    def __init__(self, url: str) -> None:
        import psycopg

        self.psycopg = psycopg
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {self.DB} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {self.DB}")
        self.url = re.sub(r"/[^/?]*(\?|$)", f"/{self.DB}\\1", url, count=1) if "/" in url.split("@")[-1] \
            else url + f"/{self.DB}"
        self.reload()
        self.conns: dict[str, Any] = {}

    def _conn(self, setting: str) -> Any:
        conn = self.conns.get(setting)
        if conn is None or conn.closed:
            conn = self.psycopg.connect(self.url, autocommit=True)
            key, value = setting.split("=")
            conn.execute(f"SET {key} = {value}")
            conn.execute(f"SET statement_timeout = '{TIMEOUT_S}s'")
            conn.execute("SET escape_string_warning = off")
            conn.autocommit = False
            self.conns[setting] = conn
        return conn

    def run(self, sql: str, setting: str, inspect: Inspect | None = None) -> Outcome:
        conn = self._conn(setting)
        results: list[list[tuple[Any, ...]]] = []
        extra = 0
        error = None
        inspected = None
        start = time.monotonic()
        try:
            cur = self.psycopg.ClientCursor(conn)
            cur.execute(sql)
            while True:
                if cur.description is not None:
                    results.append(cur.fetchall())
                if not cur.nextset():
                    break
                extra += 1
            if inspect is not None:
                inspected = inspect(lambda q: conn.execute(q).fetchall())
        except Exception as e:  # noqa: BLE001 - any engine error is an outcome
            error = f"{type(e).__name__}: {e}".splitlines()[0]
        elapsed = time.monotonic() - start
        try:
            conn.rollback()
        except Exception:  # noqa: BLE001
            conn.close()
        # A payload may change the session (SET ...): start the next run from a clean session.
        if error is None and extra:
            conn.close()
        return Outcome(results, extra, error, elapsed, inspected=inspected)

    def _admin(self) -> Any:
        return self.psycopg.connect(self.url, autocommit=True)

    def checksum(self) -> str:
        with self._admin() as c:
            tables = [r[0] for r in c.execute(
                "SELECT table_schema || '.' || table_name FROM information_schema.tables "
                "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')").fetchall()]
            return self._digest(tables, lambda t: c.execute(f"SELECT * FROM {t}").fetchall())

    def reload(self) -> None:
        with self._admin() as c:
            c.execute("DROP SCHEMA IF EXISTS public CASCADE")
            c.execute("CREATE SCHEMA public")
            for ddl in DDL:
                c.execute(ddl)
            for table, rows in fixture_rows().items():
                with c.cursor() as cur:
                    marks = ", ".join(["%s"] * len(rows[0]))
                    cur.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)

    def close(self) -> None:
        for c in self.conns.values():
            c.close()


class MariaDB(Engine):
    name = "mariadb"
    dialect = "mysql"
    BASE = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
    settings = ["sql_mode=default", "sql_mode=NO_BACKSLASH_ESCAPES", "sql_mode=ANSI_QUOTES"]
    DB = "sqlgate_engines"

    def __init__(self, socket: str, files_dir: str | None) -> None:
        import pymysql
        from pymysql.constants import CLIENT

        self.pymysql = pymysql
        self.flags = CLIENT.MULTI_STATEMENTS
        self.socket = socket
        self.files_dir = files_dir
        admin = self._connect(None)
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {self.DB}")
            cur.execute(f"CREATE DATABASE {self.DB}")
        admin.close()
        self.reload()
        self.conns: dict[str, Any] = {}

    def _connect(self, db: str | None) -> Any:
        return self.pymysql.connect(unix_socket=self.socket, user="root", database=db, autocommit=True,
                                    client_flag=self.flags, charset="utf8mb4")

    def _conn(self, setting: str) -> Any:
        conn = self.conns.get(setting)
        if conn is None or not conn.open:
            conn = self._connect(self.DB)
            mode = setting.split("=")[1]
            mode = self.BASE if mode == "default" else f"{self.BASE},{mode}"
            with conn.cursor() as cur:
                cur.execute(f"SET SESSION sql_mode = '{mode}'")
                cur.execute(f"SET SESSION max_statement_time = {TIMEOUT_S}")
            conn.autocommit(False)
            self.conns[setting] = conn
        return conn

    def run(self, sql: str, setting: str, inspect: Inspect | None = None) -> Outcome:
        conn = self._conn(setting)
        results: list[list[tuple[Any, ...]]] = []
        extra = 0
        error = None
        inspected = None
        start = time.monotonic()
        cur = conn.cursor()
        try:
            conn.begin()
            cur.execute(sql)
            while True:
                if cur.description is not None:
                    results.append(list(cur.fetchall()))
                if not cur.nextset():
                    break
                extra += 1
            if inspect is not None:
                def query(q: str) -> list[tuple[Any, ...]]:
                    cur.execute(q)
                    return list(cur.fetchall())
                inspected = inspect(query)
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}".splitlines()[0]
        elapsed = time.monotonic() - start
        try:
            # Drain what a failed multi-statement left, then roll back.
            while cur.nextset():
                extra += 1
        except Exception:  # noqa: BLE001
            pass
        try:
            conn.rollback()
        except Exception:  # noqa: BLE001
            conn.close()
        if extra or error:
            conn.close()  # a fresh session for the next run (session state, half-read results)
        return Outcome(results, extra, error, elapsed, inspected=inspected)

    def checksum(self) -> str:
        c = self._connect(self.DB)
        try:
            with c.cursor() as cur:
                cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
                tables = [r[0] for r in cur.fetchall()]

                def fetch(t: str) -> list[tuple[Any, ...]]:
                    cur.execute(f"SELECT * FROM `{t}`")
                    return list(cur.fetchall())

                return self._digest(tables, fetch)
        finally:
            c.close()

    def reload(self) -> None:
        c = self._connect(self.DB)
        try:
            with c.cursor() as cur:
                cur.execute("SET SESSION sql_mode = ''")
                cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
                for (name,) in cur.fetchall():
                    cur.execute(f"DROP TABLE IF EXISTS `{name}`")
                for ddl in DDL:
                    cur.execute(ddl)
                for table, rows in fixture_rows().items():
                    marks = ", ".join(["%s"] * len(rows[0]))
                    cur.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        finally:
            c.close()

    def close(self) -> None:
        for c in self.conns.values():
            if c.open:
                c.close()


class SQLite(Engine):
    name = "sqlite"
    dialect = "sqlite"
    settings = ["execute", "executescript"]

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pristine = workdir / "pristine.db"
        self.live = workdir / "live.db"
        conn = sqlite3.connect(self.pristine)
        for ddl in DDL:
            conn.execute(ddl)
        for table, rows in fixture_rows().items():
            marks = ", ".join(["?"] * len(rows[0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        conn.commit()
        conn.close()
        self.reload()

    def reload(self) -> None:
        shutil.copyfile(self.pristine, self.live)

    def run(self, sql: str, setting: str, inspect: Inspect | None = None) -> Outcome:
        conn = sqlite3.connect(self.live, isolation_level="DEFERRED")
        deadline = time.monotonic() + TIMEOUT_S
        conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10000)
        results: list[list[tuple[Any, ...]]] = []
        error = None
        inspected = None
        start = time.monotonic()
        try:
            if setting == "execute":
                results.append(conn.execute(sql).fetchall())
            else:
                # executescript COMMITs first and runs in autocommit mode: nothing to inspect
                # inside a transaction (the mutation tests use "execute").
                conn.executescript(sql)
            if inspect is not None and setting == "execute":
                inspected = inspect(lambda q: conn.execute(q).fetchall())
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}".splitlines()[0]
        elapsed = time.monotonic() - start
        try:
            conn.rollback()
        finally:
            conn.close()
        return Outcome(results, 0, error, elapsed, effects_only=setting == "executescript", inspected=inspected)

    def checksum(self) -> str:
        conn = sqlite3.connect(self.live)
        try:
            objects = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
            tables = [f"{kind}:{name}" for kind, name in objects]
            return self._digest(tables, lambda t: conn.execute(f'SELECT * FROM "{t[6:]}"').fetchall()
                                if t.startswith("table:") else [])
        finally:
            conn.close()


class DuckDB(Engine):
    name = "duckdb"
    dialect = "duckdb"
    settings = ["execute"]

    def __init__(self, workdir: Path) -> None:
        import duckdb

        self.duckdb = duckdb
        self.path = workdir / "fixture.duckdb"
        self.conn = duckdb.connect(str(self.path))
        self.reload()

    def reload(self) -> None:
        c = self.conn
        try:
            c.rollback()
        except Exception:  # noqa: BLE001
            pass
        for (name, kind) in c.execute(
                "SELECT table_name, table_type FROM information_schema.tables WHERE table_catalog = current_database()"
        ).fetchall():
            c.execute(f'DROP {"VIEW" if kind == "VIEW" else "TABLE"} IF EXISTS "{name}" CASCADE')
        for ddl in DDL:
            c.execute(ddl)
        for table, rows in fixture_rows().items():
            marks = ", ".join(["?"] * len(rows[0]))
            c.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)

    def run(self, sql: str, setting: str, inspect: Inspect | None = None) -> Outcome:
        c = self.conn
        results: list[list[tuple[Any, ...]]] = []
        error = None
        inspected = None
        extra = 0
        timer = threading.Timer(TIMEOUT_S, c.interrupt)
        start = time.monotonic()
        try:
            # execute() runs every statement and returns only the last result: count them with
            # DuckDB's own parser, or a stacked statement rolled back below would go unseen.
            extra = max(0, len(c.extract_statements(sql)) - 1)
            c.begin()
            timer.start()
            rel = c.execute(sql)  # runs every statement, returns the last one's result
            if rel.description is not None:
                results.append(rel.fetchall())
            if inspect is not None:
                inspected = inspect(lambda q: c.execute(q).fetchall())
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}".splitlines()[0]
        finally:
            timer.cancel()
        elapsed = time.monotonic() - start
        try:
            c.rollback()
        except Exception:  # noqa: BLE001
            pass
        return Outcome(results, extra, error, elapsed, inspected=inspected)

    def checksum(self) -> str:
        c = self.conn
        tables = [r[0] for r in c.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_catalog = current_database()").fetchall()]
        return self._digest(tables, lambda t: c.execute(f"SELECT * FROM {t}").fetchall())

    def close(self) -> None:
        self.conn.close()


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
