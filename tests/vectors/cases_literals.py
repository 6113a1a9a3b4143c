"""String-literal differentials (issue 11, item 2) -> literals.jsonl.

The regenerated SQL prints string literals back as written, so the server must end every literal
where sqlparser did, under every setting the server could have:

- PostgreSQL / Redshift with standard_conforming_strings = off read `\\'` in '...' as a quote;
- MySQL / MariaDB read it as a quote unless NO_BACKSLASH_ESCAPES is set (sqlparser always does);
- MySQL / MariaDB with ANSI_QUOTES read "x" as a name (sqlparser always reads a string).

Each attack below is written so that the text after the literal is SQL to the server under the
non-default setting and part of a string to sqlparser: a stacked DELETE / DROP / COMMIT, a sleep,
a read of the denied table `employee` or the protected `customer.email` / `customer.phone`, or
a result past the row cap. tests/engines runs the ORIGINAL SQL of every refused attack on the real
engines under each setting and counts those that do something.

Rows marked "engine": "runs" must execute without error on the dialect's engine (tests/engines).
"""

PII = {"tables": {"deny": ["employee"]}, "columns": {"deny": ["customer.email", "customer.phone"]}}
CAP = dict(PII, max_rows=5)
ANSI_OFF = dict(PII, mysql_ansi_quotes=False)
ANSI_ON = dict(PII, mysql_ansi_quotes=True)


