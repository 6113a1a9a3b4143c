"""Soundness round three (issue 38) -> soundness.jsonl: syntax whose names the walker once did
not resolve, each in every dialect that has it, with the benign reads and writes near each edge.

1. Star modifiers mean what the engine means: DuckDB's qualified `EXCLUDE (t.c)` leaves `c` out
   of `t` only; `REPLACE (expr AS c)` reads `expr`; `ILIKE` covers the names it matches;
   `COLUMNS(...)` and Snowflake's `f(* EXCLUDE ...)` are stars.
2. MySQL / MariaDB `MATCH (cols) AGAINST (...)` reads its columns (the MariaDB fixture has
   FULLTEXT indexes on them, so the refused attacks are real searches).
3. A governed write to a row-filtered table changes only rows its filter admits, conflict
   resolutions included (SQLite `UPDATE OR REPLACE` refused; a plain SQLite UPDATE gets
   `OR ABORT`, which overrides a table's own `ON CONFLICT REPLACE`).
4. A bare name is a column first: `SELECT first_name FROM customer first_name` reads the column
   in PostgreSQL and DuckDB, not the whole row (whose email would leak).
5. A masked column may be written as a literal, NULL or a parameter; any read of it stays refused.

tests/engines runs every approved vector on its engine with markers planted in the protected
columns and another tenant's rows: no marker comes back, no row outside the filter changes.
"""

ENGINES = ["postgres", "mysql", "sqlite", "duckdb"]
PII = {"tables": {"deny": ["employee"]}, "columns": {"deny": ["customer.email", "customer.phone"]}}
FIXTURE = dict(PII, catalog={"tables": [
    {"name": "customer", "columns": [{"name": c} for c in (
        "customer_id", "first_name", "last_name", "email", "phone", "country", "support_rep_id")]},
    {"name": "invoice", "columns": [{"name": c} for c in (
        "invoice_id", "customer_id", "total", "billing_country")]},
    {"name": "t", "columns": [{"name": "a"}, {"name": "b"}]},
]})


def masked(dialect, **more):
    """customer.email and customer.phone masked (by category), as in cases_pii.py."""
    email = "redact" if dialect == "sqlite" else "hash"
    return {"annotations": {"tables": {"customer": {"columns": {
        "email": {"pii": "EMAIL_ADDRESS"}, "phone": {"pii": "PHONE_NUMBER"}}}}},
        "pii": {"mask": {"EMAIL_ADDRESS": email, "PHONE_NUMBER": "partial"}}, **more}


# Invoice 2 belongs to customer 3; invoice 1 to customer 2 (tests/engines/engines.py).
TENANT = {"rows": {"invoice": "customer_id = 3"}}


def stars(ok, no):
    rows = []
    for policy, name in [(PII, "denied"), (FIXTURE, "catalog"), (masked("duckdb"), "masked")]:
        refused = "masked_column" if name == "masked" else None
        for sql, what in [
            ("SELECT * EXCLUDE (customer.email, customer.phone) FROM customer, customer AS c2",
             "qualified exclude over a self-join"),
            ("SELECT * EXCLUDE (c2.email, c2.phone) FROM customer, customer AS c2", "exclude of the other copy"),
            ("SELECT * EXCLUDE (email, phone) REPLACE (email AS first_name) FROM customer",
             "replace reads a protected column"),
            ("SELECT * EXCLUDE (email, phone) REPLACE ((SELECT max(phone) FROM customer) AS first_name) "
             "FROM customer", "replace reads one in a sub-query"),
            ("SELECT c.* EXCLUDE (email, phone) REPLACE (c2.email AS first_name) FROM customer c, customer c2",
             "qualified star, replace reads the other item"),
            ("SELECT COLUMNS('.*') FROM customer", "columns regex"),
            ("SELECT * EXCLUDE (phone) REPLACE ('x' AS email) FROM customer", "replace does not leave out"),
        ]:
            rows.append(no(sql, f"star modifiers ({name}): {what}", refused, dialect="duckdb", policy=policy))
        for sql, what in [
            ("SELECT * EXCLUDE (email, phone) FROM customer, customer AS c2", "unqualified exclude over a self-join"),
            ("SELECT * EXCLUDE (customer.email, customer.phone, c2.email, c2.phone) "
             "FROM customer, customer AS c2", "qualified excludes of both copies"),
            ("SELECT * EXCLUDE (email, phone) REPLACE (upper(first_name) AS first_name) FROM customer",
             "replace with an open column"),
            ("SELECT c.* EXCLUDE (email, phone) REPLACE (i.total * 2 AS country) FROM customer c "
             "JOIN invoice i ON i.customer_id = c.customer_id", "qualified star, replace from a join"),
            ("SELECT COLUMNS('.*') FROM invoice", "columns over an open table"),
        ]:
            rows.append(ok(sql, f"star modifiers ({name}): {what}", dialect="duckdb", policy=policy,
                           engine="runs"))
    rows += [
        ok("SELECT * REPLACE (round(total) AS total) FROM invoice", "star modifiers: replace with no policy",
           dialect="duckdb", engine="runs"),
        ok("SELECT * EXCLUDE (email, phone) RENAME (first_name AS given) FROM customer",
           "star modifiers: rename", dialect="snowflake", policy=PII),
        no("SELECT * RENAME (email AS e) FROM customer", "star modifiers: rename does not leave out",
           "star_on_restricted_table", dialect="snowflake", policy=PII),
        no("SELECT * ILIKE '%mail%' FROM customer", "star modifiers: ilike matching a protected name",
           "star_on_restricted_table", dialect="snowflake", policy=PII),
        ok("SELECT * ILIKE '%name%' FROM customer", "star modifiers: ilike matching open names only",
           dialect="snowflake", policy=PII),
        no("SELECT HASH(* EXCLUDE (first_name)) FROM customer", "star modifiers: star argument with exclude",
           "star_on_restricted_table", dialect="snowflake", policy=PII),
        ok("SELECT HASH(* EXCLUDE (email, phone)) FROM customer", "star modifiers: star argument leaving them out",
           dialect="snowflake", policy=PII),
        no("SELECT * EXCEPT (email, phone) REPLACE (email AS first_name) FROM customer",
           "star modifiers: bigquery replace reads", "column_not_allowed", dialect="bigquery", policy=PII),
        ok("SELECT * EXCEPT (email, phone) REPLACE (upper(first_name) AS first_name) FROM customer",
           "star modifiers: bigquery replace with an open column", dialect="bigquery", policy=PII),
        no("SELECT COLUMNS('.*') FROM customer", "star modifiers: clickhouse columns",
           "star_on_restricted_table", dialect="clickhouse", policy=PII),
        no("SELECT * EXCEPT (email, phone) REPLACE (phone AS first_name) FROM customer",
           "star modifiers: clickhouse replace reads", "column_not_allowed", dialect="clickhouse", policy=PII),
    ]
    return rows


