"""The type stubs: mypy --strict on the example script and the tests' usage, and stubtest."""

from __future__ import annotations

import os
import subprocess
import sys

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
    result = _run(["mypy.stubtest", "sqlgate"])
    assert result.returncode == 0, result.stdout + result.stderr
