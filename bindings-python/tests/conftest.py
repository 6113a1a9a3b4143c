"""Shared paths and helpers for the sqlgate Python tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BINDINGS = Path(__file__).resolve().parents[1]
REPO = BINDINGS.parent
VECTOR_DIR = REPO / "tests" / "vectors"
# The repository's copy of the Chinook sample database (MIT; tests/fixtures/chinook/PROVENANCE.md).
CHINOOK = REPO / "tests" / "fixtures" / "chinook" / "Chinook_Sqlite.sqlite"


def vector_files() -> list[Path]:
    return sorted(VECTOR_DIR.glob("*.jsonl"))


def load_vectors() -> list[dict[str, Any]]:
    """Every case of tests/vectors/*.jsonl, with its file and line for the test id."""
    cases = []
    for path in vector_files():
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                case = json.loads(line)
                case["_where"] = f"{path.name}:{number}"
                cases.append(case)
    return cases


def policy_of(case: dict[str, Any]) -> dict[str, Any]:
    """The case's policy: its own (whose dialect wins), else the default for its dialect."""
    dialect = case.get("dialect", "postgres")
    policy = case.get("policy")
    if policy is None:
        return {"dialect": dialect}
    return {"dialect": dialect, **policy}
