"""One adapter per engine of the differential suite: PostgreSQL, MariaDB, SQLite and DuckDB, each
loading the shared fixture (engines.py) and running SQL the worst way a caller could (see
engines.py's module doc).
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from engines import DDL, TIMEOUT_S, Engine, Inspect, Outcome, fixture_rows


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


# The customer columns (and sets of them) MariaDB indexes for full-text search.
FULLTEXT = ["first_name", "email", "phone", "first_name, email", "first_name, phone"]


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
                # FULLTEXT indexes, so that the MATCH ... AGAINST vectors (soundness.jsonl)
                # really search: a refused one would read the protected values.
                for columns in FULLTEXT:
                    cur.execute(f"ALTER TABLE customer ADD FULLTEXT ({columns})")
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
