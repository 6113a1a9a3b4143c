"""Row filters through the Python API: ``Guard(rows=...)``, ``vars=`` on every check."""

from __future__ import annotations

import sqlite3

import pytest

import sqlgate
from sqlgate import Guard, PolicyError, Rejected

ROWS = {
    "invoice": "customer_id = :tenant",
    "invoice_line": "invoice_id IN (SELECT invoice_id FROM invoice WHERE customer_id = :tenant)",
}


def test_every_check_takes_vars_and_filters_the_rows() -> None:
    guard = Guard(dialect="sqlite", rows=ROWS, max_rows=None)
    assert guard.row_filter_variables == ["tenant"]
    approved = guard.check("SELECT count(*) FROM invoice_line", vars={"tenant": 3})
    assert approved.row_filters == ["invoice", "invoice_line"]
    assert "customer_id = 3" in approved.sql
    capped = guard.check_with_row_cap("SELECT * FROM invoice", 5, vars={"tenant": 3})
    assert capped.sql.endswith("LIMIT 5")
    verdict = guard.verdict("SELECT * FROM invoice", vars={"tenant": 3})
    assert verdict["allowed"] is True and verdict["row_filters"] == ["invoice"]
    assert approved.to_dict()["row_filters"] == ["invoice", "invoice_line"]
    assert '"row_filters":["invoice"]' in guard.verdict_json("SELECT * FROM invoice", vars={"tenant": 3})


def test_a_missing_variable_raises_rejected_never_an_unfiltered_query() -> None:
    guard = Guard(dialect="sqlite", rows=ROWS)
    with pytest.raises(Rejected) as refused:
        guard.check("SELECT * FROM invoice")
    assert refused.value.code == "row_filter"
    assert "row_filter" in sqlgate.ERROR_CODES
    verdict = guard.verdict("SELECT * FROM invoice", vars={"other": 1})
    assert verdict["allowed"] is False and verdict["error"]["code"] == "row_filter"


def test_values_are_typed_literals() -> None:
    guard = Guard(rows={"t": "name = :name AND n >= :n AND flag = :flag"})
    sql = guard.check("SELECT * FROM t", vars={"name": "O'Hara", "n": -2, "flag": True}).sql
    assert "name = 'O''Hara'" in sql and "n >= (-2)" in sql and "flag = true" in sql
    with pytest.raises(PolicyError) as bad:
        guard.check("SELECT * FROM t", vars={"name": [1]})
    assert bad.value.field.startswith("vars")


def test_the_rewrite_runs_on_sqlite_and_returns_only_the_tenants_rows() -> None:
    db = sqlite3.connect(":memory:")
    db.executescript(
        "CREATE TABLE invoice (invoice_id INTEGER, customer_id INTEGER);"
        "INSERT INTO invoice VALUES (1, 1), (2, 1), (3, 2);"
        "CREATE TABLE invoice_line (invoice_id INTEGER, amount INTEGER);"
        "INSERT INTO invoice_line VALUES (1, 10), (2, 20), (3, 35);"
    )
    guard = Guard(dialect="sqlite", rows=ROWS, max_rows=None)
    escape = (
        "WITH everything AS (SELECT * FROM invoice) "
        "SELECT sum(amount) FROM invoice_line WHERE invoice_id IN (SELECT invoice_id FROM everything)"
    )
    approved = guard.check(escape, vars={"tenant": 1})
    assert db.execute(approved.sql).fetchall() == [(30,)]
    approved = guard.check(escape, vars={"tenant": 2})
    assert db.execute(approved.sql).fetchall() == [(35,)]
    approved = guard.check("SELECT invoice_id FROM invoice ORDER BY 1", vars={"tenant": 2})
    assert db.execute(approved.sql).fetchall() == [(3,)]


def test_mutations_take_vars_too() -> None:
    guard = Guard(rows=ROWS, writes={"tables": ["invoice"]})
    approved = guard.check_mutation("UPDATE invoice SET total = 0 WHERE invoice_id = 1", vars={"tenant": 4})
    assert approved.sql.endswith("WHERE (invoice.customer_id = 4) AND (invoice_id = 1)")
    assert approved.row_filters == ["invoice"]
    verdict = guard.mutation_verdict("INSERT INTO invoice (invoice_id) VALUES (1)", vars={"tenant": 4})
    assert verdict["error"]["code"] == "row_filter"
    assert '"allowed":true' in guard.mutation_verdict_json(
        "UPDATE invoice SET total = 0 WHERE invoice_id = 1", vars={"tenant": 4}
    )


def test_a_bad_filter_names_its_field() -> None:
    with pytest.raises(PolicyError) as bad:
        Guard(rows={"invoice": "pg_read_file('x') <> ''"})
    assert bad.value.field == "rows.invoice"
