"""Recursive CTEs in the bounds vectors (written to bounds.jsonl by cases_bounds.py): the proofs
that one ends, and the outer LIMIT that stops one in the engines that stream it."""

from bounds_shared import BIG, OPEN, runs


def recursion_cases(ok, no):
    """A recursive CTE needs a proof that it ends (core/src/validate/recursion): a counter moved by
    a literal toward a literal bound in its WHERE, from a literal start (or bounded on both
    sides); a walk under UNION that makes no new value; or, in SQLite only, a LIMIT. Rows
    multiply by what each step joins that generates, and values grown each step are bounded."""
    unbounded = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    opaque = ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < (SELECT 10)) "
              "SELECT count(*) FROM r")
    rows = []
    # Steps that never reach the bound in their WHERE (a held-out review's shapes), and steps
    # that reach it.
    never = [
        ("SELECT (n + 1) % 5 FROM r WHERE n < 10", "step wraps around"),
        ("SELECT n + 1 - 2 FROM r WHERE n < 10", "step goes back"),
        ("SELECT 5 FROM r WHERE n < 10", "step is a constant"),
        ("SELECT 0 - n + 1 FROM r WHERE n < 10", "step negates"),
        ("SELECT n - 1 FROM r WHERE n < 10", "counter moving away from its bound"),
        ("SELECT n + 1 FROM r WHERE n < 10 OR n > 0", "bound under OR"),
    ]
    for d in ["postgres", "mysql", "sqlite", "duckdb"]:
        # Concatenation: `||` is OR in MySQL, and SQLite before 3.44 has no concat().
        def cat(*parts, d=d):
            return f"concat({', '.join(parts)})" if d == "mysql" else " || ".join(parts)
        path = cat("p.path", "'/'", "c.first_name")
        rows += [
            no(unbounded, f"{d}: recursive cte without a bound", OPEN, "select", dialect=d),
            runs(ok("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT n FROM t",
                    f"{d}: recursive cte bounded by its counter", dialect=d)),
            no("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10000000) "
               "SELECT count(*) FROM t", f"{d}: recursive cte counted over the row bound", BIG, "select", dialect=d),
            runs(ok("WITH RECURSIVE t(n) AS (SELECT 100 UNION ALL SELECT n - 3 FROM t WHERE n > 0) SELECT n FROM t",
                    f"{d}: recursive counter counting down", dialect=d)),
            runs(ok("WITH RECURSIVE t(n) AS (SELECT max(customer_id) FROM customer UNION ALL SELECT n + 1 FROM t "
                    "WHERE n BETWEEN 1 AND 20) SELECT n FROM t",
                    f"{d}: recursive counter from a query, bounded on both sides", dialect=d)),
            no("WITH RECURSIVE t(n) AS (SELECT max(customer_id) FROM customer UNION ALL SELECT n + 1 FROM t "
               "WHERE n < 20) SELECT count(*) FROM t",
               f"{d}: recursive counter from a query, bounded on one side", OPEN, "select", dialect=d),
            runs(ok("WITH RECURSIVE sub(id) AS (SELECT customer_id FROM customer WHERE customer_id = 1 UNION "
                    "SELECT c.customer_id FROM customer c JOIN sub ON c.support_rep_id = sub.id) SELECT id FROM sub",
                    f"{d}: recursive walk of a table under UNION", dialect=d)),
            runs(ok("WITH RECURSIVE p(id, path, depth) AS (SELECT customer_id, first_name, 1 FROM customer "
                    f"WHERE support_rep_id IS NULL UNION ALL SELECT c.customer_id, {path}, "
                    "p.depth + 1 FROM customer c JOIN p ON c.support_rep_id = p.id WHERE p.depth < 10) "
                    "SELECT count(*) FROM p", f"{d}: recursive path building bounded by its depth", dialect=d)),
            no("WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r) SELECT count(*) FROM r",
               f"{d}: recursive UNION making new values", OPEN, "select", dialect=d),
            no("WITH RECURSIVE r(n, s) AS (SELECT 1, first_name FROM customer UNION ALL "
               f"SELECT n + 1, {cat('s', 's')} FROM r WHERE n < 10) SELECT count(*) FROM r",
               f"{d}: recursive value doubled from a column", OPEN, "select", dialect=d),
            no("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT r.n + 1 FROM r CROSS JOIN "
               "(SELECT 1 AS x UNION ALL SELECT 2) v WHERE r.n < 100) SELECT count(*) FROM r",
               f"{d}: recursive step doubling its rows", BIG, "select", dialect=d),
            # Small enough for the engine suite to run: 2^11 - 1 rows against a bound of 1000.
            no("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT r.n + 1 FROM r CROSS JOIN "
               "(SELECT 1 AS x UNION ALL SELECT 2) v WHERE r.n < 12) SELECT count(*) FROM r",
               f"{d}: recursive step doubling its rows past the row bound", BIG, "select", dialect=d,
               policy={"max_generated_rows": 1000}),
            no(f"WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, {cat('s', 's')} FROM r "
               "WHERE n < 40) SELECT max(length(s)) FROM r",
               f"{d}: recursive value doubled past the byte bound", BIG, "select", dialect=d),
            # MariaDB types the column by the anchor ('x': one character), so it is not run there.
            (runs if d != "mysql" else (lambda row: row))(ok(
                f"WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, {cat('s', 's')} FROM r "
                "WHERE n < 10) SELECT max(length(s)) FROM r",
                f"{d}: recursive value doubled within the byte bound", dialect=d)),
            no("WITH RECURSIVE r(n, m) AS (SELECT 1, 1 UNION ALL SELECT n, m + 1 FROM r WHERE n < 10) "
               "SELECT count(*) FROM r", f"{d}: recursive bound on a column the step copies", OPEN, "select",
               dialect=d),
        ]
        # Every shape in PostgreSQL, two elsewhere: the engine suite runs each refused one under
        # a 2 s timeout in every setting, and these really run that long.
        shapes = never if d == "postgres" else never[:2]
        rows += [no(f"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL {step}) SELECT count(*) FROM r",
                    f"{d}: recursive {what}", OPEN, "select", dialect=d) for step, what in shapes]
    for d in ["postgres", "sqlite", "duckdb"]:
        rows += [
            runs(ok("WITH RECURSIVE n(i) AS (VALUES (1) UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT sum(i) FROM n",
                    f"{d}: recursive cte anchored by VALUES", dialect=d)),
            no("WITH RECURSIVE r(n) AS (VALUES (1), (2), (3) UNION ALL SELECT n + 1 FROM r WHERE n < 500) "
               "SELECT count(*) FROM r", f"{d}: recursive chains of a multi-row anchor", BIG, "select", dialect=d,
               policy={"max_generated_rows": 1000}),
        ]
    rows += [
        no("WITH RECURSIVE r AS (SELECT customer_id AS id FROM customer UNION ALL "
           "SELECT c.customer_id FROM customer c JOIN r ON c.support_rep_id = r.id) SELECT count(*) FROM r",
           "postgres: recursive walk of a table without a counter", OPEN, "select"),
        no("WITH RECURSIVE a(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM a WHERE n < 10), "
           "b(m) AS (SELECT 1 UNION ALL SELECT m + 1 FROM b) SELECT count(*) FROM a, b",
           "postgres: second recursive cte unbounded", OPEN, "select"),
        no("WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT l.y FROM r, LATERAL (SELECT r.n + 1 AS y) l) "
           "SELECT count(*) FROM r", "postgres: recursive UNION hiding arithmetic in a LATERAL subquery",
           OPEN, "select"),
        runs(ok("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t LIMIT 100) SELECT n FROM t",
                "sqlite: recursive cte bounded by LIMIT", dialect="sqlite")),
        # PostgreSQL, MariaDB and DuckDB reject a LIMIT in a recursive query: no proof there.
        no("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t LIMIT 100) SELECT n FROM t",
           "mysql: a LIMIT is no bound where MariaDB refuses it", OPEN, "select", dialect="mysql"),
        ok("WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT t.n + 1 FROM t WHERE 100 > t.n) SELECT n FROM t",
           "postgres: recursive bound written the other way round"),
        runs(ok("WITH RECURSIVE d(x) AS (SELECT DATE '2024-01-01' UNION ALL SELECT x + 1 FROM d "
                "WHERE x < DATE '2024-12-31') SELECT x FROM d", "postgres: recursive calendar bounded by a date")),
        runs(ok("WITH RECURSIVE d(x) AS (SELECT CAST('2024-01-01' AS timestamp) UNION ALL "
                "SELECT x + INTERVAL '1 day' FROM d WHERE x < TIMESTAMP '2024-12-31') SELECT count(*) FROM d",
                "postgres: recursive calendar stepped by an interval")),
        # A bound the guard cannot read (a subquery): refused by default, allowed by the policy,
        # and it ends (the engines suite runs every approved vector under a 2 s timeout).
        no(opaque, "postgres: recursion bounded by a subquery", OPEN, "select"),
        runs(ok(opaque, "postgres: recursion the guard cannot bound, allowed by policy",
                policy={"allow_unbounded_recursion": True})),
    ]
    return rows


