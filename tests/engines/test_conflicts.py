"""A governed write to a row-filtered table changes only the rows its filter admits, conflict
resolutions included (issue 38, rule 3), on real SQLite.

SQLite's REPLACE resolution deletes the rows a new value collides with, whichever tenant they
belong to: `UPDATE OR REPLACE`, and a plain UPDATE of a table whose key was declared
`ON CONFLICT REPLACE`. The evidence: the form the guard used to approve (the tenant's predicate
added, the resolution kept) deletes another tenant's row. The fix: the first is refused, the
second gets `OR ABORT`, which takes precedence over the table's resolution.
"""

from __future__ import annotations

import sqlite3

import sqlgate

POLICY = {"dialect": "sqlite", "rows": {"invoice": "customer_id = 3"},
          "writes": {"tables": ["invoice"], "classes": ["mutation_create", "mutation_delete"]}}
# Invoice 1 is tenant 2's, invoice 2 tenant 3's.
ROWS = [(1, 2, 10), (2, 3, 20)]


def database(key: str) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute(f"CREATE TABLE invoice (invoice_id INTEGER {key}, customer_id int, total int)")
    db.executemany("INSERT INTO invoice VALUES (?, ?, ?)", ROWS)
    return db


def rows(db: sqlite3.Connection) -> list[tuple[int, int, int]]:
    return db.execute("SELECT * FROM invoice ORDER BY invoice_id, customer_id").fetchall()


def other_tenant(db: sqlite3.Connection) -> list[tuple[int, int, int]]:
    return db.execute("SELECT * FROM invoice WHERE customer_id <> 3").fetchall()


def test_update_or_replace_is_refused_and_really_crossed_tenants() -> None:
    guard = sqlgate.Guard.from_policy(POLICY)
    verdict = guard.mutation_verdict("UPDATE OR REPLACE invoice SET invoice_id = 1 WHERE invoice_id = 2")
    assert not verdict["allowed"]
    assert verdict["error"]["code"] == "row_filter"
    assert "REPLACE" in verdict["error"]["message"]
    # Evidence: what was approved before the fix deletes tenant 2's invoice.
    db = database("PRIMARY KEY")
    db.execute("UPDATE OR REPLACE invoice SET invoice_id = 1 WHERE (invoice.customer_id = 3) AND (invoice_id = 2)")
    assert other_tenant(db) == [], "the old approved form no longer crosses tenants: the test proves nothing"


def test_a_plain_update_overrides_a_tables_replace_resolution() -> None:
    guard = sqlgate.Guard.from_policy(POLICY)
    verdict = guard.mutation_verdict("UPDATE invoice SET invoice_id = 1 WHERE invoice_id = 2")
    assert verdict["allowed"], verdict
    assert verdict["sql"].startswith("UPDATE OR ABORT invoice")
    # Evidence: the table's own REPLACE resolution deletes tenant 2's invoice under the plain form.
    db = database("PRIMARY KEY ON CONFLICT REPLACE")
    db.execute("UPDATE invoice SET invoice_id = 1 WHERE (invoice.customer_id = 3) AND (invoice_id = 2)")
    assert other_tenant(db) == []
    # The approved SQL: the collision is an error, and nothing changes.
    db = database("PRIMARY KEY ON CONFLICT REPLACE")
    try:
        db.execute(verdict["sql"])
        raise AssertionError("the collision was not an error")
    except sqlite3.IntegrityError:
        pass
    assert rows(db) == ROWS


def test_updates_inside_the_tenant_still_run() -> None:
    guard = sqlgate.Guard.from_policy(POLICY)
    db = database("PRIMARY KEY ON CONFLICT REPLACE")
    for sql in ["UPDATE invoice SET total = 0 WHERE invoice_id = 2",
                "UPDATE OR IGNORE invoice SET invoice_id = 1 WHERE invoice_id = 2",
                "UPDATE invoice SET invoice_id = 7 WHERE invoice_id = 2"]:
        verdict = guard.mutation_verdict(sql)
        assert verdict["allowed"], (sql, verdict)
        db.execute(verdict["sql"])
        assert other_tenant(db) == [(1, 2, 10)], sql
    assert rows(db) == [(1, 2, 10), (7, 3, 0)]
