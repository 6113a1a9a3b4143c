"""tests/vectors/*.jsonl through the Python API: verdicts identical to the Rust core's."""

from __future__ import annotations

import json
from typing import Any

import pytest

import sqlgate
from conftest import VECTOR_DIR, load_vectors, policy_of, vector_files

CASES = load_vectors()
_GUARDS: dict[str, sqlgate.Guard] = {}


def guard_for(case: dict[str, Any]) -> sqlgate.Guard:
    key = json.dumps(policy_of(case), sort_keys=True)
    if key not in _GUARDS:
        _GUARDS[key] = sqlgate.Guard.from_policy(policy_of(case))
    return _GUARDS[key]


def test_vector_files_present() -> None:
    files = vector_files()
    assert files, f"no .jsonl test vectors in {VECTOR_DIR}"
    assert len(CASES) > 0, f"the .jsonl files in {VECTOR_DIR} hold no cases"


def is_mutation(case: dict[str, Any]) -> bool:
    """Rows with ``"entry": "mutation"`` go to the mutation check; every other row is a read."""
    return case.get("entry") == "mutation"


@pytest.mark.parametrize("case", CASES, ids=[f"{c['_where']} {c['name']}" for c in CASES])
def test_vector(case: dict[str, Any]) -> None:
    if is_mutation(case):
        check_mutation_vector(case)
    else:
        check_read_vector(case)


def check_read_vector(case: dict[str, Any]) -> None:
    guard = guard_for(case)
    sql = case["sql"]
    expect = case["expect"]
    assert guard.verdict(sql) == expect
    assert json.loads(guard.verdict_json(sql)) == expect
    if expect["allowed"]:
        approved = guard.check(sql)
        assert approved.to_dict() == expect
        assert approved.sql == expect["sql"]
        assert approved.tables == expect["tables"]
        assert approved.functions == expect["functions"]
        assert approved.limit == expect["limit"]
        assert approved.columns == expect.get("columns", [])
    else:
        with pytest.raises(sqlgate.Rejected) as info:
            guard.check(sql)
        assert info.value.to_dict() == expect
        assert info.value.code in sqlgate.ERROR_CODES


def check_mutation_vector(case: dict[str, Any]) -> None:
    guard = guard_for(case)
    sql = case["sql"]
    expect = case["expect"]
    assert guard.mutation_verdict(sql) == expect
    assert json.loads(guard.mutation_verdict_json(sql)) == expect
    if expect["allowed"]:
        approved = guard.check_mutation(sql)
        assert approved.to_dict() == expect
        assert approved.sql == expect["sql"]
        assert approved.query_class == expect["query_class"]
        assert approved.target == expect["target"]
        assert approved.tables_read == expect["tables_read"]
        assert approved.columns_written == expect["columns_written"]
        assert approved.functions == expect["functions"]
        assert approved.has_where == expect["has_where"]
    else:
        with pytest.raises(sqlgate.Rejected) as info:
            guard.check_mutation(sql)
        assert info.value.to_dict() == expect
        assert info.value.code in sqlgate.ERROR_CODES
