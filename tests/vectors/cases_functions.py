"""Function lists (issue 11, items 3, 5, 7 and false refusals): DuckDB's generated allowlist,
table functions in FROM, the denylist of the other dialects, and syntax that sqlparser renders
as function calls (ROW(...), ARRAY(subquery), current_user ...).

`from_items` holds the cases of functions in FROM, which core/src/validate/from.rs checks with
`FunctionPolicy::check_table_function`.
"""

PII = {"tables": {"deny": ["employee"]}, "columns": {"deny": ["customer.email", "customer.phone"]}}
F = "function_not_allowed"


def runs(row):
    """Marks an allowed case whose approved SQL must run on the dialect's real engine."""
    row["engine"] = "runs"
    return row


def attacks(no):
    d = "duckdb"
    return [
        # DuckDB: sleeping, seeds, logging, sequences, settings, variables (expression context)
        no("SELECT sleep_ms(1000)", "duckdb sleep_ms", F, dialect=d),
        no("SELECT SLEEP_MS(1000)", "duckdb sleep_ms upper", F, dialect=d),
        no('SELECT "sleep_ms"(1000)', "duckdb sleep_ms quoted", F, dialect=d),
        no("SELECT main.sleep_ms(10)", "duckdb sleep_ms schema-qualified", F, dialect=d),
        no("SELECT system.main.sleep_ms(10)", "duckdb sleep_ms catalog-qualified", F, dialect=d),
        no("SELECT customer_id FROM customer WHERE sleep_ms(10) IS NULL", "duckdb sleep_ms in where", F, dialect=d),
        no("SELECT * FROM t, LATERAL (SELECT sleep_ms(1))", "duckdb sleep_ms in lateral", F, dialect=d),
        no("SELECT pg_sleep(1)", "duckdb pg_sleep macro", F, dialect=d),
        no("SELECT setseed(0.5)", "duckdb setseed", F, dialect=d),
        no("SELECT write_log('x')", "duckdb write_log", F, dialect=d),
        no("SELECT nextval('seq')", "duckdb nextval", F, dialect=d),
        no("SELECT currval('seq')", "duckdb currval", F, dialect=d),
        no("SELECT current_setting('home_directory')", "duckdb current_setting", F, dialect=d),
        no("SELECT getvariable('secret_var')", "duckdb getvariable", F, dialect=d),
        no("SELECT GETENV('HOME') FROM t", "duckdb getenv upper", F, dialect=d),
        no("SELECT json_serialize_plan('SELECT * FROM employee')", "duckdb json_serialize_plan", F, dialect=d),
        no("SELECT current_query()", "duckdb current_query", F, dialect=d),
        no("SELECT in_search_path('memory', 'main')", "duckdb in_search_path", F, dialect=d),
        no("SELECT get_block_size('memory')", "duckdb get_block_size", F, dialect=d),
        no("SELECT version()", "duckdb version", F, dialect=d),
        no("SELECT index_key({'table': 'employee'}, 'employee_pkey')", "duckdb index_key", F, dialect=d),
        # DuckDB: star expressions that can expand to protected columns
        no("SELECT COLUMNS('e.*') FROM customer", "duckdb columns regex", "star_on_restricted_table", dialect=d, policy=PII),
        no("SELECT COLUMNS(*) FROM customer", "duckdb columns star", "star_on_restricted_table", dialect=d, policy=PII),
        # DuckDB: file, URL and other-database readers in FROM
        no("SELECT * FROM read_csv_auto('/etc/passwd')", "duckdb read_csv_auto", F, dialect=d),
        no("SELECT * FROM READ_JSON('/tmp/x.json')", "duckdb read_json upper", F, dialect=d),
        no("SELECT * FROM read_ndjson_objects('/tmp/x.json')", "duckdb read_ndjson_objects", F, dialect=d),
        no("SELECT * FROM read_blob('/etc/shadow')", "duckdb read_blob", F, dialect=d),
        no('SELECT * FROM "read_text"(\'/etc/passwd\')', "duckdb read_text quoted", F, dialect=d),
        no("SELECT * FROM read_duckdb('other.db')", "duckdb read_duckdb", F, dialect=d),
        no("SELECT * FROM parquet_full_metadata('x.parquet')", "duckdb parquet_full_metadata", F, dialect=d),
        no("SELECT * FROM parquet_page_index('x.parquet')", "duckdb parquet_page_index", F, dialect=d),
        no("SELECT * FROM parquet_metadata('x.parquet')", "duckdb parquet_metadata", F, dialect=d),
        no("SELECT * FROM sniff_csv('/etc/passwd')", "duckdb sniff_csv", F, dialect=d),
        no("SELECT * FROM GLOB('/etc/*')", "duckdb glob upper", F, dialect=d),
        no("SELECT * FROM sqlite_scan('other.db', 't')", "duckdb sqlite_scan", F, dialect=d),
        no("SELECT * FROM postgres_scan('host=evil', 'public', 't')", "duckdb postgres_scan", F, dialect=d),
        no("WITH x AS (SELECT * FROM read_text('/etc/passwd')) SELECT * FROM x", "duckdb read_text in cte", F, dialect=d),
        no("SELECT * FROM which_secret('s3://bucket/x', 's3')", "duckdb which_secret", F, dialect=d),
        # DuckDB: catalogs and settings as table functions
        no("SELECT * FROM duckdb_settings()", "duckdb duckdb_settings", F, dialect=d),
        no("SELECT * FROM duckdb_databases()", "duckdb duckdb_databases", F, dialect=d),
        no("SELECT * FROM duckdb_views()", "duckdb duckdb_views", F, dialect=d),
        no("SELECT * FROM duckdb_columns()", "duckdb duckdb_columns", F, dialect=d),
        no("SELECT * FROM duckdb_secrets()", "duckdb duckdb_secrets", F, dialect=d),
        no("SELECT * FROM DUCKDB_TABLES()", "duckdb duckdb_tables upper", F, dialect=d),
        no("SELECT * FROM pragma_table_info('employee')", "duckdb pragma_table_info", F, dialect=d),
        no("SELECT * FROM pragma_storage_info('customer')", "duckdb pragma_storage_info", F, dialect=d),
        no("SELECT * FROM pragma_database_size()", "duckdb pragma_database_size", F, dialect=d),
        no("SELECT * FROM PRAGMA_VERSION()", "duckdb pragma_version upper", F, dialect=d),
        # DuckDB: profiling, logging, checkpoints, queries given as text, table macros
        no("SELECT * FROM enable_profiling()", "duckdb enable_profiling", F, dialect=d),
        no("SELECT * FROM disable_profiling()", "duckdb disable_profiling", F, dialect=d),
        no("SELECT * FROM checkpoint()", "duckdb checkpoint", F, dialect=d),
        no("SELECT * FROM force_checkpoint()", "duckdb force_checkpoint", F, dialect=d),
        no("SELECT * FROM enable_logging()", "duckdb enable_logging", F, dialect=d),
        no("SELECT * FROM truncate_duckdb_logs()", "duckdb truncate_duckdb_logs", F, dialect=d),
        no("SELECT * FROM query('SELECT * FROM employee')", "duckdb query", F, dialect=d, policy=PII),
        no("SELECT * FROM query_table('employee')", "duckdb query_table", F, dialect=d, policy=PII),
        no("SELECT * FROM summary(customer)", "duckdb summary", F, dialect=d, policy=PII),
        no("SELECT * FROM histogram_values(customer, email)", "duckdb histogram_values", F, dialect=d, policy=PII),
        # SQLite: eponymous virtual tables
        no("SELECT * FROM fsdir('/etc')", "sqlite fsdir", F, dialect="sqlite"),
        no("SELECT name FROM FSDIR('.')", "sqlite fsdir upper", F, dialect="sqlite"),
        no("SELECT * FROM zipfile('/tmp/a.zip')", "sqlite zipfile", F, dialect="sqlite"),
        no("SELECT * FROM dbstat('main')", "sqlite dbstat", F, dialect="sqlite"),
        no("SELECT * FROM sqlite_dbpage('main')", "sqlite sqlite_dbpage", F, dialect="sqlite"),
        no("SELECT * FROM pragma_table_info('employee')", "sqlite pragma_table_info", F, dialect="sqlite"),
        no("SELECT * FROM pragma_function_list()", "sqlite pragma_function_list", F, dialect="sqlite"),
        no("SELECT json_each('[1]')", "sqlite table-valued function in expression", F, dialect="sqlite"),
        # PostgreSQL: row-returning side doors and other roles
        no("SELECT * FROM pg_ls_dir('/')", "postgres pg_ls_dir", F),
        no("SELECT * FROM pg_catalog.pg_ls_dir('.')", "postgres pg_ls_dir qualified", F),
        no("SELECT * FROM pg_show_all_settings()", "postgres pg_show_all_settings", F),
        no("SELECT * FROM pg_stat_get_activity(NULL)", "postgres pg_stat_get_activity", F),
        no("SELECT getpgusername()", "postgres getpgusername", F),
        no("SELECT has_table_privilege('employee', 'select')", "postgres has_table_privilege", F),
        no("SELECT public.row(1)", "postgres qualified row is a user function", F),
        # MySQL / MariaDB: replication waits and positions, performance-schema ids
        no("SELECT MASTER_GTID_WAIT('0-1-100', 100)", "mysql master_gtid_wait", F, dialect="mysql"),
        no("SELECT master_gtid_wait('0-1-1')", "mysql master_gtid_wait lower", F, dialect="mysql"),
        no("SELECT `master_gtid_wait`('0-1-1')", "mysql master_gtid_wait backticks", F, dialect="mysql"),
        no("SELECT mydb.MASTER_GTID_WAIT('0-1-1', 1)", "mysql master_gtid_wait qualified", F, dialect="mysql"),
        no("SELECT BINLOG_GTID_POS('mysql-bin.000001', 4)", "mysql binlog_gtid_pos", F, dialect="mysql"),
        no("SELECT a FROM t WHERE binlog_gtid_pos('b.000001', 4) IS NOT NULL", "mysql binlog_gtid_pos in where", F, dialect="mysql"),
        no("SELECT SOURCE_POS_WAIT('b.000001', 4, 100)", "mysql source_pos_wait", F, dialect="mysql"),
        no("SELECT WAIT_FOR_EXECUTED_GTID_SET('uuid:1-5', 100)", "mysql wait_for_executed_gtid_set", F, dialect="mysql"),
        no("SELECT sys.format_statement('x')", "mysql sys schema function", F, dialect="mysql"),
        no("SELECT PS_CURRENT_THREAD_ID()", "mysql ps_current_thread_id", F, dialect="mysql"),
        # ClickHouse: settings, macros, dictionaries, Join tables, models, servers, row streams
        no("SELECT getSettingOrDefault('max_threads', 1)", "clickhouse getSettingOrDefault", F, dialect="clickhouse"),
        no("SELECT getSetting('readonly')", "clickhouse getSetting", F, dialect="clickhouse"),
        no("SELECT getServerSetting('path')", "clickhouse getServerSetting", F, dialect="clickhouse"),
        no("SELECT getMacro('shard')", "clickhouse getMacro", F, dialect="clickhouse"),
        no("SELECT * FROM hive('thrift://h:9083', 'db', 't', 'a String', 'a')", "clickhouse hive", F, dialect="clickhouse"),
        no("SELECT * FROM prometheusQuery('db', 'up')", "clickhouse prometheusQuery", F, dialect="clickhouse"),
        no("SELECT joinGet('db.join_t', 'v', 1)", "clickhouse joinGet", F, dialect="clickhouse"),
        no("SELECT joinGetOrNull('db.join_t', 'v', 1)", "clickhouse joinGetOrNull", F, dialect="clickhouse"),
        no("SELECT dictGet('dict', 'attr', toUInt64(1))", "clickhouse dictGet", F, dialect="clickhouse"),
        no("SELECT DICTGETSTRING('dict', 'attr', toUInt64(1))", "clickhouse dictGetString upper", F, dialect="clickhouse"),
        no("SELECT dictHas('dict', toUInt64(1))", "clickhouse dictHas", F, dialect="clickhouse"),
        no("SELECT * FROM dictionary('dict')", "clickhouse dictionary", F, dialect="clickhouse"),
        no("SELECT catboostEvaluate('/m.bin', 1)", "clickhouse catboostEvaluate", F, dialect="clickhouse"),
        no("SELECT hasColumnInTable('default', 'customer', 'email')", "clickhouse hasColumnInTable", F, dialect="clickhouse"),
        no("SELECT * FROM loop('default', 'employee')", "clickhouse loop", F, dialect="clickhouse"),
        no("SELECT count() FROM numbers(1000000000000)", "clickhouse numbers", F, dialect="clickhouse"),
        no("SELECT * FROM numbers_mt(1000000000000)", "clickhouse numbers_mt", F, dialect="clickhouse"),
        no("SELECT * FROM zeros(10)", "clickhouse zeros", F, dialect="clickhouse"),
        no("SELECT * FROM zeros_mt(10)", "clickhouse zeros_mt", F, dialect="clickhouse"),
        no("SELECT * FROM generateRandom('a Int8')", "clickhouse generateRandom", F, dialect="clickhouse"),
        no("SELECT * FROM urlCluster('c', 'http://evil/x', 'CSV')", "clickhouse urlCluster", F, dialect="clickhouse"),
        no("SELECT * FROM s3('https://b.s3.amazonaws.com/x.csv', 'CSV')", "clickhouse s3", F, dialect="clickhouse"),
        no("SELECT * FROM s3Cluster('c', 'https://b/x.csv')", "clickhouse s3Cluster", F, dialect="clickhouse"),
        no("SELECT * FROM remote('evil:9000', 'db', 't')", "clickhouse remote", F, dialect="clickhouse"),
        no("SELECT * FROM remoteSecure('evil:9440', 'db', 't')", "clickhouse remoteSecure", F, dialect="clickhouse"),
        no("SELECT * FROM cluster('c', 'db', 't')", "clickhouse cluster", F, dialect="clickhouse"),
        no("SELECT * FROM clusterAllReplicas('c', 'system', 'users')", "clickhouse clusterAllReplicas", F, dialect="clickhouse"),
        no("SELECT * FROM mysql('h:3306', 'db', 't', 'u', 'p')", "clickhouse mysql", F, dialect="clickhouse"),
        no("SELECT * FROM postgresql('h:5432', 'db', 't', 'u', 'p')", "clickhouse postgresql", F, dialect="clickhouse"),
        no("SELECT * FROM jdbc('jdbc:mysql://h/db', 'SELECT 1')", "clickhouse jdbc", F, dialect="clickhouse"),
        no("SELECT * FROM odbc('DSN=x', 'db', 't')", "clickhouse odbc", F, dialect="clickhouse"),
        no("SELECT * FROM executable('x.sh', 'TSV', 'a String')", "clickhouse executable", F, dialect="clickhouse"),
        no("SELECT getClientHTTPHeader('Authorization')", "clickhouse getClientHTTPHeader", F, dialect="clickhouse"),
        no("SELECT hostName()", "clickhouse hostName", F, dialect="clickhouse"),
        # SQL Server: keys, definitions, server properties, permissions, logins, system procs
        no("SELECT CERTPRIVATEKEY(CERT_ID('c'), 'pw')", "mssql certprivatekey", F, dialect="mssql"),
        no("SELECT OBJECT_DEFINITION(OBJECT_ID('dbo.p'))", "mssql object_definition", F, dialect="mssql"),
        no("SELECT SERVERPROPERTY('MachineName')", "mssql serverproperty", F, dialect="mssql"),
        no("SELECT HAS_PERMS_BY_NAME('dbo.employee', 'OBJECT', 'SELECT')", "mssql has_perms_by_name", F, dialect="mssql"),
        no("SELECT master.dbo.xp_cmdshell('whoami')", "mssql xp_cmdshell qualified", F, dialect="mssql"),
        no("SELECT * FROM sys.fn_my_permissions(NULL, 'SERVER')", "mssql fn_my_permissions", F, dialect="mssql"),
        no("SELECT [fn_get_audit_file]('c:\\a\\*', DEFAULT, DEFAULT)", "mssql fn_ bracket-quoted", F, dialect="mssql"),
        no("SELECT SUSER_SNAME()", "mssql suser_sname", F, dialect="mssql"),
        no("SELECT IS_SRVROLEMEMBER('sysadmin')", "mssql is_srvrolemember", F, dialect="mssql"),
        no("SELECT DB_NAME(5)", "mssql db_name enumerates databases", F, dialect="mssql"),
        no("SELECT DECRYPTBYKEYAUTOCERT(CERT_ID('c'), NULL, a) FROM t", "mssql decryptbykeyautocert", F, dialect="mssql"),
        no("SELECT APPLOCK_TEST('public', 'r', 'Exclusive', 'Transaction')", "mssql applock_test", F, dialect="mssql"),
        no("SELECT sp_helptext('dbo.p')", "mssql sp_ as function", F, dialect="mssql"),
        # Snowflake: SYSTEM$, DDL, other queries' results, Cortex, INFORMATION_SCHEMA functions
        no("SELECT SYSTEM$GET_PRIVATELINK_CONFIG()", "snowflake system$ privatelink", F, dialect="snowflake"),
        no('SELECT "SYSTEM$WHITELIST"()', "snowflake system$ quoted", F, dialect="snowflake"),
        no("SELECT GET_DDL('table', 'employee')", "snowflake get_ddl", F, dialect="snowflake"),
        no("SELECT * FROM TABLE(RESULT_SCAN(LAST_QUERY_ID()))", "snowflake result_scan", F, dialect="snowflake"),
        no("SELECT SNOWFLAKE.CORTEX.COMPLETE('m', 'p')", "snowflake cortex complete", F, dialect="snowflake"),
        no("SELECT snowflake.cortex.summarize(first_name) FROM customer", "snowflake cortex lower case", F, dialect="snowflake"),
        no("SELECT cortex.sentiment(first_name) FROM customer", "snowflake cortex package", F, dialect="snowflake"),
        no("SELECT * FROM TABLE(INFORMATION_SCHEMA.QUERY_HISTORY())", "snowflake information_schema query_history", F, dialect="snowflake"),
        no("SELECT * FROM TABLE(mydb.information_schema.login_history())", "snowflake information_schema 3-part", F, dialect="snowflake"),
        no("SELECT * FROM TABLE(LOGIN_HISTORY_BY_USER())", "snowflake login_history unqualified", F, dialect="snowflake"),
        no("SELECT IDENTIFIER('email') FROM customer", "snowflake identifier in expression", "unsupported_syntax", dialect="snowflake"),
        no("SELECT GETVARIABLE('x')", "snowflake getvariable", F, dialect="snowflake"),
        # Databricks / Hive: reflection, file names, file reads, secrets
        no("SELECT reflect('java.lang.Runtime', 'getRuntime')", "databricks reflect", F, dialect="databricks"),
        no("SELECT java_method('java.lang.System', 'getenv', 'HOME')", "databricks java_method", F, dialect="databricks"),
        no("SELECT input_file_name() FROM customer", "databricks input_file_name", F, dialect="databricks"),
        no("SELECT * FROM read_files('/etc/passwd')", "databricks read_files", F, dialect="databricks"),
        no("SELECT secret('scope', 'key')", "databricks secret", F, dialect="databricks"),
        no("SELECT TRY_REFLECT('java.lang.System', 'exit', 1)", "databricks try_reflect", F, dialect="databricks"),
        no("SELECT java_method('java.lang.Runtime', 'exec', 'id')", "hive java_method", F, dialect="hive"),
        # BigQuery, Redshift, generic
        no("SELECT AI.GENERATE('x')", "bigquery ai package", F, dialect="bigquery"),
        no("SELECT has_table_privilege('employee', 'select')", "redshift has_table_privilege", F, dialect="redshift"),
        no("SELECT sleep_ms(1)", "generic duckdb sleep_ms", F, dialect="generic"),
    ]


