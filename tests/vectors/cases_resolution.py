"""Name resolution (issue 11, class 1) and the side doors the validator closes (classes 3-7).

A protected column must not be readable under any reading an engine may give a bare name: the
innermost FROM item that has (or could have) the name wins, select-list aliases are not visible
in every clause, a sibling FROM item is not visible to a non-LATERAL subquery, and USING merges
two columns into one. The attacks below put the protected name `email` (customer.email) in every
clause and at every depth, with a harmless alias, derived column or CTE column of the same name
nearby; the allowed cases show the model still lets ordinary analytics through.

Vectors over the engine fixture (customer, invoice, employee, t) carry "engine": "runs".
"""

PII = {"tables": {"deny": ["employee"]}, "columns": {"deny": ["customer.email", "customer.phone"]}}
# The engine fixture's columns, so that names resolve for sure (the catalog case).
FIXTURE = dict(PII, catalog={"tables": [
    {"name": "customer", "columns": [{"name": c} for c in (
        "customer_id", "first_name", "last_name", "email", "phone", "country", "support_rep_id")]},
    {"name": "invoice", "columns": [{"name": c} for c in (
        "invoice_id", "customer_id", "total", "billing_country")]},
    {"name": "employee", "columns": [{"name": c} for c in (
        "employee_id", "first_name", "last_name", "email", "salary")]},
    {"name": "t", "columns": [{"name": "a"}, {"name": "b"}]},
]})