def full_text(ok, no):
    rows = []
    for policy, name, code in [(PII, "denied", "column_not_allowed"), (masked("mysql"), "masked", "masked_column")]:
        for sql, what in [
            ("SELECT customer_id FROM customer WHERE MATCH (email) AGAINST ('secret*' IN BOOLEAN MODE)",
             "boolean-mode prefix search"),
            ("SELECT customer_id FROM customer ORDER BY MATCH (phone) AGAINST ('secret') DESC",
             "ranking by relevance"),
            ("SELECT MATCH (first_name, email) AGAINST ('secret') AS score FROM customer",
             "a protected column among open ones"),
            ("SELECT c.customer_id FROM customer c WHERE MATCH (c.email) AGAINST ('+secret*' IN BOOLEAN MODE)",
             "qualified column"),
        ]:
            rows.append(no(sql, f"full-text ({name}): {what}", code, dialect="mysql", policy=policy))
        rows.append(ok("SELECT customer_id FROM customer WHERE MATCH (first_name) AGAINST ('First1')",
                       f"full-text ({name}): an open column", dialect="mysql", policy=policy, engine="runs"))
        rows.append(ok("SELECT customer_id, MATCH (first_name) AGAINST ('First1' IN BOOLEAN MODE) AS score "
                       "FROM customer ORDER BY score DESC, customer_id",
                       f"full-text ({name}): ranked by an open column", dialect="mysql", policy=policy,
                       engine="runs"))
    return rows


def column_first(ok, no):
    rows = []
    for d in ENGINES:
        for policy, name in [(FIXTURE, "catalog"), (masked(d, **{"catalog": FIXTURE["catalog"]}), "masked")]:
            rows.append(ok("SELECT first_name FROM customer first_name GROUP BY first_name HAVING count(*) >= 1",
                           f"column first ({name}): an alias named like a column", dialect=d, policy=policy,
                           engine="runs"))
            rows.append(ok("SELECT country FROM customer AS country ORDER BY country",
                           f"column first ({name}): ordered", dialect=d, policy=policy, engine="runs"))
    for d in ["postgres", "duckdb"]:
        rows.append(no("SELECT c FROM customer c", "column first: no such column, a whole row",
                       "column_not_allowed", dialect=d, policy=FIXTURE))
        rows.append(no("SELECT customer_id AS c, c FROM customer c", "column first: an output alias is no column",
                       "column_not_allowed", dialect=d, policy=FIXTURE))
    return rows