def outer_limit_cases(ok, no):
    """PostgreSQL, DuckDB and SQLite evaluate a recursive CTE only as far as the query reading it
    fetches (core/src/validate/recursion/streaming.rs): a LIMIT on a plain read of the CTE stops
    it. A sort, a filter, an aggregate, or a step that multiplies its rows reads it whole, and
    MariaDB materializes it first."""
    endless = "WITH RECURSIVE t(n) AS ({anchor} UNION ALL SELECT n + 1 FROM t) "
    rows = []
    for d, anchor in [("postgres", "VALUES (1)"), ("duckdb", "SELECT 1"), ("sqlite", "SELECT 1")]:
        cte = endless.format(anchor=anchor)
        rows += [
            runs(ok(cte + "SELECT * FROM t LIMIT 10", f"{d}: an endless recursive CTE read under a LIMIT",
                    dialect=d)),
            runs(ok(cte + "SELECT n AS k FROM t LIMIT 5 OFFSET 5",
                    f"{d}: an endless recursive CTE read under a LIMIT and an OFFSET", dialect=d)),
            no(cte + "SELECT * FROM t ORDER BY n LIMIT 10", f"{d}: a sorted read of an endless recursive CTE",
               OPEN, "select", dialect=d),
            no(cte + "SELECT * FROM t WHERE n < 0 LIMIT 10",
               f"{d}: a filtered read of an endless recursive CTE (the filter may never match)", OPEN, "select",
               dialect=d),
            no(cte + "SELECT count(*) FROM t LIMIT 10", f"{d}: an aggregate of an endless recursive CTE", OPEN,
               "select", dialect=d),
        ]
    for d in ["postgres", "mysql", "sqlite", "duckdb"]:
        rows += [
            runs(ok("WITH RECURSIVE t(a) AS (SELECT 0 UNION ALL SELECT a + 1 FROM t WHERE a + 1 < 5) "
                    "SELECT * FROM t", f"{d}: a counter compared after a shift (a + 1 < 5)", dialect=d)),
            no("WITH RECURSIVE t(a) AS (SELECT 0 UNION ALL SELECT a + 1 FROM t WHERE a + 1 > -5) "
               "SELECT count(*) FROM t", f"{d}: a shifted counter bounded the way it does not move", OPEN, "select",
               dialect=d),
        ]
    rows += [
        runs(ok("WITH RECURSIVE y(id) AS (VALUES (1)), x(id) AS (SELECT * FROM y UNION ALL SELECT id + 1 FROM x "
                "WHERE id < 5) SELECT * FROM x", "postgres: a counter starting from another CTE's literal row")),
        runs(ok("WITH RECURSIVE x(id) AS (SELECT * FROM y UNION ALL SELECT id + 1 FROM x WHERE id < 5), "
                "y(id) AS (VALUES (1)) SELECT * FROM x",
                "postgres: a counter starting from a later CTE's literal row")),
        runs(ok("SELECT count(*) FROM (WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 500) "
                "SELECT * FROM t) AS t WHERE n < (SELECT count(*) FROM (WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL "
                "SELECT n + 1 FROM t WHERE n < 100) SELECT * FROM t WHERE n < 50000) AS t WHERE n < 100)",
                "postgres: a recursive CTE reads itself, not an outer CTE of the same name")),
        no("WITH t AS (SELECT * FROM generate_series(1, 6)) SELECT count(*) FROM t, (WITH RECURSIVE t(n) AS "
           "(SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 200000) SELECT * FROM t) AS u",
           "postgres: an outer CTE and an inner recursive CTE of the same name both count", BIG, "select"),
        no("WITH RECURSIVE y(id) AS (SELECT customer_id FROM customer), x(id) AS (SELECT * FROM y UNION ALL "
           "SELECT id + 1 FROM x WHERE id < 5) SELECT count(*) FROM x",
           "postgres: a counter starting from another CTE's data", OPEN, "select"),
        no("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 10",
           "mysql: MariaDB materializes a recursive CTE before the LIMIT", OPEN, "select", dialect="mysql"),
        no("WITH RECURSIVE t(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM t) SELECT * FROM t LIMIT 30",
           "postgres: a value doubled each step, read under a LIMIT of 30 steps", BIG, "select"),
        no("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t CROSS JOIN (VALUES (1), (2)) AS v(k)) "
           "SELECT * FROM t LIMIT 10", "postgres: a step that doubles its rows, read under a LIMIT", OPEN,
           "select"),
    ]
    return rows
