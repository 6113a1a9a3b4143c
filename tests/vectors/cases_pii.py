"""PII categories (issue 30): a blocked category refused like columns.deny; a masked column read
only as a plain column of the outermost select list (the approved SQL computes the mask in the
engine), and every other use of it, each an oracle on the value, refused as masked_column.
tests/engines plants marker values in customer.email / customer.phone and runs every approved
vector: no marker may come back."""

ENGINES = ["postgres", "mysql", "sqlite", "duckdb"]


def annotations(extra=None):
    columns = {"email": {"pii": "EMAIL_ADDRESS"}, "phone": {"pii": "PHONE_NUMBER"}}
    return {"tables": {"customer": {"description": "A person who buys tracks.", "columns": columns}},
            **(extra or {})}


def masked(dialect, **more):
    """email masked by hash (redact in SQLite, which has no digest), phone by partial."""
    email = "redact" if dialect == "sqlite" else "hash"
    return {"annotations": annotations(),
            "pii": {"mask": {"EMAIL_ADDRESS": email, "PHONE_NUMBER": "partial"}}, **more}


BLOCKED = {"annotations": annotations(), "pii": {"block": ["EMAIL_ADDRESS"], "mask": {"PHONE_NUMBER": "null"}}}
CATALOG = {"catalog": {"tables": [
    {"name": "customer", "columns": [{"name": c} for c in
                                     ["customer_id", "first_name", "last_name", "email", "phone", "country",
                                      "support_rep_id"]]},
    {"name": "invoice", "columns": [{"name": c} for c in
                                    ["invoice_id", "customer_id", "total", "billing_country"]]},
]}}

# Approved in every engine's dialect: the masked column in the outermost select list only.
APPROVED = [
    ("SELECT email, phone FROM customer", "plain columns"),
    ("SELECT c.email AS e, c.phone FROM customer c WHERE c.customer_id < 5", "qualified and aliased"),
    ("SELECT customer_id, email FROM customer ORDER BY customer_id", "ordered by another column"),
    ("SELECT i.invoice_id, email FROM customer c JOIN invoice i ON i.customer_id = c.customer_id",
     "joined on another column"),
    ("SELECT first_name, phone FROM customer WHERE country = 'Brazil' LIMIT 3", "filtered by another column"),
    ("SELECT email, count(*) AS n FROM customer GROUP BY 1", "grouped by the masked output"),
]

# Refused in every engine's dialect: every other use of a masked column.
REFUSED = [
    ("SELECT first_name FROM customer WHERE email = 'secret-email-1@marker.invalid'", "where equals"),
    ("SELECT first_name FROM customer WHERE email LIKE 'secret%'", "where like"),
    ("SELECT first_name FROM customer WHERE phone > 'a'", "where comparison"),
    ("SELECT first_name FROM customer WHERE email IS NULL", "where is null"),
    ("SELECT c.first_name FROM customer c JOIN customer d ON c.email = d.email", "join on"),
    ("SELECT first_name FROM customer GROUP BY first_name, email", "group by"),
    ("SELECT email FROM customer ORDER BY email", "order by"),
    ("SELECT first_name FROM customer ORDER BY phone DESC", "order by other list"),
    ("SELECT first_name FROM customer GROUP BY first_name HAVING max(email) > 'a'", "having"),
    ("SELECT email, rank() OVER (ORDER BY email) AS r FROM customer", "window order"),
    ("SELECT count(*) OVER (PARTITION BY phone) AS n FROM customer", "window partition"),
    ("SELECT length(email) FROM customer", "length"),
    ("SELECT upper(email) AS email FROM customer", "function under its own name"),
    ("SELECT CAST(email AS CHAR(40)) FROM customer", "cast"),
    ("SELECT CASE WHEN email LIKE 's%' THEN 1 ELSE 0 END FROM customer", "case"),
    ("SELECT email = 'x' FROM customer", "comparison in select list"),
    ("SELECT COALESCE(email, phone) FROM customer", "coalesce"),
    ("SELECT count(DISTINCT email) FROM customer", "count distinct"),
    ("SELECT min(phone) FROM customer", "aggregate"),
    ("SELECT DISTINCT email FROM customer", "distinct"),
    ("SELECT (SELECT email FROM customer LIMIT 1) AS e", "scalar subquery"),
    ("SELECT e FROM (SELECT email AS e FROM customer) s", "derived table"),
    ("SELECT email FROM (SELECT email FROM customer) s", "derived table pass-through"),
    ("WITH s AS (SELECT email FROM customer) SELECT email FROM s", "cte"),
    ("SELECT email FROM customer UNION SELECT 'x'", "union"),
    ("SELECT first_name FROM customer UNION ALL SELECT phone FROM customer", "union all second side"),
    ("SELECT first_name FROM customer WHERE customer_id IN (SELECT customer_id FROM customer WHERE email LIKE 's%')",
     "in subquery"),
    ("SELECT first_name FROM customer c WHERE EXISTS (SELECT 1 FROM invoice i WHERE c.email > 'r')",
     "correlated exists"),
    ("SELECT * FROM customer", "star"),
    ("SELECT c.* FROM customer c", "qualified star"),
    ("SELECT c FROM customer c", "whole row"),
    ("SELECT first_name FROM customer NATURAL JOIN customer AS d", "natural join"),
    ("SELECT first_name FROM customer JOIN invoice USING (email)", "using"),
    ("SELECT x.email FROM customer", "qualifier naming no table"),
    ("SELECT email || '' FROM customer", "concatenation"),
]