def conflicts(no, allowed, refused):
    writes = {"writes": {"tables": ["invoice", "orders"], "classes": ["mutation_create", "mutation_delete"]}}
    policy = {**TENANT, **writes}
    refused("UPDATE OR REPLACE invoice SET invoice_id = 1 WHERE invoice_id = 2",
            "conflicts: sqlite update or replace on a filtered table", "row_filter", dialect="sqlite", policy=policy)
    allowed("UPDATE invoice SET total = 1 WHERE invoice_id = 2",
            "conflicts: sqlite update gets OR ABORT", dialect="sqlite", policy=policy,
            sql="UPDATE OR ABORT invoice SET total = 1 WHERE (invoice.customer_id = 3) AND (invoice_id = 2)",
            engine="runs")
    allowed("UPDATE OR IGNORE invoice SET invoice_id = 1 WHERE invoice_id = 2",
            "conflicts: sqlite update or ignore skips a collision", dialect="sqlite", policy=policy, engine="runs")
    refused("INSERT OR REPLACE INTO invoice (invoice_id, customer_id, total) VALUES (1, 3, 0)",
            "conflicts: sqlite insert or replace", "row_filter", "mutation_delete", dialect="sqlite", policy=policy)
    for d in ["postgres", "sqlite"]:
        refused("INSERT INTO invoice (invoice_id, customer_id, total) VALUES (1, 3, 0) "
                "ON CONFLICT (invoice_id) DO UPDATE SET total = 0",
                "conflicts: on conflict do update reaches another tenant's row", "row_filter", dialect=d,
                policy=policy)
        allowed("INSERT INTO orders (id, status) VALUES (1, 'new') ON CONFLICT (id) DO UPDATE SET status = 'x'",
                "conflicts: an upsert into an unfiltered table beside a filtered one", dialect=d, policy=policy,
                engine="runs")
    refused("REPLACE INTO invoice (invoice_id, customer_id, total) VALUES (1, 3, 0)",
            "conflicts: mysql replace", "row_filter", "mutation_delete", dialect="mysql", policy=policy)
    refused("INSERT INTO invoice (invoice_id, customer_id, total) VALUES (1, 3, 0) "
            "ON DUPLICATE KEY UPDATE total = 0", "conflicts: mysql on duplicate key update", "row_filter",
            dialect="mysql", policy=policy)
    for d in ["postgres", "mysql"]:
        allowed("UPDATE invoice SET total = 1 WHERE invoice_id = 2", "conflicts: an update inside the tenant",
                dialect=d, policy=policy, engine="runs")
        # The new key collides with another tenant's invoice 1: an error, nothing changes.
        allowed("UPDATE invoice SET invoice_id = 1 WHERE invoice_id = 2",
                "conflicts: a key collision is an error", dialect=d, policy=policy)


def masked_writes(allowed, refused):
    writes = {"writes": {"tables": ["customer"], "classes": ["mutation_create"]}}
    for d in ENGINES:
        policy = masked(d, **writes)
        allowed("UPDATE customer SET phone = NULL WHERE customer_id = 1", "masked write: erase with NULL",
                dialect=d, policy=policy, engine="runs", columns_written=["phone"])
        allowed("UPDATE customer SET email = 'erased@example.invalid', first_name = 'Erased' WHERE customer_id = 2",
                "masked write: set a literal", dialect=d, policy=policy, engine="runs")
        allowed("INSERT INTO customer (customer_id, first_name, email, phone) "
                "VALUES (99, 'New', 'new@example.invalid', NULL)",
                "masked write: insert literals", dialect=d, policy=policy, engine="runs")
        for sql, what in [
            ("UPDATE customer SET email = first_name WHERE customer_id = 1", "a computed value"),
            ("UPDATE customer SET email = (SELECT max(email) FROM customer) WHERE customer_id = 1",
             "a sub-query reading it"),
            ("UPDATE customer SET phone = NULL WHERE email LIKE 'secret-email-1%'", "a condition reading it"),
            ("INSERT INTO customer (customer_id, email) SELECT 99, email FROM customer WHERE customer_id = 1",
             "an insert of read values"),
        ]:
            refused(sql, f"masked write: {what}", "masked_column", dialect=d, policy=policy)
        if d != "mysql":
            refused("UPDATE customer SET phone = NULL WHERE customer_id = 1 RETURNING phone",
                    "masked write: returning it", "masked_column", dialect=d, policy=policy)
        refused("UPDATE customer SET email = NULL WHERE customer_id = 1",
                "masked write: a denied column stays unwritable", "column_not_allowed", dialect=d,
                policy={**PII, **writes})


def cases(ok, no):
    rows = stars(ok, no) + full_text(ok, no) + column_first(ok, no)

    def allowed(text, name, query_class="mutation_create", dialect="postgres", policy=None, **check):
        row = no(text, name, None, query_class, dialect=dialect, policy=policy, **check)
        row["check"]["allowed"] = True
        row["entry"] = "mutation"
        rows.append(row)

    def refused(text, name, code, query_class=None, dialect="postgres", policy=None, **check):
        row = no(text, name, code, query_class, dialect=dialect, policy=policy, **check)
        row["entry"] = "mutation"
        rows.append(row)

    conflicts(no, allowed, refused)
    masked_writes(allowed, refused)
    return {"soundness.jsonl": rows}
