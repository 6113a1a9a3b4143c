"""Syntax the built-in sqlparser dialects do not read, and the row cap's forms (issue 11).

- PostgreSQL constructs that were parse errors although the server reads them: `TABLE t`,
  `BETWEEN [A]SYMMETRIC`, `FOR READ ONLY`, string window-frame offsets (`'1 year'::interval
  PRECEDING`). Each is allowed with the SQL it is regenerated as, checked by the policy like any
  other query (TABLE of a denied table, BETWEEN SYMMETRIC over a protected column are refused).
- `U&"..."` (a Unicode-escaped identifier: the server reads `U&"\\0065mail"` as `email`) refused.
- The class of payloads sqlparser cannot parse, from their leading keywords.
- SQL Server's row cap in T-SQL's own forms.

Rows marked "engine": "runs" execute on the dialect's engine against the shared fixture.
"""

PII = {"tables": {"deny": ["employee"]}, "columns": {"deny": ["customer.email", "customer.phone"]}}


def runs(row):
    row["engine"] = "runs"
    return row


def cases(ok, no):
    rows = []

    # --- TABLE t ----------------------------------------------------------------------------
    rows += [
        runs(ok("TABLE t", "table statement", sql="TABLE t LIMIT 1000", tables=["t"])),
        runs(ok("table invoice order by invoice_id limit 3", "table statement with order and limit",
                sql="TABLE invoice ORDER BY invoice_id LIMIT 3", policy=PII)),
        runs(ok("TABLE public.t", "table statement qualified", sql="TABLE public.t LIMIT 1000")),
        runs(ok("SELECT * FROM (TABLE t) s", "table in a derived table",
                sql="SELECT * FROM (TABLE t) s LIMIT 1000")),
        runs(ok("SELECT a, b FROM t UNION TABLE t", "table in a union",
                sql="SELECT a, b FROM t UNION TABLE t LIMIT 1000")),
        runs(ok("WITH x AS (TABLE t) SELECT a FROM x", "table in a cte",
                sql="WITH x AS (TABLE t) SELECT a FROM x LIMIT 1000")),
        runs(ok("SELECT a FROM t WHERE a IN (SELECT a FROM (TABLE t) s)", "table nested in a where subquery",
                sql="SELECT a FROM t WHERE a IN (SELECT a FROM (TABLE t) s) LIMIT 1000")),
        runs(ok("(TABLE t)", "parenthesised table statement", sql="(TABLE t LIMIT 1000)")),
        runs(ok("TABLE t", "duckdb table statement", dialect="duckdb", sql="TABLE t LIMIT 1000")),
        ok("TABLE t", "mysql table statement", dialect="mysql", sql="TABLE t LIMIT 1000"),
        no("TABLE employee", "table of a denied table", "table_not_allowed", "select", policy=PII),
        no("TABLE public.employee", "table of a denied table qualified", "table_not_allowed", "select",
           policy=PII),
        no("SELECT * FROM (TABLE employee) s", "table of a denied table in a derived table",
           "table_not_allowed", "select", policy=PII),
        no("SELECT a, b FROM t UNION ALL TABLE employee", "table of a denied table in a union",
           "table_not_allowed", "select", policy=PII),
        no("TABLE customer", "table of a table with protected columns", "star_on_restricted_table", "select",
           policy=PII),
        no("WITH c AS (TABLE customer) SELECT first_name FROM c", "table with protected columns in a cte",
           "star_on_restricted_table", "select", policy=PII),
        no("TABLE employee", "duckdb table of a denied table", "table_not_allowed", "select",
           dialect="duckdb", policy=PII),
        no("TABLE pg_catalog.pg_authid", "table of a system catalog", "system_catalog", "select"),
        no("SELECT usename FROM pg_user UNION TABLE pg_shadow", "table of a system catalog in a union",
           "system_catalog", "select"),
        no("TABLE t; DELETE FROM t", "table statement then delete", "multiple_statements", "mutation_delete"),
    ]

    # --- BETWEEN SYMMETRIC / ASYMMETRIC --------------------------------------------------------
    rows += [
        runs(ok("SELECT a FROM t WHERE a BETWEEN SYMMETRIC 4 AND 2", "between symmetric",
                sql="SELECT a FROM t WHERE (a BETWEEN 4 AND 2 OR a BETWEEN 2 AND 4) LIMIT 1000")),
        runs(ok("SELECT a FROM t WHERE a NOT BETWEEN SYMMETRIC 4 AND 2", "not between symmetric",
                sql="SELECT a FROM t WHERE (a NOT BETWEEN 4 AND 2 AND a NOT BETWEEN 2 AND 4) LIMIT 1000")),
        runs(ok("SELECT a FROM t WHERE a BETWEEN ASYMMETRIC 1 AND 3", "between asymmetric",
                sql="SELECT a FROM t WHERE a BETWEEN 1 AND 3 LIMIT 1000")),
        runs(ok("SELECT a FROM t WHERE NOT a BETWEEN SYMMETRIC a + 2 AND 1 AND b <> 'x'",
                "between symmetric under not with an expression bound",
                sql="SELECT a FROM t WHERE NOT (a BETWEEN (a + 2) AND 1 OR a BETWEEN 1 AND (a + 2)) AND b <> 'x' LIMIT 1000")),
        runs(ok("SELECT a BETWEEN SYMMETRIC 3 AND 1 AS inside FROM t", "between symmetric in the select list",
                sql="SELECT (a BETWEEN 3 AND 1 OR a BETWEEN 1 AND 3) AS inside FROM t LIMIT 1000")),
        runs(ok("WITH x AS (SELECT invoice_id FROM invoice WHERE total BETWEEN SYMMETRIC 9 AND 3) SELECT invoice_id FROM x",
                "between symmetric in a cte", policy=PII,
                sql="WITH x AS (SELECT invoice_id FROM invoice WHERE (total BETWEEN 9 AND 3 OR total BETWEEN 3 AND 9)) SELECT invoice_id FROM x LIMIT 1000")),
        runs(ok("SELECT first_name FROM customer WHERE customer_id IN (SELECT customer_id FROM invoice WHERE total NOT BETWEEN SYMMETRIC 5 AND 1)",
                "not between symmetric in a subquery", policy=PII,
                sql="SELECT first_name FROM customer WHERE customer_id IN (SELECT customer_id FROM invoice WHERE (total NOT BETWEEN 5 AND 1 AND total NOT BETWEEN 1 AND 5)) LIMIT 1000")),
        runs(ok("SELECT a FROM t WHERE a BETWEEN ASYMMETRIC 1 AND 3", "duckdb between asymmetric", dialect="duckdb",
                sql="SELECT a FROM t WHERE a BETWEEN 1 AND 3 LIMIT 1000")),
        ok("SELECT a FROM t WHERE a BETWEEN SYMMETRIC 4 AND 2", "ansi between symmetric", dialect="ansi",
           sql="SELECT a FROM t WHERE (a BETWEEN 4 AND 2 OR a BETWEEN 2 AND 4) LIMIT 1000"),
        no("SELECT first_name FROM customer WHERE email BETWEEN SYMMETRIC 'a' AND 'z'",
           "between symmetric over a protected column", "column_not_allowed", "select", policy=PII),
        no("SELECT first_name FROM customer WHERE 'm' NOT BETWEEN SYMMETRIC phone AND 'a'",
           "protected column as a between symmetric bound", "column_not_allowed", "select", policy=PII),
        no("SELECT a FROM t WHERE a BETWEEN SYMMETRIC 1 AND (SELECT max(salary) FROM employee)",
           "denied table in a between symmetric bound", "table_not_allowed", "select", policy=PII),
        no("SELECT a FROM t WHERE a BETWEEN SYMMETRIC pg_sleep(1)::text::int AND 1",
           "function in a between symmetric bound", "function_not_allowed", "select"),
        # DuckDB reads BETWEEN ASYMMETRIC but not SYMMETRIC.
        no("SELECT a FROM t WHERE a BETWEEN SYMMETRIC 4 AND 2", "duckdb between symmetric",
           "parse_error", "select", dialect="duckdb"),
    ]

    # --- FOR READ ONLY -------------------------------------------------------------------------
    rows += [
        runs(ok("SELECT a FROM t FOR READ ONLY", "for read only", sql="SELECT a FROM t LIMIT 1000")),
        runs(ok("SELECT a FROM t ORDER BY a FOR READ ONLY LIMIT 3", "for read only before limit",
                sql="SELECT a FROM t ORDER BY a LIMIT 3")),
        runs(ok("SELECT * FROM (SELECT a FROM t FOR READ ONLY) s", "for read only in a subquery",
                sql="SELECT * FROM (SELECT a FROM t) s LIMIT 1000")),
        no("SELECT a FROM t FOR READ ONLY FOR UPDATE", "for read only does not hide for update",
           "locking_clause", "select"),
        no("SELECT email FROM customer FOR READ ONLY", "for read only over a protected column",
           "column_not_allowed", "select", policy=PII),
        no("SELECT a FROM t FOR NO KEY UPDATE", "for no key update named", "locking_clause", "select"),
        no("SELECT a FROM t FOR KEY SHARE", "for key share named", "locking_clause", "select"),
    ]

    # --- window frame offsets ------------------------------------------------------------------
    frame = "SELECT invoice_id, sum(total) OVER (ORDER BY DATE '2020-01-01' + invoice_id * 100 "
    rows += [
        runs(ok(frame + "RANGE BETWEEN '1 year'::interval PRECEDING AND CURRENT ROW) FROM invoice",
                "frame interval cast offset", policy=PII,
                sql=frame + "RANGE BETWEEN ('1 year'::INTERVAL) PRECEDING AND CURRENT ROW) FROM invoice LIMIT 1000")),
        runs(ok(frame + "RANGE BETWEEN '1 year'::interval PRECEDING AND '2 years'::interval FOLLOWING) FROM invoice",
                "frame interval cast offsets on both bounds",
                sql=frame + "RANGE BETWEEN ('1 year'::INTERVAL) PRECEDING AND ('2 years'::INTERVAL) FOLLOWING) FROM invoice LIMIT 1000")),
        runs(ok(frame + "RANGE BETWEEN CURRENT ROW AND INTERVAL '1 day' FOLLOWING) FROM invoice",
                "frame interval literal offset",
                sql=frame + "RANGE BETWEEN CURRENT ROW AND INTERVAL '1 day' FOLLOWING) FROM invoice LIMIT 1000")),
        runs(ok("SELECT a, sum(a) OVER (ORDER BY a ROWS BETWEEN '1' PRECEDING AND CURRENT ROW) FROM t",
                "frame string offset on rows",
                sql="SELECT a, sum(a) OVER (ORDER BY a ROWS BETWEEN ('1') PRECEDING AND CURRENT ROW) FROM t LIMIT 1000")),
        runs(ok("SELECT a, sum(a) OVER w FROM t WINDOW w AS (ORDER BY a ROWS '2'::int8 PRECEDING)",
                "frame cast offset in a named window",
                sql="SELECT a, sum(a) OVER w FROM t WINDOW w AS (ORDER BY a ROWS ('2'::INT8) PRECEDING) LIMIT 1000")),
        runs(ok("SELECT * FROM (" + frame + "RANGE '30 days'::interval PRECEDING) AS s FROM invoice) q",
                "frame offset in a derived table",
                sql="SELECT * FROM (" + frame + "RANGE ('30 days'::INTERVAL) PRECEDING) AS s FROM invoice) q LIMIT 1000")),
        runs(ok("SELECT a, sum(a) OVER (ORDER BY a ROWS BETWEEN '1' PRECEDING AND CURRENT ROW) FROM t",
                "duckdb frame string offset", dialect="duckdb",
                sql="SELECT a, sum(a) OVER (ORDER BY a ROWS BETWEEN ('1') PRECEDING AND CURRENT ROW) FROM t LIMIT 1000")),
        no("SELECT sum(a) OVER (ORDER BY a ROWS BETWEEN '1'::text || pg_sleep(1)::text PRECEDING AND CURRENT ROW) FROM t",
           "function in a frame offset", "function_not_allowed", "select"),
        no("SELECT sum(a) OVER (ORDER BY a ROWS '1'::int + (SELECT count(email) FROM customer) PRECEDING) FROM t",
           "protected column in a frame offset", "column_not_allowed", "select", policy=PII),
    ]

    # --- U&"..." identifiers -------------------------------------------------------------------
    rows += [
        no('SELECT U&"\\0065mail" FROM customer', "unicode identifier reaches a protected column",
           "unsupported_syntax", "select", policy=PII),
        no('SELECT first_name FROM customer WHERE u&"\\0065mail" LIKE \'%\'', "lower-case unicode identifier in where",
           "unsupported_syntax", "select", policy=PII),
        no('SELECT * FROM U&"\\0065mployee"', "unicode identifier as a table name", "unsupported_syntax",
           "select", policy=PII),
        no('SELECT x FROM (SELECT U&"ph\\006fne" AS x FROM customer) s', "unicode identifier in a subquery",
           "unsupported_syntax", "select", policy=PII),
        no('SELECT U&"d!0061t" UESCAPE \'!\' FROM t', "unicode identifier with uescape", "unsupported_syntax",
           "select"),
        no('SELECT U&"\\0065mail" FROM customer', "redshift unicode identifier", "unsupported_syntax",
           "select", dialect="redshift", policy=PII),
        no('SELECT U&"\\0065mail" FROM customer', "generic unicode identifier", "unsupported_syntax",
           "select", dialect="generic", policy=PII),
        no('SELECT U&"\\0065mail" FROM customer', "ansi unicode identifier", "unsupported_syntax",
           "select", dialect="ansi", policy=PII),
        # Not marked "runs": PostgreSQL refuses U&'...' outright with standard_conforming_strings
        # off (an error, never another reading).
        ok("SELECT U&'\\0061bc' AS s", "unicode string literal still allowed", sql="SELECT U&'abc' AS s LIMIT 1000"),
        runs(ok('SELECT u & "v" FROM (SELECT 6 AS u, 3 AS v) s', "spaced ampersand is an operator",
                sql='SELECT u & "v" FROM (SELECT 6 AS u, 3 AS v) s LIMIT 1000')),
        runs(ok('SELECT U&"v" FROM (SELECT 6 AS u, 3 AS v) s', "duckdb reads U&\"v\" as an operator",
                dialect="duckdb", sql='SELECT U & "v" FROM (SELECT 6 AS u, 3 AS v) s LIMIT 1000')),
    ]

    # --- the class of payloads sqlparser cannot parse ------------------------------------------
    unparsed = [
        ("DELETE TOP (10) FROM t", "postgres", "mutation_delete"),
        ("DELETE FROM t WHERE CURRENT OF c", "postgres", "mutation_delete"),
        ("UPDATE t SET a = 1 WHERE CURRENT OF c", "postgres", "mutation_create"),
        ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM ROWS FROM (pg_sleep(1))", "postgres", "mutation_delete"),
        ("WITH u AS (UPDATE t SET a = 1 RETURNING a) SELECT * FROM ROWS FROM (generate_series(1, 2))", "postgres",
         "mutation_create"),
        ("DO $$ BEGIN DELETE FROM t; END $$", "postgres", "admin"),
        ("DO LANGUAGE plpgsql $$ BEGIN PERFORM pg_sleep(1); END $$", "postgres", "admin"),
        ("PRAGMA table_info(customer)", "postgres", "admin"),
        ("REINDEX (VERBOSE) TABLE t", "postgres", "admin"),
        ("CLUSTER t USING t_idx", "postgres", "admin"),
        ("CHECKPOINT", "postgres", "admin"),
        ("REASSIGN OWNED BY alice TO bob", "postgres", "admin"),
        ("DROP OWNED BY alice CASCADE", "postgres", "admin"),
        ("VACUUM (FULL, FREEZE, VERBOSE, ANALYZE, DISABLE_PAGE_SKIPPING) t", "postgres", "admin"),
        ("SECURITY LABEL FOR selinux ON TABLE t IS 'x'", "postgres", "ddl"),
        ("CREATE PUBLICATION p FOR ALL TABLES", "postgres", "ddl"),
        ("CREATE EVENT TRIGGER e ON ddl_command_start EXECUTE FUNCTION f()", "postgres", "ddl"),
        ("ALTER TABLE t ALTER COLUMN a SET STATISTICS 100", "postgres", "ddl"),
        ("IMPORT FOREIGN SCHEMA s FROM SERVER srv INTO public", "postgres", "ddl"),
        ("CREATE DATABASE x WITH TEMPLATE = template0 STRATEGY = wal_log", "postgres", "ddl"),
        ("SELECT * INTO x FROM ROWS FROM (generate_series(1, 2))", "postgres", "ddl"),
        ("EXPLAIN (ANALYZE, BUFFERS) DELETE TOP (1) FROM t", "postgres", "mutation_delete"),
        ("SELECT * FROM ROWS FROM (pg_sleep(1))", "postgres", "select"),
        ("SELECT 1; DELETE TOP (10) FROM t", "postgres", "mutation_delete"),
        ("(DELETE TOP (1) FROM t)", "postgres", "mutation_delete"),
        ("DELETE QUICK IGNORE FROM t PARTITION (p1) WHERE a = 1", "mysql", "mutation_delete"),
        ("LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t", "mysql", "mutation_create"),
        ("HANDLER t OPEN", "mysql", "admin"),
        ("INSTALL PLUGIN x SONAME 'x.so'", "mysql", "admin"),
        ("SHUTDOWN", "mysql", "admin"),
        ("RENAME USER a TO b", "mysql", "admin"),
        ("DELETE TOP (10) PERCENT FROM t OUTPUT deleted.*", "mssql", "mutation_delete"),
        ("BULK INSERT t FROM 'c:\\x.csv'", "mssql", "mutation_create"),
        ("BACKUP DATABASE x TO DISK = 'c:\\x.bak'", "mssql", "admin"),
        ("DBCC CHECKDB", "mssql", "admin"),
        ("RECONFIGURE WITH OVERRIDE", "mssql", "admin"),
        ("VACUUM INTO '/tmp/x.db'", "sqlite", "admin"),
        ("FORCE CHECKPOINT", "duckdb", "admin"),
        ("EXPORT DATABASE '/tmp/x'", "duckdb", "admin"),
        ("IMPORT DATABASE '/tmp/x'", "duckdb", "admin"),
        ("PUT file:///etc/passwd @~/stage", "snowflake", "admin"),
        ("UNDROP TABLE t", "snowflake", "ddl"),
        ("SYSTEM SHUTDOWN", "clickhouse", "admin"),
        ("KILL QUERY WHERE 1", "clickhouse", "admin"),
        ("ALTER TABLE t DELETE WHERE a = 1", "clickhouse", "ddl"),
    ]
    for sql, dialect, cls in unparsed:
        rows.append(no(sql, f"unparsed class: {sql[:60]}", "parse_error", cls, dialect=dialect))

    # --- the row cap in T-SQL and the standard OFFSET form -------------------------------------
    rows += [
        ok("SELECT a FROM t ORDER BY 1 OFFSET 5 ROWS", "mssql offset rows gets fetch", dialect="mssql",
           sql="SELECT a FROM t ORDER BY 1 OFFSET 5 ROWS FETCH FIRST 1000 ROWS ONLY",
           limit={"action": "injected", "value": 1000, "original": None}),
        ok("SELECT a FROM t ORDER BY a OFFSET 5", "mssql bare offset gets rows and fetch", dialect="mssql",
           sql="SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH FIRST 1000 ROWS ONLY"),
        ok("SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY", "mssql fetch kept", dialect="mssql",
           sql="SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH FIRST 10 ROWS ONLY",
           limit={"action": "kept", "value": 10, "original": 10}),
        ok("SELECT TOP 5000 a FROM t ORDER BY a", "mssql top clamped with order by", dialect="mssql",
           sql="SELECT TOP 1000 a FROM t ORDER BY a"),
        ok("SELECT DISTINCT a FROM t", "mssql distinct gets top", dialect="mssql",
           sql="SELECT DISTINCT TOP 1000 a FROM t"),
        ok("SELECT * FROM (SELECT a FROM t ORDER BY a OFFSET 5 ROWS) s", "mssql inner offset, outer top",
           dialect="mssql", sql="SELECT TOP 1000 * FROM (SELECT a FROM t ORDER BY a OFFSET 5 ROWS) s"),
        no("SELECT a FROM t LIMIT 5", "mssql limit refused", "unsupported_syntax", "select", dialect="mssql"),
        no("SELECT a FROM t ORDER BY a LIMIT 5 OFFSET 5", "mssql limit offset refused", "unsupported_syntax",
           "select", dialect="mssql"),
        no("SELECT TOP 5 a FROM t ORDER BY a OFFSET 5 ROWS", "mssql top with offset refused",
           "unsupported_syntax", "select", dialect="mssql"),
        no("(SELECT a FROM t LIMIT 5)", "mssql parenthesised limit refused", "unsupported_syntax", "select",
           dialect="mssql"),
        runs(ok("SELECT a FROM t ORDER BY a OFFSET 2 ROWS", "postgres offset rows gets fetch",
                sql="SELECT a FROM t ORDER BY a OFFSET 2 ROWS FETCH FIRST 1000 ROWS ONLY")),
        runs(ok("SELECT a FROM t ORDER BY a OFFSET 2 ROWS", "duckdb offset rows gets fetch", dialect="duckdb",
                sql="SELECT a FROM t ORDER BY a OFFSET 2 ROWS FETCH FIRST 1000 ROWS ONLY")),
        ok("SELECT a FROM t ORDER BY a OFFSET 2 ROWS", "snowflake offset rows gets fetch", dialect="snowflake",
           sql="SELECT a FROM t ORDER BY a OFFSET 2 ROWS FETCH FIRST 1000 ROWS ONLY"),
        runs(ok("SELECT a FROM t ORDER BY a OFFSET 2", "postgres bare offset keeps limit",
                sql="SELECT a FROM t ORDER BY a LIMIT 1000 OFFSET 2")),
    ]
    return {"syntax.jsonl": rows}