def allowed(ok):
    d = "duckdb"
    return [
        # PostgreSQL: syntax sqlparser renders as calls, session identity, analytics
        runs(ok("SELECT ROW(customer_id, first_name) FROM customer", "postgres row constructor")),
        runs(ok("SELECT (ROW(1, 2) = ROW(1, 2)) AS same", "postgres row comparison")),
        runs(ok("SELECT c.customer_id, ARRAY(SELECT i.invoice_id FROM invoice i WHERE i.customer_id = c.customer_id) "
                "FROM customer c", "postgres array subquery")),
        runs(ok("SELECT current_user, session_user, current_database(), current_catalog, user", "postgres session identity")),
        runs(ok("SELECT string_agg(first_name, ', ' ORDER BY first_name) FROM customer", "postgres string_agg ordered")),
        runs(ok("SELECT date_trunc('month', now()) AS m, count(*) FROM invoice GROUP BY 1", "postgres date_trunc")),
        runs(ok("SELECT regexp_replace(first_name, '[aeiou]', '', 'g') FROM customer WHERE first_name ~ '^[A-Z]'",
                "postgres regexp functions")),
        runs(ok("SELECT n FROM pg_catalog.generate_series(1, 5) AS g(n)", "postgres qualified generate_series")),
        runs(ok("SELECT c.customer_id, x.v FROM customer c, unnest(ARRAY[1, 2]) AS x(v)", "postgres unnest lateral")),
        runs(ok("SELECT key, value FROM json_each('{\"a\":1}'::json)", "postgres json_each")),
        runs(ok("SELECT first_name, ROW(country, support_rep_id) FROM customer", "postgres row over open columns", policy=PII)),
        # DuckDB: the generated allowlist keeps analytics working
        runs(ok("SELECT list_transform([1, 2, 3], lambda x: x * 2)", "duckdb list_transform lambda", dialect=d)),
        runs(ok("SELECT list_aggregate([1, 2, 3], 'max'), list_filter([1, 2, 3], lambda x: x > 1)",
                "duckdb list_aggregate list_filter", dialect=d)),
        runs(ok("SELECT list_sum([1, 2, 3]), list_distinct([1, 1, 2])", "duckdb list functions", dialect=d)),
        runs(ok("SELECT string_agg(first_name, ',') FROM customer", "duckdb string_agg", dialect=d)),
        runs(ok("SELECT date_trunc('month', current_date)", "duckdb date_trunc", dialect=d)),
        runs(ok("SELECT regexp_extract(first_name, '^(.)', 1) FROM customer", "duckdb regexp_extract", dialect=d)),
        runs(ok("SELECT * FROM range(5)", "duckdb range in from", dialect=d)),
        runs(ok("SELECT * FROM generate_series(1, 3)", "duckdb generate_series in from", dialect=d)),
        runs(ok("SELECT unnest([1, 2, 3])", "duckdb unnest in select", dialect=d)),
        runs(ok("SELECT * FROM unnest([1, 2, 3])", "duckdb unnest in from", dialect=d)),
        runs(ok("SELECT current_user, current_database(), current_schema()", "duckdb session identity", dialect=d)),
        runs(ok("SELECT ROW(1, 'a'), ARRAY(SELECT customer_id FROM customer)", "duckdb row and array subquery", dialect=d)),
        runs(ok("SELECT histogram(country) FROM customer", "duckdb histogram aggregate", dialect=d, policy=PII)),
        runs(ok("SELECT billing_country, sum(total), median(total) FROM invoice GROUP BY 1", "duckdb aggregates", dialect=d)),
        # SQLite
        runs(ok("SELECT group_concat(first_name, ',') FROM customer", "sqlite group_concat", dialect="sqlite")),
        runs(ok("SELECT strftime('%Y', 'now'), printf('%05d', customer_id) FROM customer", "sqlite strftime printf",
                dialect="sqlite")),
        runs(ok("SELECT substr(first_name, 1, 1), count(*) FROM customer GROUP BY 1", "sqlite substr group",
                dialect="sqlite")),
        # Denylist dialects: the caller's own identity and bounded generators stay allowed
        ok("SELECT CURRENT_USER(), USER(), DATABASE()", "mysql session identity", dialect="mysql"),
        ok("SELECT current_user()", "databricks current_user", dialect="databricks"),
        ok("SELECT * FROM TABLE(GENERATOR(ROWCOUNT => 10))", "snowflake generator", dialect="snowflake"),
    ]


