#!/usr/bin/env python3
"""Regenerate data/duckdb_allow.txt and data/duckdb_table_allow.txt from a real DuckDB.

    python3 -m venv /tmp/ddb && /tmp/ddb/bin/pip install duckdb
    /tmp/ddb/bin/python core/src/functions/gen_duckdb_allow.py [OUTDIR]   (default: data/)

Source: `duckdb_functions()` of the `duckdb` Python package, in a fresh in-memory database with
only the extensions that package loads by itself (core_functions, icu, json, parquet). Functions
of extensions that are not loaded (httpfs, spatial, excel, postgres_scanner ...) are not listed,
so they stay refused even though DuckDB would autoload them. Rules (also written into the
headers of the generated files):

  Expression functions (duckdb_allow.txt):
  1. Every function name of type scalar, aggregate, window or macro (schemas main and
     pg_catalog), lower-cased; operator entries (`+`, `~~`, `IS DISTINCT FROM` ...) and
     `__internal*` names are skipped.
  2. Minus every name with an overload DuckDB flags `has_side_effects`, except the harmless
     volatile functions in KEEP_VOLATILE (random, uuid ...): sleep_ms, setseed, nextval,
     currval, setval, write_log, error, current_query, current_connection_id ...
  3. Minus every pg_catalog macro except those in KEEP_PG_CATALOG: DuckDB's PostgreSQL
     compatibility macros read the catalog (pg_get_viewdef reads duckdb_views()) or pretend
     (has_*_privilege is always true).
  4. Minus names matching DENY (settings, variables, catalog and search path, SQL given as text,
     logs, block size, server version, transaction ids, star expressions): applied to every
     name, including the additions.
  5. Plus SYNTAX: names sqlparser renders as function calls although they are SQL syntax or
     keyword forms (ROW(...), ARRAY(SELECT ...), COALESCE, CURRENT_USER, UNNEST in a select
     list ...). Kept explicit here so regeneration keeps them.

  Table functions in FROM (duckdb_table_allow.txt): only TABLE_ALLOW, each checked to exist as
  a DuckDB table function (function_type 'table'). Every other table function and every table
  macro is refused in FROM: they read files and URLs (read_*, *_scan, glob, parquet_*,
  sniff_csv), catalogs and settings (duckdb_*, pragma_*, which_secret), change state
  (checkpoint, enable_profiling, enable_logging ...) or take a table as an argument
  (histogram(tbl, col), histogram_values, summary, query_table).
"""

import fnmatch
import os
import sys

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
OUTDIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "data")

# rule 2: volatile but harmless (no state outside the query, nothing read)
KEEP_VOLATILE = ["random", "uuid", "uuidv4", "uuidv7", "gen_random_uuid"]

# rule 3: pg_catalog macros that only compute from their arguments or are the SQL forms of
# current_database()/current_schema()
KEEP_PG_CATALOG = ["pg_typeof", "pg_size_pretty", "current_database", "current_schema"]

# rule 4: fnmatch patterns (only * is used), matched against the lower-case name
DENY = [
    # internals, settings, variables, the search path
    "__*", "current_setting", "getvariable", "current_schemas", "in_search_path",
    # catalogs, the database file, logs, profiling, version and transaction state
    "duckdb_*", "pragma_*", "get_block_size", "parse_duckdb_log_message", "version",
    "index_key",  # keys of a named index on a table given by name: a catalog lookup
    "txid_*", "current_transaction_id", "current_query*", "current_connection_id", "stats",
    # SQL given as text (json_serialize_plan binds a query against the catalog)
    "json_serialize_plan", "json_serialize_sql", "json_deserialize_sql",
    "json_execute_serialized_sql",
    # sleeping, sequences, seeds, logging, errors
    "sleep*", "pg_sleep", "setseed", "nextval", "currval", "setval", "write_log", "error",
    # file and URL readers, secrets, environment (none is a scalar today; kept for safety)
    "read_*", "*_scan", "glob", "parquet_*", "sniff_csv", "which_secret", "getenv",
    "iceberg_*", "delta_*", "http*",
    # COLUMNS(*) / COLUMNS('regex') is a star expression: it can expand to protected columns
    "columns",
]

# rule 5: syntax-level names (sqlparser renders them as calls; DuckDB evaluates them as syntax
# or keyword forms). ROW(...) and ARRAY(subquery) are constructors; current_user and friends
# return constants in DuckDB ('duckdb', the database and schema names).
SYNTAX = [
    "row", "array", "coalesce", "ifnull", "nullif", "if", "grouping", "grouping_id", "unnest",
    "position", "substring", "trim", "overlay", "try",
    # ordered-set aggregates: percentile_cont(0.5) WITHIN GROUP (ORDER BY x) is DuckDB syntax
    "percentile_cont", "percentile_disc", "mode",
    "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp",
    "current_user", "session_user", "user", "current_role", "current_catalog",
    "current_database", "current_schema",
    "count", "sum", "avg", "min", "max", "string_agg", "array_agg", "list",
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
]

# table functions allowed in FROM: they compute rows from their arguments only
TABLE_ALLOW = ["generate_series", "range", "unnest", "json_each", "json_tree", "repeat",
               "repeat_row"]