def cases(ok, no):
    def refused(text, name, dialect, policy=CAP, code="unsupported_syntax", query_class="unknown", **check):
        if code == "unsupported_syntax" and "stage" not in check:
            check["stage"] = "precheck"
        return no(text, "literals: " + name, code, query_class, dialect=dialect, policy=policy, **check)

    def allowed(text, name, dialect, policy=None, runs=True, **check):
        row = ok(text, "literals: " + name, dialect=dialect, policy=policy, **check)
        if runs:
            row["engine"] = "runs"
        return row

    pg_hint = ("write the backslash as chr(92), e.g. 'a' || chr(92) || 'b', or use an E'...' string, "
               "where a backslash always escapes (E'a\\\\b')")
    my_hint = "write the backslash as CHAR(92), e.g. CONCAT('a', CHAR(92), 'b')"

    # --- PostgreSQL: '...' ending in a backslash closes later with standard_conforming_strings off.
    # To sqlparser (and to the server with the setting on) `'a\'` is a string and `' ... --'` is
    # a second one; with it off, `'a\', '` is one string and the rest is SQL.
    pg_tail = [
        (r"SELECT 'a\', ' ; DELETE FROM t; --' AS x", "stacked delete"),
        (r"SELECT 'a\', ' ; DROP TABLE invoice; --' AS x", "stacked drop"),
        (r"SELECT 'a\', ' ; UPDATE customer SET first_name = chr(120); --' AS x", "stacked update"),
        (r"SELECT 'a\', ' ; COMMIT; DELETE FROM invoice; --' AS x", "commit escapes the transaction"),
        (r"SELECT 'a\', ' ; CREATE TABLE pwned (a int); --' AS x", "stacked create"),
        (r"SELECT 'a\', ' , pg_sleep(3) --' AS x", "pg_sleep"),
        (r"SELECT 'a\', ' , (SELECT string_agg(first_name, chr(44)) FROM employee) --' AS x", "denied table"),
        (r"SELECT 'a\', ' , (SELECT max(salary) FROM employee) --' AS x", "denied table salary"),
        (r"SELECT 'a\', ' , (SELECT string_agg(email, chr(44)) FROM customer) --' AS x", "protected email"),
        (r"SELECT 'a\', ' , (SELECT string_agg(phone, chr(44)) FROM customer) --' AS x", "protected phone"),
        (r"SELECT 'a\', ' FROM generate_series(1, 5000) --' AS x", "row cap commented out"),
        (r"SELECT 'a\', ' FROM customer a, customer b --' AS x", "cross join past the cap"),
        (r"SELECT first_name FROM customer WHERE last_name = 'x\' AND first_name = ' UNION ALL SELECT email FROM customer --'",
         "where union"),
        (r"SELECT first_name FROM customer WHERE last_name LIKE '%\' AND first_name LIKE ' UNION ALL SELECT phone FROM customer --'",
         "like pattern union"),
        (r"SELECT first_name FROM customer WHERE last_name IN ('a\', ') UNION ALL SELECT email FROM customer --')",
         "in list union"),
        (r"SELECT upper('a\'), upper(' ), (SELECT string_agg(email, chr(44)) FROM customer) AS leak --')",
         "function argument"),
        (r"SELECT 'a\'::text, ' , (SELECT string_agg(email, chr(44)) FROM customer) --'", "cast"),
        (r"WITH s AS (SELECT 'a\' AS v, ' ) SELECT email FROM customer --' AS w) SELECT v FROM s", "cte body"),
        (r"SELECT first_name FROM customer ORDER BY 'a\', ' ; DELETE FROM t; --'", "order by"),
        (r"SELECT N'a\', N' ; DELETE FROM t; --' AS x", "national string"),
        (r"SELECT 'a\\\', ' ; DELETE FROM t; --' AS x", "three backslashes"),
        (r"SELECT '\', ' , (SELECT string_agg(email, chr(44)) FROM customer) --' AS x", "lone backslash"),
        ("SELECT 'a\\', '\n ; DELETE FROM t; --' AS x", "newline inside the second literal"),
        (r"SELECT 'a\'' || (SELECT string_agg(email, chr(44)) FROM customer) || ' -- '", "backslash before doubled quote"),
        (r"SELECT 'a\''; DELETE FROM t; -- '", "backslash quote then stacked"),
        (r"SELECT count(*) FROM customer WHERE first_name <> 'x\' OR 1 = 1 OR ' = (SELECT 1 FROM pg_sleep(3)) --'",
         "sleep in where"),
    ]
    pg = [refused(sql, "postgres " + name, "postgres", hint=pg_hint) for sql, name in pg_tail]
    # The same payloads in Redshift (no engine here; the setting exists there too).
    rs = [refused(sql, "redshift " + name, "redshift") for sql, name in pg_tail[:8]]
    # sqlparser's Redshift dialect reads backslash escapes: the reverse shape.
    rs += [
        refused(r"SELECT 'a\' ; DELETE FROM t; -- ' AS x", "redshift reverse stacked delete", "redshift"),
        refused(r"SELECT 'a\' , (SELECT listagg(email) FROM customer) -- ' AS x", "redshift reverse email", "redshift"),
    ]
    # Values only: not a different statement, but a different string under the other setting.
    pg += [
        refused(r"SELECT 'C:\temp' AS v", "postgres backslash in the middle (value differs)", "postgres", policy=None),
        refused(r"SELECT first_name FROM customer WHERE last_name LIKE 'a\_b'", "postgres like escape (value differs)",
                "postgres", policy=None),
    ]
    # A hex literal: sqlparser reads \' there as an escape, no server does.
    pg.append(refused(r"SELECT X'4\' , (SELECT string_agg(email, chr(44)) FROM customer) -- ' AS x",
                      "postgres hex string with backslash", "postgres"))
    # E'...' always escapes, in sqlparser and the server: the stacked DELETE is seen and refused.
    pg.append(refused(r"SELECT E'a\', ' ; DELETE FROM t; --' AS x", "postgres e-string keeps the delete visible",
                      "postgres", code="multiple_statements", query_class="mutation_delete"))
    pg.append(refused(r"SELECT e'a\', ' , (SELECT string_agg(email, chr(44)) FROM customer) --' AS x",
                      "postgres lower e-string keeps the column visible", "postgres", code="column_not_allowed",
                      query_class="select"))
    # `$1$` is a parameter to PostgreSQL, a dollar quote to sqlparser.
    pg.append(refused(r"SELECT $1$ , (SELECT string_agg(email, chr(44)) FROM customer) , $1$ AS x",
                      "postgres dollar tag starting with a digit", "postgres"))

    # --- MySQL / MariaDB: sqlparser reads `\'` as a quote, like the server by default; with
    # NO_BACKSLASH_ESCAPES `'a\'` ends there and the rest is SQL.
    my_tail = [
        (r"SELECT 'a\' ; DELETE FROM t; -- ' AS x", "stacked delete"),
        (r"SELECT 'a\' ; DROP TABLE invoice; -- ' AS x", "stacked drop"),
        (r"SELECT 'a\' ; UPDATE customer SET first_name = CHAR(120); -- ' AS x", "stacked update"),
        (r"SELECT 'a\' ; COMMIT; DELETE FROM invoice; -- ' AS x", "commit escapes the transaction"),
        (r"SELECT 'a\' , sleep(3) -- ' AS x", "sleep"),
        (r"SELECT 'a\' , (SELECT group_concat(first_name) FROM employee) -- ' AS x", "denied table"),
        (r"SELECT 'a\' , (SELECT max(salary) FROM employee) -- ' AS x", "denied table salary"),
        (r"SELECT 'a\' , (SELECT group_concat(email) FROM customer) -- ' AS x", "protected email"),
        (r"SELECT 'a\' , (SELECT group_concat(phone) FROM customer) -- ' AS x", "protected phone"),
        (r"SELECT 'a\' FROM customer a, customer b -- ' AS x", "row cap commented out"),
        (r"SELECT first_name FROM customer WHERE last_name = 'x\' UNION SELECT email FROM customer -- '", "where union"),
        (r"SELECT first_name FROM customer WHERE last_name LIKE 'x%\' UNION SELECT phone FROM customer -- '",
         "like pattern union"),
        (r"SELECT first_name FROM customer WHERE last_name IN ('x\') UNION SELECT email FROM customer -- ')",
         "in list union"),
        (r"SELECT upper('a\'), (SELECT group_concat(email) FROM customer) AS leak -- ')", "function argument"),
        (r"SELECT N'a\' , (SELECT group_concat(email) FROM customer) -- ' AS x", "national string"),
        (r"SELECT _utf8mb4'a\' , (SELECT group_concat(email) FROM customer) -- ' AS x", "charset introducer"),
        (r"SELECT 'a\\\' , (SELECT group_concat(email) FROM customer) -- ' AS x", "three backslashes"),
        (r"SELECT '\' , (SELECT group_concat(email) FROM customer) -- ' AS x", "lone backslash"),
        (r"SELECT 'a\' , (SELECT group_concat(email) FROM customer) INTO OUTFILE 'leak.txt' -- ' AS x", "into outfile"),
        (r"SELECT count(*) FROM customer WHERE first_name <> 'x\' OR sleep(3) -- '", "sleep in where"),
    ]
    my = [refused(sql, "mysql " + name, "mysql", hint=my_hint) for sql, name in my_tail]
    # Double-quoted strings: a backslash (NO_BACKSLASH_ESCAPES), or the whole token (ANSI_QUOTES).
    my += [
        refused(r'SELECT "a\" , (SELECT group_concat(email) FROM customer) -- " AS x',
                "mysql double-quoted backslash, quotes unknown", "mysql"),
        refused(r'SELECT "a\" , (SELECT group_concat(email) FROM customer) -- " AS x',
                "mysql double-quoted backslash, ansi_quotes off", "mysql", policy=dict(ANSI_OFF, max_rows=5),
                hint=my_hint),
        refused('SELECT "email" FROM customer', "mysql double-quoted email is a column with ansi_quotes", "mysql",
                hint="use single quotes for strings and backticks for names, or set mysql_ansi_quotes in the policy"),
        refused('SELECT first_name, "phone" FROM customer', "mysql double-quoted phone", "mysql"),
        refused('SELECT first_name FROM customer ORDER BY "email"', "mysql double-quoted order by", "mysql"),
        refused('SELECT "email" FROM customer', "mysql double-quoted email, ansi_quotes on", "mysql", policy=ANSI_ON,
                hint="write names with backticks and strings with single quotes"),
        refused('SELECT count(*) FROM customer WHERE "email" IS NOT NULL', "mysql double-quoted in where", "mysql"),
        refused(r"SELECT X'4\' , (SELECT group_concat(email) FROM customer) -- ' AS x",
                "mysql hex string with backslash", "mysql"),
    ]
    # Comments are not printed back: what one reader takes for a comment never reaches the server.
    my.append(refused("SELECT 1 /* /* */ , (SELECT group_concat(email) FROM customer) */ AS x",
                      "mysql comments do not nest", "mysql", code="parse_error", query_class=None, stage="parse"))

    # --- other dialects whose parser and engine disagree, or whose engine is unknown.
    others = [
        refused(r"SELECT 'a\', ' , (SELECT email FROM customer) --' AS x", "hive backslash escapes", "hive"),
        refused(r'SELECT "a\", " , (SELECT email FROM customer) --" FROM t', "hive double-quoted name is a string",
                "hive"),
        refused('SELECT "email" FROM customer', "databricks double-quoted may be a column", "databricks"),
        refused(r"SELECT 'a\', ' ; DELETE FROM t; --' AS x", "generic backslash", "generic"),
        refused(r"SELECT 'a\', ' ; DELETE FROM t; --' AS x", "ansi backslash", "ansi"),
        refused("SELECT $$ , (SELECT email FROM customer) , $$ AS x", "redshift dollar quotes", "redshift"),
        refused("SELECT $$x$$ AS x", "bigquery dollar quotes", "bigquery"),
        # sqlite and duckdb read '...' like sqlparser does: the statement after is seen and refused.
        refused(r"SELECT 'a\'; DELETE FROM t; --'", "sqlite backslash keeps the delete visible", "sqlite",
                code="multiple_statements", query_class="mutation_delete"),
        refused(r"SELECT 'a\'; DELETE FROM t; --'", "duckdb backslash keeps the delete visible", "duckdb",
                code="multiple_statements", query_class="mutation_delete"),
        # DuckDB has E'...' strings, sqlparser's DuckDB dialect does not: refused as unreadable.
        refused(r"SELECT E'a\', ' ; DELETE FROM t; --' AS x", "duckdb e-string the parser cannot read", "duckdb",
                code="parse_error", query_class=None, stage="parse"),
    ]

    ok_rows = [
        # PostgreSQL: E'...' strings, doubled quotes, dollar quotes, chr(92).
        allowed(r"SELECT first_name FROM customer WHERE last_name = 'O''Brien'", "postgres doubled quote", "postgres",
                policy=PII),
        allowed(r"SELECT E'a\\b' AS v", "postgres e-string backslash", "postgres", sql=r"SELECT E'a\\b' AS v LIMIT 1000"),
        allowed(r"SELECT E'it\'s' AS v", "postgres e-string quote", "postgres", sql=r"SELECT E'it\'s' AS v LIMIT 1000"),
        allowed(r"SELECT first_name FROM customer WHERE last_name LIKE E'%\\_%'", "postgres e-string like escape",
                "postgres", policy=PII),
        allowed(r"SELECT 'a' || chr(92) || 'b' AS v", "postgres chr(92)", "postgres"),
        allowed(r"SELECT $$a\$$ AS v", "postgres dollar quote keeps the backslash", "postgres",
                sql=r"SELECT $$a\$$ AS v LIMIT 1000"),
        allowed(r"SELECT $q$it's$q$ AS v", "postgres tagged dollar quote", "postgres"),
        allowed("SELECT 1 /* /* */ , (SELECT string_agg(email, chr(44)) FROM customer) */ AS x",
                "postgres nested comment is not printed", "postgres", policy=PII, sql="SELECT 1 AS x LIMIT 1000"),
        allowed("SELECT 'it''s' AS v", "redshift doubled quote", "redshift", runs=False),
        # MySQL: doubled quotes, CHAR(92), backticks, declared quoting, comments.
        allowed(r"SELECT first_name FROM customer WHERE last_name = 'O''Brien'", "mysql doubled quote", "mysql",
                policy=PII),
        allowed("SELECT CONCAT('a', CHAR(92), 'b') AS v", "mysql char(92)", "mysql"),
        allowed("SELECT `first_name` FROM `customer`", "mysql backticks", "mysql", policy=PII),
        allowed('SELECT "x" AS v, first_name FROM customer', "mysql double-quoted string, ansi_quotes off", "mysql",
                policy=ANSI_OFF),
        allowed("SELECT 1--1 AS v", "mysql double dash without space is minus minus", "mysql",
                sql="SELECT 1 - -1 AS v LIMIT 1000"),
        allowed("SELECT first_name FROM customer #, email\n", "mysql hash comment is not printed", "mysql", policy=PII,
                sql="SELECT first_name FROM customer LIMIT 1000"),
        allowed("SELECT first_name FROM customer WHERE last_name LIKE 'A!%%' ESCAPE '!'", "mysql like escape", "mysql",
                policy=PII),
        # Dialects whose engines settle the backslash one way: allowed.
        allowed(r"SELECT 'a\' AS v, first_name FROM customer", "sqlite backslash is a character", "sqlite", policy=PII),
        allowed(r"SELECT 'a\' AS v, first_name FROM customer", "duckdb backslash is a character", "duckdb", policy=PII),
        allowed(r"SELECT $$a\$$ AS v", "duckdb dollar quote", "duckdb"),
    ]
    return {"literals.jsonl": pg + rs + my + others + ok_rows}
