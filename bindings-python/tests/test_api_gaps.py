"""Issue 15 item 8: check_with_row_cap, catalog_from_connection, PolicyError in Python's words."""

from __future__ import annotations

import importlib.util
import os
import sqlite3
from typing import Any

import pytest

import sqlgate
from conftest import CHINOOK
from sqlgate import Guard, PolicyError, Rejected


# check_with_row_cap ----------------------------------------------------------------------------


def test_row_cap_replaces_the_policy_cap() -> None:
    guard = Guard(dialect="sqlite", max_rows=50)
    approved = guard.check_with_row_cap("SELECT name FROM artist", 51)
    assert approved.sql == "SELECT name FROM artist LIMIT 51"
    assert approved.limit == {"action": "injected", "value": 51, "original": None}
    # The policy's own cap is unchanged for check.
    assert guard.check("SELECT name FROM artist").sql == "SELECT name FROM artist LIMIT 50"


def test_row_cap_clamps_a_larger_limit() -> None:
    guard = Guard(dialect="sqlite", max_rows=1000)
    approved = guard.check_with_row_cap("SELECT name FROM artist LIMIT 500", 11)
    assert approved.sql == "SELECT name FROM artist LIMIT 11"
    assert approved.limit["action"] == "clamped"
    assert approved.limit["original"] == 500


def test_row_cap_none_is_no_cap() -> None:
    guard = Guard(dialect="sqlite", max_rows=50)
    approved = guard.check_with_row_cap("SELECT name FROM artist", None)
    assert approved.sql == "SELECT name FROM artist"
    assert approved.limit["value"] is None


def test_row_cap_zero_is_refused_as_core_refuses_it() -> None:
    guard = Guard(dialect="sqlite")
    with pytest.raises(Rejected) as info:
        guard.check_with_row_cap("SELECT name FROM artist", 0)
    assert info.value.code == "bad_request"
    assert "row cap of 0" in info.value.message


def test_row_cap_still_refuses_what_check_refuses() -> None:
    guard = Guard(dialect="sqlite")
    with pytest.raises(Rejected) as info:
        guard.check_with_row_cap("DELETE FROM artist", 10)
    assert info.value.code == "statement_not_allowed"
    with pytest.raises(OverflowError):
        guard.check_with_row_cap("SELECT 1", -1)