def from_items(ok, no):
    """Functions in FROM: checked against the dialect's table-function list."""
    d = "duckdb"
    return [
        no("SELECT * FROM histogram(customer, email)", "duckdb histogram table macro protected column", F,
           dialect=d, policy=PII),
        no("SELECT * FROM histogram(employee, salary)", "duckdb histogram table macro denied table", F,
           dialect=d, policy=PII),
        no("SELECT * FROM HISTOGRAM(customer, country)", "duckdb histogram table macro upper", F, dialect=d),
        no("SELECT * FROM histogram(customer, email)", "generic histogram table macro", F, dialect="generic",
           policy=PII),
        no("SELECT * FROM fsdir('/')", "generic sqlite fsdir", F, dialect="generic"),
        no("SELECT * FROM dbstat('main')", "generic sqlite dbstat", F, dialect="ansi"),
        no("SELECT * FROM viewExplain('EXPLAIN', '', (SELECT 1))", "clickhouse viewExplain", F, dialect="clickhouse"),
        no("SELECT * FROM upper('x')", "postgres scalar in from", F),
        no("SELECT * FROM aclexplode(NULL)", "postgres aclexplode in from", F),
        runs(ok("SELECT value FROM json_each('[1,2,3]')", "sqlite json_each in from", dialect="sqlite")),
        # Not marked "runs": generate_series is a loadable extension that Python's sqlite3 lacks.
        ok("SELECT value FROM generate_series(1, 5)", "sqlite generate_series in from", dialect="sqlite"),
        runs(ok("SELECT * FROM json_each('{\"a\": 1}')", "duckdb json_each in from", dialect=d)),
    ]