def denied(name):
    return any(fnmatch.fnmatchcase(name, pat) for pat in DENY)


def is_name(name):
    return name != "" and name.replace("_", "a").isalnum() and not name[0].isdigit()


def wrap(words, indent="#       ", width=96):
    lines, cur = [], indent
    for w in words:
        if len(cur) + len(w) + 1 > width and cur.strip("# "):
            lines.append(cur.rstrip())
            cur = indent
        cur += w + " "
    lines.append(cur.rstrip())
    return "\n".join(lines)


def main():
    con = duckdb.connect(":memory:")
    version = con.sql("SELECT version()").fetchall()[0][0]
    rows = con.sql(
        """SELECT lower(function_name), function_type, schema_name,
                  bool_or(coalesce(has_side_effects, false))
           FROM duckdb_functions() WHERE internal GROUP BY ALL"""
    ).fetchall()
    con.close()
    if not rows:
        sys.exit("gen_duckdb_allow: duckdb_functions() returned nothing")

    expr_types = {"scalar", "aggregate", "window", "macro"}
    names, side_effects, pg_catalog, tables = set(), set(), set(), set()
    for name, ftype, schema, effects in rows:
        if ftype in ("table", "table_macro"):
            tables.add(name)
        if ftype not in expr_types or not is_name(name):
            continue
        names.add(name)
        if effects:
            side_effects.add(name)
        if schema == "pg_catalog":
            pg_catalog.add(name)
    # a name that exists in main too is not a pg_catalog-only macro
    main_names = {n for n, t, s, _ in rows if s == "main" and t in expr_types}
    pg_only = pg_catalog - main_names

    removed_effects = sorted(side_effects - set(KEEP_VOLATILE))
    removed_pg = sorted(pg_only - set(KEEP_PG_CATALOG))
    candidates = (names - set(removed_effects) - set(removed_pg)) | set(SYNTAX)
    removed_deny = sorted(n for n in candidates if denied(n))
    kept = sorted(n for n in candidates if not denied(n))

    bad = [n for n in SYNTAX + KEEP_VOLATILE + KEEP_PG_CATALOG if denied(n)]
    if bad:
        sys.exit(f"gen_duckdb_allow: additions denied by a rule: {bad}")
    missing = [n for n in TABLE_ALLOW if n not in tables]
    if missing:
        sys.exit(f"gen_duckdb_allow: not DuckDB table functions: {missing}")
    refused_tables = sorted(tables - set(TABLE_ALLOW))

    header = f"""\
# duckdb_allow.txt: DuckDB functions sqlgate allows in expressions by default (dialect duckdb).
# GENERATED by core/src/functions/gen_duckdb_allow.py from duckdb_functions() of DuckDB
# {version} (Python package, extensions core_functions, icu, json, parquet); do not edit by hand.
# {len(kept)} names, one lower-case name per line, sorted. Table functions in FROM are decided by
# duckdb_table_allow.txt, not by this file.
#
# Rules:
#  1. Every scalar, aggregate, window function and macro (schemas main and pg_catalog),
#     lower-cased; operators and __internal names skipped. Functions of extensions that were
#     not loaded (httpfs, spatial, excel, scanners ...) are absent, hence refused.
#  2. Minus names with an overload flagged has_side_effects, except
{wrap(KEEP_VOLATILE)}
#     removed:
{wrap(removed_effects)}
#  3. Minus pg_catalog-only compatibility macros (catalog reads or fake answers), except
#     {' '.join(KEEP_PG_CATALOG)}:
{wrap(removed_pg)}
#  4. Minus names matching (settings, variables, catalogs, SQL as text, logs, sleep, sequences,
#     files, star expressions):
{wrap(DENY)}
#     removed from this build's list by rule 4:
{wrap(removed_deny)}
#  5. Plus syntax-level names sqlparser renders as calls (constructors, keyword forms,
#     current_user and friends, which return constants in DuckDB):
{wrap(SYNTAX)}
"""
    with open(os.path.join(OUTDIR, "duckdb_allow.txt"), "w", encoding="utf-8") as f:
        f.write(header)
        for n in kept:
            f.write(n + "\n")

    table_header = f"""\
# duckdb_table_allow.txt: DuckDB table functions sqlgate allows in FROM (dialect duckdb).
# GENERATED by core/src/functions/gen_duckdb_allow.py from duckdb_functions() of DuckDB
# {version}; do not edit by hand. {len(TABLE_ALLOW)} names, sorted.
#
# Rule: only table functions that compute rows from their arguments alone. Every other table
# function and table macro of this build is refused in FROM (files and URLs, catalogs,
# settings, secrets, logging and profiling switches, checkpoints, table macros that take a
# table as an argument such as histogram(tbl, col)):
{wrap(refused_tables)}
"""
    with open(os.path.join(OUTDIR, "duckdb_table_allow.txt"), "w", encoding="utf-8") as f:
        f.write(table_header)
        for n in sorted(TABLE_ALLOW):
            f.write(n + "\n")
    print(
        f"gen_duckdb_allow: wrote {len(kept)} expression and {len(TABLE_ALLOW)} table functions"
        f" (DuckDB {version})",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