def test_row_cap_tells_exactly_n_from_truncated() -> None:
    """The use it exists for: ask for N + 1, return N, and know whether rows were cut."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(5)])
    guard = Guard(dialect="sqlite", catalog=sqlgate.catalog_from_connection(conn))

    def run(n: int) -> tuple[int, bool]:
        rows = conn.execute(guard.check_with_row_cap("SELECT x FROM t", n + 1).sql).fetchall()
        return min(len(rows), n), len(rows) > n

    assert run(5) == (5, False)
    assert run(4) == (4, True)


# PolicyError says None ---------------------------------------------------------------------------


def test_policy_error_says_none_for_core_messages() -> None:
    with pytest.raises(PolicyError) as info:
        Guard(max_rows=0)
    assert info.value.message == "must be at least 1, or None for no cap"
    with pytest.raises(PolicyError) as info:
        Guard(writes={"tables": ["t"], "max_affected_rows": 0})
    assert "None for no bound" in info.value.message
    assert "null" not in info.value.message


def test_policy_error_says_none_for_serde_messages() -> None:
    with pytest.raises(PolicyError) as info:
        Guard(tables={"allow": None})
    assert info.value.field == "tables"
    assert "invalid type: None" in info.value.message, info.value.message
    with pytest.raises(PolicyError) as info:
        Guard.from_policy({"dialect": None})
    assert "None" in info.value.message and "null" not in info.value.message, info.value.message


def test_policy_error_keeps_null_for_json_text() -> None:
    """JSON text says null: a message about it keeps the word the caller wrote."""
    with pytest.raises(PolicyError) as info:
        Guard.from_policy('{"max_rows": 0}')
    assert info.value.message == "must be at least 1, or null for no cap"


def test_policy_error_keeps_a_quoted_name() -> None:
    with pytest.raises(PolicyError) as info:
        Guard.from_policy({"null": 1})
    assert "`null`" in info.value.message


# catalog_from_connection -------------------------------------------------------------------------


def _schema_db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        """
        CREATE TABLE artist (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE album (
            id INTEGER, artist_id INTEGER, title TEXT,
            PRIMARY KEY (id),
            FOREIGN KEY (artist_id) REFERENCES artist (id)
        );
        CREATE TABLE pair (a INTEGER, b INTEGER, PRIMARY KEY (b, a));
        CREATE TABLE pair_ref (x INTEGER, y INTEGER, FOREIGN KEY (x, y) REFERENCES pair);
        CREATE VIEW artist_names AS SELECT name FROM artist;
        CREATE TABLE t_autoinc (id INTEGER PRIMARY KEY AUTOINCREMENT);
        """
    )
    return conn


def _table(catalog: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in catalog["tables"] if t["name"] == name)


def test_catalog_from_sqlite_connection() -> None:
    catalog = sqlgate.catalog_from_connection(_schema_db())
    names = [t["name"] for t in catalog["tables"]]
    assert names == ["album", "artist", "artist_names", "pair", "pair_ref", "t_autoinc"]
    assert "sqlite_sequence" not in names  # internal table of AUTOINCREMENT
    assert _table(catalog, "artist") == {
        "name": "artist",
        "kind": "table",
        "columns": [
            {"name": "id", "type": "INTEGER", "nullable": True},
            {"name": "name", "type": "TEXT", "nullable": False},
        ],
        "primary_key": ["id"],
    }
    assert _table(catalog, "album")["foreign_keys"] == [
        {"columns": ["artist_id"], "referenced_table": "artist", "referenced_columns": ["id"]}
    ]
    assert _table(catalog, "artist_names") == {
        "name": "artist_names",
        "kind": "view",
        "columns": [{"name": "name", "type": "TEXT"}],
    }
    # Key order, not column order; a key naming no columns references the parent's primary key.
    assert _table(catalog, "pair")["primary_key"] == ["b", "a"]
    assert _table(catalog, "pair_ref")["foreign_keys"] == [
        {"columns": ["x", "y"], "referenced_table": "pair", "referenced_columns": ["b", "a"]}
    ]


def test_catalog_is_accepted_by_guard_and_used() -> None:
    guard = Guard(dialect="sqlite", catalog=sqlgate.catalog_from_connection(_schema_db()))
    assert guard.check("SELECT name FROM artist").columns == ["artist.name"]
    with pytest.raises(Rejected) as info:
        guard.check("SELECT * FROM artists")
    assert info.value.code == "unknown_table"
    assert info.value.hint is not None and "`artist`" in info.value.hint
    with pytest.raises(Rejected) as info:
        guard.check("SELECT nam FROM artist")
    assert info.value.code == "unknown_column"


def test_catalog_refuses_other_connections() -> None:
    with pytest.raises(TypeError, match="sqlite3 and psycopg"):
        sqlgate.catalog_from_connection(object())


def test_catalog_from_chinook() -> None:
    conn = sqlite3.connect(f"file:{CHINOOK}?mode=ro", uri=True)
    catalog = sqlgate.catalog_from_connection(conn)
    names = [t["name"] for t in catalog["tables"]]
    assert names == [
        "Album", "Artist", "Customer", "Employee", "Genre", "Invoice", "InvoiceLine",
        "MediaType", "Playlist", "PlaylistTrack", "Track",
    ]  # fmt: skip
    track = _table(catalog, "Track")
    assert [c["name"] for c in track["columns"]][:3] == ["TrackId", "Name", "AlbumId"]
    assert track["primary_key"] == ["TrackId"]
    assert {"columns": ["AlbumId"], "referenced_table": "Album", "referenced_columns": ["AlbumId"]} in track["foreign_keys"]
    assert _table(catalog, "PlaylistTrack")["primary_key"] == ["PlaylistId", "TrackId"]
    guard = Guard(dialect="sqlite", catalog=catalog, max_rows=3)
    approved = guard.check("SELECT ArtistId, Name FROM Artist ORDER BY ArtistId")
    assert approved.columns == ["artist.artistid", "artist.name"]
    with pytest.raises(Rejected) as info:
        guard.check("SELECT Nam FROM Artist")
    assert info.value.code == "unknown_column"
    assert conn.execute(approved.sql).fetchall() == [
        (1, "AC/DC"), (2, "Accept"), (3, "Aerosmith"),
    ]  # fmt: skip


# psycopg: runs when the package is installed and SQLGATE_PG_URL names a server (scripts/pg-cluster.sh).
HAVE_PSYCOPG = importlib.util.find_spec("psycopg") is not None


@pytest.mark.skipif(not HAVE_PSYCOPG, reason="SKIPPED: psycopg is not installed in this venv")
def test_catalog_from_psycopg() -> None:
    import psycopg

    dsn = os.environ.get("SQLGATE_PG_URL")
    if not dsn:
        pytest.skip("SKIPPED: no PostgreSQL server (set SQLGATE_PG_URL, as scripts/pg-cluster.sh writes it)")
    with psycopg.connect(dsn) as conn:
        conn.execute("CREATE TEMP TABLE sg_tmp_ignored (x int)")  # pg_temp: left out
        conn.execute("CREATE SCHEMA IF NOT EXISTS sg_cat_test")
        conn.execute("DROP TABLE IF EXISTS sg_cat_test.child, sg_cat_test.parent")
        conn.execute(
            "CREATE TABLE sg_cat_test.parent (a int, b text NOT NULL, PRIMARY KEY (b, a))"
        )
        conn.execute(
            "CREATE TABLE sg_cat_test.child (id serial PRIMARY KEY, pa int, pb text, "
            "FOREIGN KEY (pb, pa) REFERENCES sg_cat_test.parent (b, a))"
        )
        catalog = sqlgate.catalog_from_connection(conn)
        conn.rollback()
    schemas = {t["schema"] for t in catalog["tables"]}
    assert not {s for s in schemas if s.startswith("pg_")} and "information_schema" not in schemas
    parent = next(t for t in catalog["tables"] if t["schema"] == "sg_cat_test" and t["name"] == "parent")
    assert parent["columns"] == [
        {"name": "a", "type": "integer", "nullable": False},
        {"name": "b", "type": "text", "nullable": False},
    ]
    assert parent["primary_key"] == ["b", "a"]
    child = next(t for t in catalog["tables"] if t["schema"] == "sg_cat_test" and t["name"] == "child")
    assert child["foreign_keys"] == [
        {
            "columns": ["pb", "pa"],
            "referenced_schema": "sg_cat_test",
            "referenced_table": "parent",
            "referenced_columns": ["b", "a"],
        }
    ]
    Guard(catalog=catalog)  # core accepts the shape
