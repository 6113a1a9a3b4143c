"""Row filters (policy section `rows`) through the read entry, checked without variables: a
filter that needs one refuses (`row_filter`, never an unfiltered read); a filter without
variables rewrites every read of its table, wherever the read hides."""

FIXED = {"rows": {"invoice": "customer_id = 42"}}
NEEDS_VAR = {"rows": {"invoice": "customer_id = :tenant"}}
NESTED = {
    "rows": {
        "invoice": "customer_id = 42",
        "invoice_line": "invoice_id IN (SELECT invoice_id FROM invoice)",
    }
}
CATALOG = {
    "rows": {"invoice": "customer_id = 42", "trusted_views": ["open_view"]},
    "catalog": {
        "tables": [
            {"name": "invoice", "columns": [{"name": "invoice_id"}, {"name": "customer_id"}]},
            {"name": "invoice_summary", "kind": "VIEW", "columns": [{"name": "n"}]},
            {"name": "open_view", "kind": "VIEW", "columns": [{"name": "n"}]},
        ]
    },
}


def cases(ok, no):
    return {
        "row_filters.jsonl": [
            no("SELECT * FROM invoice", "row filter: missing variable", "row_filter", policy=NEEDS_VAR),
            no("WITH x AS (SELECT * FROM invoice) SELECT * FROM x", "row filter: missing variable in a cte",
               "row_filter", policy=NEEDS_VAR),
            ok("SELECT * FROM artist", "row filter: an unfiltered table needs no variable", policy=NEEDS_VAR),
            ok("SELECT * FROM invoice i", "row filter: alias kept", policy=FIXED,
               sql="SELECT * FROM (SELECT * FROM invoice AS sqlgate_filtered WHERE "
                   "sqlgate_filtered.customer_id = 42) i LIMIT 1000"),
            ok("SELECT count(*) FROM invoice", "row filter: bare name becomes the alias", policy=FIXED,
               sql="SELECT count(*) FROM (SELECT * FROM invoice AS sqlgate_filtered WHERE "
                   "sqlgate_filtered.customer_id = 42) AS invoice LIMIT 1000"),
            ok("WITH invoice AS (SELECT * FROM invoice) SELECT * FROM invoice",
               "row filter: a cte named like the table filters the table inside", policy=FIXED),
            ok("SELECT invoice_id FROM invoice UNION SELECT invoice_id FROM invoice_line",
               "row filter: both sides of a union, nested filter", policy=NESTED),
            ok("SELECT a.name FROM artist a WHERE EXISTS (SELECT 1 FROM invoice WHERE invoice.total > 0)",
               "row filter: inside exists", policy=FIXED),
            ok("SELECT c.customer_id, count(i.invoice_id) FROM customer c LEFT JOIN invoice i "
               "ON i.customer_id = c.customer_id GROUP BY c.customer_id",
               "row filter: the nullable side of a grouped outer join keeps its place, filtered first in its ON",
               policy=FIXED,
               sql="SELECT c.customer_id, count(i.invoice_id) FROM customer c LEFT JOIN invoice i "
                   "ON (i.customer_id = 42) AND (i.customer_id = c.customer_id) GROUP BY c.customer_id LIMIT 1000"),
            ok("SELECT c.customer_id, count(i.invoice_id) FROM customer c FULL JOIN invoice i "
               "ON i.customer_id = c.customer_id GROUP BY c.customer_id",
               "row filter: a grouped full join's side is wrapped (its unmatched rows stay)", policy=FIXED,
               sql="SELECT c.customer_id, count(i.invoice_id) FROM customer c FULL JOIN (SELECT * FROM invoice "
                   "AS sqlgate_filtered WHERE sqlgate_filtered.customer_id = 42) i ON i.customer_id = "
                   "c.customer_id GROUP BY c.customer_id LIMIT 1000"),
            no("TABLE invoice", "row filter: TABLE cannot be filtered", "row_filter", policy=FIXED),
            no("SELECT public.invoice.* FROM public.invoice", "row filter: a filtered table answers to its name only",
               "unknown_table", policy=FIXED),
            no("SELECT * FROM invoice_summary", "row filter: a view reads its tables unfiltered", "row_filter",
               policy=CATALOG),
            ok("SELECT * FROM open_view", "row filter: a trusted view", policy=CATALOG),
            no("SELECT * FROM pg_catalog.pg_stats", "row filter: system catalogs show other rows' values",
               "row_filter", policy=dict(FIXED, allow_system_catalogs=True)),
            ok("SELECT * FROM invoice", "row filter: sqlite", dialect="sqlite", policy=FIXED),
            ok("SELECT * FROM invoice", "row filter: mysql", dialect="mysql", policy=FIXED),
            ok("SELECT * FROM invoice", "row filter: mssql", dialect="mssql", policy=FIXED),
            ok("SELECT * FROM invoice", "row filter: duckdb", dialect="duckdb", policy=FIXED),
        ]
    }