def equivalents(no):
    """The agent-facing hint names what to use instead, in the dialect, or says it is not available."""
    F = "function_not_allowed"
    return [
        no("SELECT date_trunc('month', invoice_date) FROM invoice", "hint: sqlite date_trunc -> strftime", F,
           dialect="sqlite", hint="`date_trunc` is not available here: use strftime('%Y-%m-01', d) "
                                  "(or another strftime format) to truncate a date"),
        no("SELECT group_concat(name) FROM artist", "hint: postgres group_concat -> string_agg", F,
           hint="`group_concat` is not available here: use string_agg(x, ',') to join values"),
        no("SELECT current_user()", "hint: sqlite current_user is not available", F, dialect="sqlite",
           hint="`current_user` is not available here: SQLite has no users, so there is no current user to read"),
        no("SELECT pg_read_file('/etc/passwd')", "hint: a denied function is not available", F,
           hint="`pg_read_file` is not available to queries (it can reach files, the network, locks or the "
                "server): rewrite the query without it"),
        no("SELECT LOAD_FILE('/etc/passwd')", "hint: mysql denied function", F, dialect="mysql",
           hint="`load_file` is not available to queries (it can reach files, the network, locks or the "
                "server): rewrite the query without it"),
    ]


def cases(ok, no):
    return {"functions.jsonl": attacks(no) + allowed(ok) + from_items(ok, no) + equivalents(no)}
