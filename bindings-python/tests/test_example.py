"""Runs examples/guarded_sqlite.py (the README's snippet) against the Chinook database."""

from __future__ import annotations

import subprocess
import sys

from conftest import BINDINGS, CHINOOK as DATABASE


def test_guarded_sqlite_example() -> None:
    before = DATABASE.stat().st_mtime_ns
    result = subprocess.run(
        [sys.executable, str(BINDINGS / "examples" / "guarded_sqlite.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "ran: SELECT Name FROM Artist ORDER BY Name LIMIT 5" in out
    assert "('AC/DC',)" in out
    assert "('Rock', 1297)" in out
    assert "refused: statement_not_allowed (mutation_delete)" in out
    assert "refused: multiple_statements (ddl); hint: send the SELECT alone" in out
    assert "refused: system_catalog" in out
    assert "refused: function_not_allowed" in out
    assert out.count("refused:") == 4
    assert DATABASE.stat().st_mtime_ns == before