PG_REFUSED = [
    ("SELECT row_to_json(c) FROM customer c", "row_to_json"),
    ("SELECT to_json(c.*) FROM customer c", "to_json star"),
    ("SELECT json_build_object('e', email) FROM customer", "json object"),
    ("SELECT email::text FROM customer", "cast operator"),
    ("SELECT (email) FROM customer", "parenthesised"),
    ("SELECT email COLLATE \"C\" FROM customer", "collate"),
    ("SELECT l.x FROM customer c, LATERAL (SELECT c.email AS x) l", "lateral"),
    ("SELECT first_name FROM customer WHERE email ~ '^s'", "regex"),
    ("SELECT first_name FROM customer WHERE email SIMILAR TO 's%'", "similar to"),
    ("SELECT string_agg(email, ',') FROM customer", "string_agg"),
    ("SELECT first_name FROM customer ORDER BY email COLLATE \"C\"", "order by collate"),
    ("SELECT DISTINCT ON (email) first_name FROM customer", "distinct on"),
    ("SELECT email FROM customer INTERSECT SELECT email FROM customer", "intersect"),
    ("EXPLAIN SELECT first_name FROM customer WHERE email = 'x'", "explain"),
]

DUCKDB_REFUSED = [
    ("FROM customer", "from without select"),
    ("SELECT * EXCLUDE (email) FROM customer", "star excluding one of two"),
    ("SELECT COLUMNS('e.*') FROM customer", "columns"),
    ("SELECT first_name FROM customer QUALIFY email > ''", "qualify"),
]


def cases(ok, no):
    rows = []
    for d in ENGINES:
        policy = masked(d)
        for sql, name in APPROVED:
            rows.append(ok(sql, f"pii mask: {name}", dialect=d, policy=policy, engine="runs"))
        for sql, name in REFUSED:
            rows.append(no(sql, f"pii mask: {name}", "masked_column", dialect=d, policy=policy))
        rows += [
            ok("SELECT customer_id, email, phone FROM customer", "pii mask: with a catalog", dialect=d,
               policy=masked(d, **CATALOG), engine="runs"),
            no("SELECT * FROM customer", "pii mask: star with a catalog", "masked_column", dialect=d,
               policy=masked(d, **CATALOG)),
            # The policy's own row filter may read a masked column; the query still gets it masked.
            ok("SELECT customer_id, email FROM customer", "pii mask: row filter reads it", dialect=d,
               policy=masked(d, rows={"customer": "email LIKE 'secret-%'"}), engine="runs"),
            ok("SELECT customer_id, email FROM customer", "pii mask: null", dialect=d,
               policy={"annotations": annotations(), "pii": {"mask": {"EMAIL_ADDRESS": "null"}}},
               engine="runs"),
            ok("SELECT first_name, phone FROM customer", "pii block: masked neighbour", dialect=d,
               policy=BLOCKED, engine="runs"),
            no("SELECT email FROM customer", "pii block: blocked column", "column_not_allowed", dialect=d,
               policy=BLOCKED),
            no("SELECT first_name FROM customer WHERE email LIKE 'a%'", "pii block: in where",
               "column_not_allowed", dialect=d, policy=BLOCKED),
            no("SELECT * FROM customer", "pii block: star", "star_on_restricted_table", dialect=d,
               policy=BLOCKED),
            no("SELECT email FROM customer", "pii block: blocked and masked", "column_not_allowed", dialect=d,
               policy={"annotations": annotations(),
                       "pii": {"block": ["EMAIL_ADDRESS"], "mask": {"EMAIL_ADDRESS": "redact"}}}),
        ]
    rows.append(no("SELECT email FROM customer", "pii block: the hint names what may be asked", "column_not_allowed",
                   policy={**BLOCKED, **CATALOG},
                   hint="remove `email` from the query; of `customer` you may ask for customer_id, first_name, "
                        "last_name, country, support_rep_id (phone only masked, as plain columns of the outermost "
                        "select list)"))
    for sql, name in PG_REFUSED:
        rows.append(no(sql, f"pii mask: {name}", "masked_column", policy=masked("postgres", allow_explain=True)))
    for sql, name in DUCKDB_REFUSED:
        rows.append(no(sql, f"pii mask: {name}", "masked_column", dialect="duckdb", policy=masked("duckdb")))
    rows += [
        ok("SELECT * EXCLUDE (email, phone) FROM customer", "pii mask: star excluding both", dialect="duckdb",
           policy=masked("duckdb"), engine="runs"),
        ok("SELECT email AS e FROM customer WHERE e LIKE 'secret%'", "pii mask: sqlite alias in where",
           dialect="sqlite", policy=masked("sqlite"), engine="runs"),
        ok("SELECT email AS e, e LIKE 'secret%' AS hit FROM customer", "pii mask: duckdb alias reuse",
           dialect="duckdb", policy=masked("duckdb"), engine="runs"),
    ]
    return {"pii.jsonl": rows}
