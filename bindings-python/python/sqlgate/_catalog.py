"""Reading a catalog (core's ``Catalog`` shape) from a live DB-API connection.

Trusted code reads the schema here, never agent SQL: the queries are fixed and only read the
engine's own catalog. The result is plain data for ``Guard(catalog=...)``; the guard decides.
"""

from __future__ import annotations

from typing import Any

__all__ = ["catalog_from_connection"]

# One row per column of every table and view, system tables excluded (sqlite_master rather than
# sqlite_schema: the alias needs SQLite 3.33, older than some Pythons' sqlite3).
_SQLITE_COLUMNS = """
SELECT m.name, m.type, p.name, p.type, p."notnull", p.pk
FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p
WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
ORDER BY m.name, p.cid
"""

_SQLITE_FOREIGN_KEYS = """
SELECT m.name, f.id, f."table", f."from", f."to"
FROM sqlite_master AS m JOIN pragma_foreign_key_list(m.name) AS f
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
ORDER BY m.name, f.id, f.seq
"""

# Tables, partitioned tables, views, materialized views and foreign tables outside the system
# schemas (pg_catalog, information_schema, pg_toast, temporary schemas); partitions are left out
# (queries name their parent).
_PG_RELATIONS = """
SELECT c.oid::int8, n.nspname, c.relname, c.relkind::text
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
  AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
ORDER BY n.nspname, c.relname
"""

_PG_COLUMNS = """
SELECT a.attrelid::int8, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), NOT a.attnotnull
FROM pg_catalog.pg_attribute a
WHERE a.attnum > 0 AND NOT a.attisdropped
  AND a.attrelid IN (SELECT c.oid FROM pg_catalog.pg_class c
                     JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname <> 'information_schema' AND n.nspname !~ '^pg_')
ORDER BY a.attrelid, a.attnum
"""

# Primary keys ('p') and foreign keys ('f'), one row per column pair, in key order.
_PG_KEYS = """
SELECT con.conrelid::int8, con.oid::int8, con.contype::text, a.attname, rn.nspname, rc.relname, ra.attname
FROM pg_catalog.pg_constraint con
CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(attnum, fattnum, ord)
JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
LEFT JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid
LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
LEFT JOIN pg_catalog.pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = k.fattnum
WHERE con.contype IN ('p', 'f')
ORDER BY con.conrelid, con.oid, k.ord
"""

_PG_KINDS = {"r": "table", "p": "table", "v": "view", "m": "materialized view", "f": "foreign table"}


def catalog_from_connection(conn: Any) -> dict[str, Any]:
    """The tables and views of ``conn`` with their columns, as core's catalog.

    ``conn`` is a DB-API connection to SQLite (``sqlite3``) or PostgreSQL (``psycopg`` 3 or
    ``psycopg2``). Each table has ``name``, ``kind``, ``columns`` (``name``, ``type`` when
    declared, ``nullable``), its ``primary_key`` and ``foreign_keys`` when it has them, and
    ``schema`` on PostgreSQL; system schemas and SQLite's internal tables are left out. Pass the
    result as ``Guard(catalog=...)``. Raises ``TypeError`` for another kind of connection.
    """
    module = type(conn).__module__.split(".")[0]
    if module == "sqlite3":
        return _from_sqlite(conn)
    if module in ("psycopg", "psycopg2"):
        return _from_postgres(conn)
    raise TypeError(
        "catalog_from_connection supports sqlite3 and psycopg connections, "
        f"not {type(conn).__module__}.{type(conn).__qualname__}"
    )


def _rows(conn: Any, sql: str) -> list[tuple[Any, ...]]:
    cur = conn.cursor()
    try:
        cur.execute(sql)
        return [tuple(row) for row in cur.fetchall()]
    finally:
        cur.close()


def _from_sqlite(conn: Any) -> dict[str, Any]:
    tables: dict[str, dict[str, Any]] = {}
    keys: dict[str, list[tuple[int, str]]] = {}
    for table, kind, column, data_type, notnull, pk in _rows(conn, _SQLITE_COLUMNS):
        entry = tables.setdefault(table, {"name": table, "kind": kind, "columns": []})
        col: dict[str, Any] = {"name": column}
        if data_type:
            col["type"] = data_type
        # A view's columns carry no NOT NULL: unknown, so left out.
        if kind == "table":
            col["nullable"] = not notnull
        entry["columns"].append(col)
        if pk:
            keys.setdefault(table, []).append((pk, column))
    for table, pk_columns in keys.items():
        tables[table]["primary_key"] = [name for _, name in sorted(pk_columns)]
    last: tuple[str, int] | None = None
    for table, fk_id, referenced, column, referenced_column in _rows(conn, _SQLITE_FOREIGN_KEYS):
        if table not in tables:
            continue
        fks = tables[table].setdefault("foreign_keys", [])
        if last != (table, fk_id):
            fks.append({"columns": [], "referenced_table": referenced, "referenced_columns": []})
            last = (table, fk_id)
        fks[-1]["columns"].append(column)
        # `to` is NULL when the key references the parent's primary key.
        target = referenced_column
        if target is None:
            parent = tables.get(referenced, {}).get("primary_key", [])
            position = len(fks[-1]["columns"]) - 1
            target = parent[position] if position < len(parent) else column
        fks[-1]["referenced_columns"].append(target)
    return {"tables": list(tables.values())}


def _from_postgres(conn: Any) -> dict[str, Any]:
    tables: dict[int, dict[str, Any]] = {}
    for oid, schema, name, kind in _rows(conn, _PG_RELATIONS):
        tables[oid] = {
            "schema": schema,
            "name": name,
            "kind": _PG_KINDS.get(kind, kind),
            "columns": [],
        }
    for oid, column, data_type, nullable in _rows(conn, _PG_COLUMNS):
        if oid in tables:
            tables[oid]["columns"].append({"name": column, "type": data_type, "nullable": nullable})
    last: int | None = None
    for oid, con, kind, column, ref_schema, ref_table, ref_column in _rows(conn, _PG_KEYS):
        table = tables.get(oid)
        if table is None:
            continue
        if kind == "p":
            table.setdefault("primary_key", []).append(column)
            continue
        fks = table.setdefault("foreign_keys", [])
        if last != con:
            fks.append(
                {
                    "columns": [],
                    "referenced_schema": ref_schema,
                    "referenced_table": ref_table,
                    "referenced_columns": [],
                }
            )
            last = con
        fks[-1]["columns"].append(column)
        fks[-1]["referenced_columns"].append(ref_column)
    return {"tables": list(tables.values())}