# Shapes that read customer.email through a bare name next to an alias / derived column / CTE
# column named `email`. {d} is a one-row derived table with an `email` column.
D = "(SELECT 'x' AS email) d"
LEAKS = [
    ("alias equal to the column", "SELECT email AS email FROM customer"),
    ("alias then where", "SELECT first_name AS email FROM customer WHERE email LIKE 's%'"),
    ("alias then group by", "SELECT first_name AS email, count(*) FROM customer GROUP BY email"),
    ("alias then having", "SELECT first_name AS email FROM customer GROUP BY first_name HAVING max(email) > ''"),
    ("alias then order by expression", "SELECT first_name AS email FROM customer ORDER BY email || ''"),
    ("alias then order by name", "SELECT first_name AS email FROM customer ORDER BY email"),
    ("alias then window order", "SELECT first_name AS email, row_number() OVER (ORDER BY email) AS r FROM customer"),
    ("alias then window partition", "SELECT first_name AS email, count(*) OVER (PARTITION BY email) AS n FROM customer"),
    ("alias then case", "SELECT first_name AS email, CASE WHEN email LIKE 's%' THEN 1 ELSE 0 END AS f FROM customer"),
    ("alias then aggregate filter", "SELECT first_name AS email, count(*) FILTER (WHERE email LIKE 's%') AS n FROM customer GROUP BY first_name"),
    ("later select item", "SELECT first_name AS email, upper(email) AS e FROM customer"),
    ("scalar subquery reads outer alias", "SELECT first_name AS email, (SELECT email) AS e FROM customer"),
    ("scalar subquery under derived column", f"SELECT (SELECT max(email) FROM customer) AS e FROM {D}"),
    ("scalar subquery in where under derived", f"SELECT d.email FROM {D} WHERE (SELECT max(email) FROM customer) LIKE 's%'"),
    ("exists under derived column", f"SELECT d.email FROM {D} WHERE EXISTS (SELECT 1 FROM customer WHERE email LIKE 's%')"),
    ("in subquery under derived column", f"SELECT d.email FROM {D} WHERE 's' IN (SELECT substr(email, 1, 1) FROM customer)"),
    ("cte column outside", "WITH d AS (SELECT 'x' AS email) SELECT (SELECT max(email) FROM customer) AS e FROM d"),
    ("cte column two levels out", "WITH d AS (SELECT 'x' AS email) SELECT (SELECT (SELECT max(email) FROM customer) AS x) AS e FROM d"),
    ("cte reading inner table", "WITH d AS (SELECT 'x' AS email), c AS (SELECT email AS e FROM customer) SELECT e FROM c"),
    ("lateral under derived column", f"SELECT x.e FROM {D} CROSS JOIN LATERAL (SELECT email AS e FROM customer) x"),
    ("lateral reading sibling", "SELECT x.e FROM customer c CROSS JOIN LATERAL (SELECT email AS e) x"),
    ("correlated through sibling", f"SELECT (SELECT 1 FROM {D}, (SELECT email AS e) e LIMIT 1) AS v FROM customer"),
    ("derived reading outer table", "SELECT (SELECT e FROM (SELECT email AS e) x) AS v FROM customer"),
    ("using derived column", f"SELECT email FROM customer JOIN {D} USING (email)"),
    ("left join using", f"SELECT email FROM customer LEFT JOIN {D} USING (email)"),
    ("full join using", f"SELECT email FROM {D} FULL JOIN customer USING (email)"),
    ("using then where", f"SELECT first_name FROM customer JOIN {D} USING (email) WHERE email LIKE 's%'"),
    ("using only", f"SELECT count(*) FROM customer JOIN {D} USING (email)"),
    ("natural join derived", f"SELECT email FROM customer NATURAL JOIN {D}"),
    ("join on bare name", f"SELECT d.email FROM {D} JOIN customer ON email LIKE 's%'"),
    ("union arm", "SELECT 'x' AS email UNION ALL SELECT email FROM customer"),
    ("union order by", "SELECT email FROM customer UNION SELECT 'x' ORDER BY 1"),
    ("distinct on", "SELECT DISTINCT ON (email) first_name FROM customer"),
    ("in values list", "SELECT first_name FROM customer WHERE email IN ('a', 'b')"),
    ("five levels", "SELECT (SELECT (SELECT (SELECT (SELECT max(email) FROM customer) AS a) AS b) AS c) AS e FROM (SELECT 'x' AS email) d"),
    ("whole row alias", "SELECT c FROM customer c"),
    ("whole row to json", "SELECT row_to_json(c) FROM customer c"),
    ("whole row table name", "SELECT customer FROM customer"),
    ("composite field", "SELECT (c).email FROM customer c"),
    ("qualified with alias", "SELECT c.email FROM customer c"),
    ("qualified name past an inner item of that name", "SELECT (SELECT c.email FROM invoice c) AS e FROM customer c"),
    ("qualified in where past an inner item", "SELECT c.first_name FROM customer c WHERE EXISTS (SELECT 1 FROM invoice c WHERE c.email LIKE 's%')"),
    ("qualified schema", "SELECT public.customer.email FROM public.customer"),
    ("coalesce", "SELECT coalesce(email, '') AS mail FROM customer"),
    ("string concat in alias", "SELECT first_name || email AS email FROM customer"),
    ("group by alias under cte", "WITH c AS (SELECT first_name AS email, email AS x FROM customer) SELECT email FROM c"),
]


