#!/usr/bin/env python3
"""Regenerate data/sqlite_allow.txt: SQLite functions sqlgate allows by default.

    python3 core/src/functions/gen_sqlite_allow.py [OUTPUT]   (default: data/sqlite_allow.txt)

Source: `PRAGMA function_list` of the SQLite library linked into Python's sqlite3 module (the
library only: the sqlite3 CLI adds shell functions such as readfile/writefile/edit/sha3_query,
which must never be allowed, so the CLI is not used). Rules (also written into the file header):

  1. Every function name the library reports, builtin or registered by a compiled-in extension
     (FTS3/4/5, R*Tree ...), lower-cased; operator entries such as `->` are skipped.
  2. Minus DENY: functions that load code, touch files or the shell, sleep, reveal connection or
     build state (changes, last_insert_rowid, sqlite_*), or are extension internals that write or
     hand out pointers (fts3_tokenizer, fts5, optimize, rtree*/geopoly* internals). Applied to
     every name, including the additions.
  3. Plus ADD: SQL-standard forms sqlparser renders as function calls, aggregates, window
     functions and table-valued functions that must be present, and side-effect-free functions
     of newer SQLite releases (concat, unhex, jsonb_*, json_each ...), so the list does not
     depend on the SQLite version that generated it.

Table-valued functions in FROM are decided by a separate list, data/sqlite_table_allow.txt
(TABLE_ALLOW below): only json_each, json_tree, jsonb_each, jsonb_tree and generate_series,
which compute rows from their arguments. Every other eponymous virtual table (fsdir, zipfile,
dbstat, sqlite_dbpage, sqlite_stmt, pragma_* ...) is refused in FROM. The table-valued
functions are not in the expression list: SQLite cannot call them in an expression.
"""

import fnmatch
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "data", "sqlite_allow.txt")
TABLE_OUT = os.path.join(os.path.dirname(OUT), "sqlite_table_allow.txt")

# rule 2: fnmatch patterns (only * is used), matched against the lower-case name
DENY = [
    # loading code, files, the shell, sleeping (CLI and extension functions)
    "load_extension", "readfile", "writefile", "edit", "fsdir", "lsmode", "usleep",
    "shell_*", "sha3_query", "zipfile*", "sqlar_*",
    # connection, database and build state
    "changes", "total_changes", "last_insert_rowid", "sqlite_*",
    # extension internals: tokenizer pointers, API pointers, index writes, r-tree internals
    "fts3_tokenizer", "fts5", "fts5_source_id", "optimize", "rtree*", "geopoly*",
    # table-valued pragmas and storage introspection
    "pragma_*", "dbstat", "carray",
]

# rule 3
ADD = [
    # SQL-standard and keyword forms
    "coalesce", "ifnull", "iif", "if", "nullif", "substr", "substring", "trim", "ltrim", "rtrim",
    "like", "glob", "strftime", "date", "time", "datetime", "julianday", "unixepoch", "timediff",
    "current_date", "current_time", "current_timestamp",
    # aggregates
    "count", "sum", "total", "avg", "min", "max", "group_concat", "string_agg",
    "json_group_array", "json_group_object", "jsonb_group_array", "jsonb_group_object",
    "median", "percentile", "percentile_cont", "percentile_disc",
    # window functions
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
    # newer scalar functions
    "concat", "concat_ws", "octet_length", "unhex", "format", "printf", "unistr", "unistr_quote",
    "json", "jsonb", "json_array", "jsonb_array", "json_array_insert", "jsonb_array_insert",
    "json_error_position", "json_extract", "jsonb_extract", "json_insert", "jsonb_insert",
    "json_object", "jsonb_object", "json_patch", "jsonb_patch", "json_pretty", "json_remove",
    "jsonb_remove", "json_replace", "jsonb_replace", "json_set", "jsonb_set", "json_type",
    "json_valid", "json_quote", "json_array_length",
]

# table-valued functions allowed in FROM (side-effect free; rows from the arguments only)
TABLE_ALLOW = ["generate_series", "json_each", "json_tree", "jsonb_each", "jsonb_tree"]


def denied(name):
    return any(fnmatch.fnmatchcase(name, pat) for pat in DENY)


def main():
    con = sqlite3.connect(":memory:")
    rows = con.execute("PRAGMA function_list").fetchall()
    version = sqlite3.sqlite_version
    con.close()
    if not rows:
        sys.exit("gen_sqlite_allow: PRAGMA function_list returned nothing")

    names = set()
    for row in rows:
        name = row[0].lower()
        if not name.replace("_", "a").isalnum() or name[0].isdigit():
            continue  # operators such as -> and ->>
        names.add(name)
    names.update(ADD)
    names -= set(TABLE_ALLOW)  # table-valued: FROM only
    kept = sorted(n for n in names if not denied(n))
    bad = [n for n in ADD + TABLE_ALLOW if denied(n)]
    if bad:
        sys.exit(f"gen_sqlite_allow: additions denied by a rule: {bad}")
    removed = sorted(n for n in names if denied(n))

    def wrap(words, indent="#       ", width=96):
        lines, cur = [], indent
        for w in words:
            if len(cur) + len(w) + 1 > width and cur.strip("# "):
                lines.append(cur.rstrip())
                cur = indent
            cur += w + " "
        lines.append(cur.rstrip())
        return "\n".join(lines)

    header = f"""\
# sqlite_allow.txt: SQLite functions sqlgate allows by default (dialect sqlite).
# GENERATED by core/src/functions/gen_sqlite_allow.py from PRAGMA function_list of SQLite
# {version} (Python's sqlite3, not the CLI); do not edit by hand.
# {len(kept)} names, one lower-case name per line, sorted.
#
# Rules:
#  1. Every function the library reports (builtin and compiled-in extensions), lower-cased.
#  2. Minus names matching (code loading, files, shell, sleep, connection/build state,
#     extension internals that write or hand out pointers, table-valued pragmas):
{wrap(DENY)}
#     removed from this build's list:
{wrap(removed)}
#  3. Plus SQL-standard forms sqlparser renders as calls, all standard aggregates and window
#     functions and side-effect-free functions of newer SQLite releases (concat, unhex,
#     timediff, jsonb_*, json_pretty, string_agg, unistr ...).
#  4. Table-valued functions are not here: FROM items are decided by sqlite_table_allow.txt.
"""
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(header)
        for n in kept:
            f.write(n + "\n")
    table_header = f"""\
# sqlite_table_allow.txt: SQLite table-valued functions sqlgate allows in FROM (dialect sqlite).
# GENERATED by core/src/functions/gen_sqlite_allow.py (SQLite {version}); do not edit by hand.
# {len(TABLE_ALLOW)} names, sorted.
#
# Rule: only table-valued functions that compute rows from their arguments. Every other
# eponymous virtual table is refused in FROM, in particular (also by the rule-2 patterns):
#       fsdir zipfile dbstat sqlite_dbpage sqlite_stmt pragma_* carray sqlar
"""
    with open(TABLE_OUT, "w", encoding="utf-8") as f:
        f.write(table_header)
        for n in sorted(TABLE_ALLOW):
            f.write(n + "\n")
    print(f"gen_sqlite_allow: wrote {len(kept)} names to {OUT} and {len(TABLE_ALLOW)} to {TABLE_OUT}"
          f" (SQLite {version})", file=sys.stderr)


if __name__ == "__main__":
    main()
