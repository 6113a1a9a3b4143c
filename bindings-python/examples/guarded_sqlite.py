"""Guard the standard library's sqlite3 with sqlgate, on the Chinook sample database.

Run: python examples/guarded_sqlite.py  (from anywhere in a checkout: it opens the repository's
copy, tests/fixtures/chinook/Chinook_Sqlite.sqlite)

Every query an agent sends goes through ``guard.check``; only ``approved.sql`` (regenerated from
the checked syntax tree, row cap applied) reaches the database, which is opened read-only as well.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

from sqlgate import Guard, Rejected

REPO = Path(__file__).resolve().parents[2]
DATABASE = REPO / "tests" / "fixtures" / "chinook" / "Chinook_Sqlite.sqlite"

guard = Guard(dialect="sqlite", max_rows=5)
db = sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True)


def run_query(sql: str) -> dict[str, Any]:
    """What an agent's tool call returns: rows, or a refusal it can act on."""
    try:
        approved = guard.check(sql)
    except Rejected as e:
        return {"error": e.code, "query_class": e.query_class, "hint": e.hint}
    rows = db.execute(approved.sql).fetchall()
    return {"sql": approved.sql, "rows": rows}


AGENT_QUERIES = [
    "SELECT Name FROM Artist ORDER BY Name",
    "SELECT g.Name, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId "
    "GROUP BY g.Name ORDER BY tracks DESC LIMIT 3",
    "DELETE FROM Invoice",
    "SELECT * FROM Customer; DROP TABLE Customer",
    "SELECT name, sql FROM sqlite_master",
    "SELECT load_extension('evil.so')",
]


def main() -> int:
    for sql in AGENT_QUERIES:
        result = run_query(sql)
        print(f"> {sql}")
        if "error" in result:
            print(f"  refused: {result['error']} ({result['query_class']}); hint: {result['hint']}")
        else:
            print(f"  ran: {result['sql']}")
            for row in result["rows"]:
                print(f"  {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
