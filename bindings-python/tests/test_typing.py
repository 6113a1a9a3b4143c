"""The type stubs: mypy --strict on the example script and the tests' usage, and stubtest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BINDINGS

pytest.importorskip("mypy")


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=BINDINGS,
        env={**os.environ, "MYPYPATH": ""},
    )


def test_mypy_strict_on_example() -> None:
    result = _run(["mypy", "--strict", "--no-incremental", "examples/guarded_sqlite.py"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_stubtest() -> None:
    result = _run(["mypy.stubtest", "--allowlist", "stubtest-allowlist.txt", "sqlgate"])
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_checks_names_against_the_aliases(tmp_path: Path) -> None:
    """The stubs give type checkers core's names: a name core does not have is a type error."""
    script = tmp_path / "names.py"
    script.write_text(
        "import sqlgate\n"
        "guard = sqlgate.Guard()\n"
        "dialect: sqlgate.Dialect = guard.dialect\n"
        "action: sqlgate.LimitAction = guard.check('SELECT 1').limit['action']\n"
        "cls: sqlgate.QueryClass = sqlgate.classify('SELECT 1')\n"
        "try:\n"
        "    guard.check('DELETE FROM t')\n"
        "except sqlgate.Rejected as e:\n"
        "    code: sqlgate.ErrorCode = e.code\n"
        "    stage: sqlgate.Stage = e.stage\n"
        "    cls = e.query_class\n"
        "codes: tuple[sqlgate.ErrorCode, ...] = sqlgate.ERROR_CODES\n"
        "stages: tuple[sqlgate.Stage, ...] = sqlgate.STAGES\n"
        "gone: sqlgate.Stage = 'classify'\n",
        encoding="utf-8",
    )
    result = _run(["mypy", "--strict", "--no-incremental", str(script)])
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "names.py:14:" in errors[0], result.stdout + result.stderr


def test_mypy_checks_the_mutation_api(tmp_path: Path) -> None:
    """The stubs type check_mutation, ApprovedMutation, mutation_verdict and writes=."""
    script = tmp_path / "mutations.py"
    script.write_text(
        "import sqlgate\n"
        "guard = sqlgate.Guard(writes={'tables': ['orders'], 'classes': ['mutation_create']})\n"
        "approved: sqlgate.ApprovedMutation = guard.check_mutation('DELETE FROM orders WHERE id = 1')\n"
        "sql: str = approved.sql\n"
        "cls: sqlgate.QueryClass = approved.query_class\n"
        "target: str = approved.target\n"
        "read: list[str] = approved.tables_read\n"
        "written: list[str] = approved.columns_written\n"
        "functions: list[str] = approved.functions\n"
        "bounded: bool = approved.has_where\n"
        "verdict: dict[str, object] = guard.mutation_verdict('DELETE FROM orders')\n"
        "text: str = guard.mutation_verdict_json('DELETE FROM orders')\n"
        "code: sqlgate.ErrorCode = 'unbounded_mutation'\n"
        "other: sqlgate.ErrorCode = 'table_not_writable'\n"
        "wrong: int = approved.target\n",
        encoding="utf-8",
    )
    result = _run(["mypy", "--strict", "--no-incremental", str(script)])
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "mutations.py:15:" in errors[0], result.stdout + result.stderr