def cases(ok, no):
    attacks = []
    # Every shape, without and with a catalog, in postgres.
    for label, sql in LEAKS:
        attacks.append(no(sql, f"resolution: {label}", "column_not_allowed", "select", policy=PII))
        # With the catalog, `public.customer` names no table the catalog lists under a schema.
        code = "unknown_column" if "public." in sql else "column_not_allowed"
        attacks.append(no(sql, f"resolution: {label} (catalog)", code, "select", policy=FIXTURE))
    # The same rule in the other engines (shapes their parsers read).
    portable = [
        ("alias equal to the column", "SELECT email AS email FROM customer"),
        ("alias then where", "SELECT first_name AS email FROM customer WHERE email LIKE 's%'"),
        ("alias then group by", "SELECT first_name AS email, count(*) FROM customer GROUP BY email"),
        ("alias then having", "SELECT first_name AS email FROM customer GROUP BY first_name HAVING max(email) > ''"),
        ("alias then order by", "SELECT first_name AS email FROM customer ORDER BY email"),
        ("scalar subquery under derived column", f"SELECT (SELECT max(email) FROM customer) AS e FROM {D}"),
        ("exists under derived column", f"SELECT d.email FROM {D} WHERE EXISTS (SELECT 1 FROM customer WHERE email LIKE 's%')"),
        ("cte column outside", "WITH d AS (SELECT 'x' AS email) SELECT (SELECT max(email) FROM customer) AS e FROM d"),
        ("using derived column", f"SELECT email FROM customer JOIN {D} USING (email)"),
        ("window order", "SELECT first_name AS email, row_number() OVER (ORDER BY email) AS r FROM customer"),
        ("qualified name past an inner item", "SELECT (SELECT c.email FROM invoice c) AS e FROM customer c"),
    ]
    for dialect in ("mysql", "sqlite", "duckdb", "mssql", "snowflake", "bigquery", "databricks", "clickhouse"):
        for label, sql in portable:
            attacks.append(no(sql, f"resolution: {label} ({dialect})", "column_not_allowed", "select",
                              dialect=dialect, policy=PII))
    attacks += [
        no("SELECT first_name AS EMAIL FROM customer WHERE Email LIKE 's%'", "resolution: case-folded alias (mysql)",
           "column_not_allowed", "select", dialect="mysql", policy=PII),
        no("SELECT `Email` AS e FROM customer", "resolution: backticks any case (mysql)",
           "column_not_allowed", "select", dialect="mysql", policy=PII),
        no("SELECT first_name AS email FROM customer QUALIFY row_number() OVER (ORDER BY email) = 1",
           "resolution: qualify (duckdb)", "column_not_allowed", "select", dialect="duckdb", policy=PII),
        no("SELECT first_name AS email FROM customer QUALIFY row_number() OVER (ORDER BY email) = 1",
           "resolution: qualify (snowflake)", "column_not_allowed", "select", dialect="snowflake", policy=PII),
        no("FROM customer", "resolution: from-first without select reads every column (duckdb)",
           "star_on_restricted_table", "select", dialect="duckdb", policy=PII),
        no("SELECT * FROM (FROM customer) s", "resolution: from-first in a derived table (duckdb)",
           "star_on_restricted_table", "select", dialect="duckdb", policy=PII),
        no("FROM customer SELECT email", "resolution: from-first with select (duckdb)",
           "column_not_allowed", "select", dialect="duckdb", policy=PII),
        no("SELECT * FROM customer c, (SELECT email AS e) x", "resolution: implicit lateral (duckdb)",
           "column_not_allowed", "select", dialect="duckdb", policy=PII),
        no("SELECT customer FROM customer", "resolution: whole row struct (duckdb)", "column_not_allowed", "select",
           dialect="duckdb", policy=PII),
        no("SELECT COLUMNS('e.*') FROM customer", "resolution: columns regex (duckdb)", "star_on_restricted_table",
           "select", dialect="duckdb", policy=PII),
        no("SELECT COLUMNS(*) FROM customer", "resolution: columns star (duckdb)", "star_on_restricted_table",
           "select", dialect="duckdb", policy=PII),
        no("SELECT COLUMNS(c -> c LIKE '%mail') FROM customer", "resolution: columns lambda (duckdb)",
           "star_on_restricted_table", "select", dialect="duckdb", policy=PII),
        no("SELECT first_name FROM customer WHERE COLUMNS('e.*') LIKE 's%'", "resolution: columns in where (duckdb)",
           "star_on_restricted_table", "select", dialect="duckdb", policy=PII),
        no("SELECT * EXCLUDE (phone) FROM customer", "resolution: exclude leaves one protected (duckdb)",
           "star_on_restricted_table", "select", dialect="duckdb", policy=PII),
        no("SELECT * ILIKE '%mail%' FROM customer", "resolution: ilike star (snowflake)",
           "star_on_restricted_table", "select", dialect="snowflake", policy=PII),
        no("SELECT * RENAME (email AS e) FROM customer", "resolution: rename star (snowflake)",
           "star_on_restricted_table", "select", dialect="snowflake", policy=PII),
        no("SELECT * REPLACE (first_name AS last_name) FROM customer", "resolution: replace star (duckdb)",
           "star_on_restricted_table", "select", dialect="duckdb", policy=PII),
        no("SELECT * EXCEPT (phone) FROM customer", "resolution: except leaves one protected (bigquery)",
           "star_on_restricted_table", "select", dialect="bigquery", policy=PII),
        no("SELECT c.* EXCLUDE (phone) FROM customer c", "resolution: qualified exclude (duckdb)",
           "star_on_restricted_table", "select", dialect="duckdb", policy=PII),
    ]

    # Side doors: server state, sequences, catalog casts, names chosen at run time, files.
    attacks += [
        no("SELECT @@datadir", "variables: datadir (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT @@secure_file_priv", "variables: secure_file_priv (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT @@plugin_dir", "variables: plugin_dir (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT @@log_error", "variables: log_error (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT @@GLOBAL.datadir", "variables: global qualified (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT @@session.sql_mode", "variables: session qualified (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT a FROM t WHERE b = @@hostname", "variables: in where (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT (SELECT @@version_compile_os) AS v", "variables: in subquery (mysql)", "system_catalog", "select", dialect="mysql"),
        no("SELECT @@SERVERNAME", "variables: servername (mssql)", "system_catalog", "select", dialect="mssql"),
        no("SELECT @@VERSION", "variables: version (mssql)", "system_catalog", "select", dialect="mssql"),
        no("SELECT @a := 5", "variables: user assignment (mysql)", "unsupported_syntax", "select", dialect="mysql"),
        no("SELECT a, @n := @n + 1 AS r FROM t", "variables: counter assignment (mysql)", "unsupported_syntax", "select", dialect="mysql"),
        no("SELECT a FROM t WHERE (@x := b) IS NOT NULL", "variables: assignment in where (mysql)", "unsupported_syntax", "select", dialect="mysql"),
        no("SELECT seq.nextval", "sequences: nextval (snowflake)", "function_not_allowed", "select", dialect="snowflake"),
        no("SELECT a, s.nextval FROM t", "sequences: nextval beside a table (snowflake)", "function_not_allowed", "select", dialect="snowflake"),
        no("SELECT db.sch.seq.NEXTVAL", "sequences: qualified (snowflake)", "function_not_allowed", "select", dialect="snowflake"),
        no("SELECT s.currval FROM t", "sequences: currval (snowflake)", "function_not_allowed", "select", dialect="snowflake"),
    ]
    for cast in ("regclass", "regrole", "regnamespace", "regproc", "regprocedure", "regoper", "regoperator",
                 "regtype", "regconfig", "regdictionary", "regcollation"):
        attacks.append(no(f"SELECT oid::{cast} FROM t", f"catalog casts: ::{cast}", "system_catalog", "select"))
    attacks += [
        no("SELECT 'pg_authid'::regclass::oid", "catalog casts: name to oid", "system_catalog", "select"),
        no("SELECT CAST(a AS regrole) FROM t", "catalog casts: CAST", "system_catalog", "select"),
        no("SELECT regclass 'pg_shadow'", "catalog casts: typed literal", "system_catalog", "select"),
        no("SELECT a::pg_catalog.regnamespace FROM t", "catalog casts: qualified type", "system_catalog", "select"),
        no("SELECT ARRAY[1, 2]::regtype[]", "catalog casts: array of reg type", "system_catalog", "select"),
        no("SELECT a FROM t WHERE b::regclass IS NOT NULL", "catalog casts: in where", "system_catalog", "select"),
        no("SELECT a FROM t ORDER BY a::REGROLE", "catalog casts: upper case", "system_catalog", "select"),
        no("SELECT 'x'::regclass", "catalog casts: redshift", "system_catalog", "select", dialect="redshift"),
        no("SELECT 'customer'::regclass", "catalog casts: duckdb", "system_catalog", "select", dialect="duckdb"),
    ]
    attacks += [
        no("SELECT * FROM IDENTIFIER('customer')", "runtime names: identifier table (snowflake)",
           "unsupported_syntax", "select", dialect="snowflake"),
        no("SELECT IDENTIFIER('email') FROM customer", "runtime names: identifier column (snowflake)",
           "unsupported_syntax", "select", dialect="snowflake", policy=PII),
        no("SELECT identifier('email') AS e FROM customer", "runtime names: identifier column (databricks)",
           "unsupported_syntax", "select", dialect="databricks", policy=PII),
        no("SELECT * FROM TABLE('employee')", "runtime names: table string (snowflake)",
           "unsupported_syntax", "select", dialect="snowflake", policy=PII),
        no("SELECT * FROM TABLE($name)", "runtime names: table variable (snowflake)",
           "unsupported_syntax", "select", dialect="snowflake"),
        no("SELECT $1 FROM @mystage/data/x.csv", "files: stage path (snowflake)", "table_not_allowed", "select",
           dialect="snowflake"),
        no("SELECT $1 FROM @~/staged", "files: user stage (snowflake)", "table_not_allowed", "select",
           dialect="snowflake"),
        no("SELECT * FROM `ds.employe*`", "files: wildcard table matches denied (bigquery)", "table_not_allowed",
           "select", dialect="bigquery", policy=PII),
        no("SELECT * FROM `proj.ds.cust*` WHERE _TABLE_SUFFIX = 'omer'", "files: wildcard suffix (bigquery)",
           "table_not_allowed", "select", dialect="bigquery", policy=PII),
        no("SELECT * FROM ds.__TABLES__", "catalogs: __TABLES__ (bigquery)", "system_catalog", "select",
           dialect="bigquery"),
        no("SELECT * FROM `proj.ds.__TABLES_SUMMARY__`", "catalogs: __TABLES_SUMMARY__ (bigquery)", "system_catalog",
           "select", dialect="bigquery"),
        no("SELECT * FROM text.`/etc/passwd`", "files: text path (databricks)", "table_not_allowed", "select",
           dialect="databricks"),
        no("SELECT * FROM csv.`s3://bucket/x.csv`", "files: csv url (databricks)", "table_not_allowed", "select",
           dialect="databricks"),
        no("SELECT * FROM json.`data`", "files: json relative (databricks)", "table_not_allowed", "select",
           dialect="databricks"),
        no("SELECT * FROM binaryFile.`/etc`", "files: binaryFile (databricks)", "table_not_allowed", "select",
           dialect="databricks"),
        no("SELECT * FROM parquet.`/tmp/x.parquet`", "files: parquet (hive)", "table_not_allowed", "select",
           dialect="hive"),
        no("SELECT * FROM delta.`/mnt/t`", "files: delta (databricks)", "table_not_allowed", "select",
           dialect="databricks"),
        no("SELECT * FROM \"/etc/passwd\"", "files: double-quoted path (duckdb)", "table_not_allowed", "select",
           dialect="duckdb"),
        no("SELECT * FROM \"data.csv\"", "files: double-quoted relative file (duckdb)", "table_not_allowed",
           "select", dialect="duckdb"),
        no("SELECT * FROM \"~/.ssh/id_rsa\"", "files: home path (duckdb)", "table_not_allowed", "select",
           dialect="duckdb"),
        no("SELECT * FROM \"s3://bucket/x.parquet\"", "files: url (duckdb)", "table_not_allowed", "select",
           dialect="duckdb"),
        no("SELECT * FROM \"*.csv\"", "files: glob (duckdb)", "table_not_allowed", "select", dialect="duckdb"),
        no("SELECT a FROM t JOIN \"/etc/hosts\" h ON true", "files: path in join (duckdb)", "table_not_allowed",
           "select", dialect="duckdb"),
        no("SELECT (SELECT count(*) FROM \"/etc/passwd\") AS n", "files: path in subquery (duckdb)",
           "table_not_allowed", "select", dialect="duckdb"),
        no("SELECT * FROM pragma_database_list", "catalogs: pragma table (duckdb)", "system_catalog", "select",
           dialect="duckdb"),
        no("SELECT * FROM svcs_query_summary", "catalogs: svcs (redshift)", "system_catalog", "select",
           dialect="redshift"),
        no("SELECT * FROM svl_qlog", "catalogs: svl (redshift)", "system_catalog", "select", dialect="redshift"),
        no("SELECT * FROM stl_query", "catalogs: stl (redshift)", "system_catalog", "select", dialect="redshift"),
        no("SELECT * FROM stv_sessions", "catalogs: stv (redshift)", "system_catalog", "select", dialect="redshift"),
    ]
    attacks += [
        no("SELECT count(*) FROM generate_series(1, 1000000000000)", "series: huge bounds in from",
           "function_not_allowed", "select"),
        no("SELECT sum(x) FROM generate_series(-1e10, 1e10) AS g(x)", "series: float bounds", "function_not_allowed",
           "select"),
        no("SELECT generate_series(1, 100000000000)", "series: huge bounds in select list", "function_not_allowed",
           "select"),
        no("SELECT count(*) FROM generate_series(1, 10, 0)", "series: zero step", "function_not_allowed", "select"),
        no("SELECT count(*) FROM generate_series(1, 100000000000)", "series: sqlite", "function_not_allowed", "select",
           dialect="sqlite"),
        no("SELECT len(range(1000000000000))", "series: duckdb list", "function_not_allowed", "select",
           dialect="duckdb"),
        no("SELECT count(*) FROM range(0, 100000000000, 1)", "series: duckdb table", "function_not_allowed",
           "select", dialect="duckdb"),
        no("SELECT (SELECT (SELECT count(*) FROM generate_series(1, 99999999999)) AS n) AS m",
           "series: nested", "function_not_allowed", "select"),
        no("SELECT (SELECT max(email) FROM vendor AS v(id, x)) AS m FROM customer",
           "resolution: renamed column no longer binds (catalog)", "column_not_allowed", "select",
           policy=dict(PII, catalog={"tables": [
               {"name": "customer", "columns": [{"name": "customer_id"}, {"name": "email"}]},
               {"name": "vendor", "columns": [{"name": "vendor_id"}, {"name": "email"}]}]})),
    ]
    for name in ("fsdir", "FSDIR", '"fsdir"', "zipfile", "sqlar", "generate_series", "main.fsdir", "carray"):
        attacks.append(no(f"SELECT * FROM {name} WHERE name = '/etc/passwd'", f"sqlite virtual tables: {name}",
                          "table_not_allowed", "select", dialect="sqlite"))
    for name in ("dbstat", "DBSTAT", "sqlite_dbpage", "sqlite_stmt", "bytecode", "tables_used", "pragma_table_info"):
        attacks.append(no(f"SELECT * FROM {name}", f"sqlite virtual tables: {name}", "system_catalog", "select",
                          dialect="sqlite"))

    allowed = [
        ok("SELECT first_name AS fname FROM customer ORDER BY fname", "resolution ok: alias in order by",
           policy=PII, engine="runs"),
        ok("SELECT country, count(*) AS n FROM customer GROUP BY country HAVING count(*) > 1 ORDER BY n DESC",
           "resolution ok: group by having", policy=PII, engine="runs"),
        ok("SELECT d.email FROM (SELECT 'x' AS email) d", "resolution ok: derived column named like a protected one",
           policy=PII, engine="runs"),
        ok("WITH e AS (SELECT first_name AS email FROM customer) SELECT email FROM e",
           "resolution ok: cte renames an open column", policy=PII, engine="runs"),
        ok("SELECT c.first_name, i.total FROM customer c JOIN invoice i USING (customer_id)",
           "resolution ok: using an open column", policy=PII, engine="runs"),
        ok("SELECT first_name, (SELECT count(*) FROM invoice i WHERE i.customer_id = c.customer_id) AS n FROM customer c",
           "resolution ok: correlated count", policy=PII, engine="runs"),
        ok("SELECT first_name, (SELECT count(*) FROM invoice i WHERE i.customer_id = c.customer_id) AS n FROM customer c",
           "resolution ok: correlated count (catalog)", policy=FIXTURE, engine="runs"),
        ok("SELECT (SELECT max(total) FROM invoice) AS email FROM customer",
           "resolution ok: alias named like a protected column, not read", policy=FIXTURE, engine="runs"),
        ok("SELECT d.email FROM (SELECT 'x' AS email) d WHERE EXISTS (SELECT 1 FROM invoice WHERE total > 0)",
           "resolution ok: exists without the name", policy=FIXTURE, engine="runs"),
        ok("SELECT email FROM (SELECT 'x' AS email) d JOIN invoice i ON i.total > 0",
           "resolution ok: derived column beside a known table (catalog)", policy=FIXTURE, engine="runs"),
        ok("SELECT x.n FROM customer c CROSS JOIN LATERAL (SELECT count(*) AS n FROM invoice i WHERE i.customer_id = c.customer_id) x",
           "resolution ok: lateral correlated", policy=FIXTURE, engine="runs"),
        ok("SELECT country, row_number() OVER (PARTITION BY country ORDER BY last_name) AS r FROM customer",
           "resolution ok: window", policy=PII, engine="runs"),
        ok("SELECT * EXCLUDE (email, phone) FROM customer", "resolution ok: exclude every protected column (duckdb)",
           dialect="duckdb", policy=PII, engine="runs"),
        ok("SELECT * EXCLUDE (email, phone) FROM customer", "resolution ok: exclude with a catalog (duckdb)",
           dialect="duckdb", policy=FIXTURE, engine="runs"),
        ok("SELECT c.* EXCLUDE (email, phone) FROM customer c", "resolution ok: qualified exclude (duckdb)",
           dialect="duckdb", policy=PII, engine="runs"),
        ok("FROM invoice", "resolution ok: from-first over an open table (duckdb)", dialect="duckdb", policy=PII,
           engine="runs"),
        ok("SELECT COLUMNS('total') FROM invoice", "resolution ok: columns over an open table (duckdb)",
           dialect="duckdb", policy=PII, engine="runs"),
        ok("SELECT * EXCEPT (email, phone) FROM customer", "resolution ok: except every protected column (bigquery)",
           dialect="bigquery", policy=PII),
        ok("SELECT first_name AS fname FROM customer ORDER BY fname", "resolution ok: alias in order by (mysql)",
           dialect="mysql", policy=PII, engine="runs"),
        ok("SELECT country, count(*) AS n FROM customer GROUP BY country ORDER BY n DESC",
           "resolution ok: group by (sqlite)", dialect="sqlite", policy=PII, engine="runs"),
        ok("SELECT i.billing_country, sum(i.total) AS s FROM invoice i JOIN customer c ON c.customer_id = i.customer_id GROUP BY i.billing_country",
           "resolution ok: join and aggregate (catalog)", policy=FIXTURE, engine="runs"),
        ok("WITH recursive n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 5) SELECT k FROM n",
           "resolution ok: recursive cte", policy=PII, engine="runs"),
        ok("SELECT a::text, b::int FROM t", "side doors ok: ordinary casts", policy=PII),
        ok("SELECT first_name FROM customer WHERE first_name LIKE 'A%'", "side doors ok: like (mysql)",
           dialect="mysql", policy=PII, engine="runs"),
        ok("SELECT s.nextval FROM (SELECT 1 AS nextval) s", "side doors ok: a column named nextval",
           dialect="snowflake"),
        ok("WITH fsdir AS (SELECT 1 AS name) SELECT name FROM fsdir", "side doors ok: a cte named fsdir (sqlite)",
           dialect="sqlite"),
        ok("SELECT count(*) FROM generate_series(1, 1000) AS g(x)", "series ok: small bounds", engine="runs"),
        ok("SELECT d FROM generate_series('2024-01-01'::date, '2024-12-31'::date, '1 month'::interval) AS g(d)",
           "series ok: dates", engine="runs"),
    ]
    return {"resolution.jsonl": attacks + allowed}
