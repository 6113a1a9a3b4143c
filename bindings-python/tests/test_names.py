"""Every list of names the package publishes is core's, and the type stubs spell the same lists.

The runtime tuples (``sqlgate.ERROR_CODES``, ...) are built by the native module from core's
enums; the ``Literal`` aliases in ``sqlgate/_types.py`` are written by hand for type checkers.
A core variant added, renamed or dropped fails here until its alias is updated.
"""

from __future__ import annotations

import ast
import typing

import pytest

import sqlgate
from conftest import BINDINGS
from sqlgate import _sqlgate, _types

PACKAGE = BINDINGS / "python" / "sqlgate"

# The runtime tuple each alias of sqlgate/_types.py must spell, in core's order.
LISTS = {
    "ERROR_CODES": "ErrorCode",
    "STAGES": "Stage",
    "QUERY_CLASSES": "QueryClass",
    "DIALECTS": "Dialect",
    "LIMIT_ACTIONS": "LimitAction",
}


@pytest.mark.parametrize(("name", "alias"), LISTS.items(), ids=list(LISTS))
def test_alias_is_cores_list(name: str, alias: str) -> None:
    from_core = getattr(_sqlgate, name)
    assert isinstance(from_core, tuple) and from_core
    spelled = typing.get_args(getattr(_types, alias))
    assert spelled == from_core, (
        f"sqlgate._types.{alias} differs from core's {name}: "
        f"missing {sorted(set(from_core) - set(spelled))}, "
        f"extra {sorted(set(spelled) - set(from_core))}, or another order"
    )
    assert getattr(sqlgate, name) is from_core
    assert getattr(sqlgate, alias) is getattr(_types, alias)


def test_guard_answers_with_listed_names() -> None:
    guard = sqlgate.Guard(dialect="sqlite", max_rows=10)
    assert guard.check("SELECT 1").limit["action"] in sqlgate.LIMIT_ACTIONS
    assert sqlgate.Guard(max_rows=None).check("SELECT 1").limit["action"] in sqlgate.LIMIT_ACTIONS
    for sql in ("", "SELECT (", "DELETE FROM t", "SELECT 1 LIMIT (SELECT 1)"):
        with pytest.raises(sqlgate.Rejected) as info:
            guard.check(sql)
        assert info.value.code in sqlgate.ERROR_CODES
        assert info.value.stage in sqlgate.STAGES
        assert info.value.query_class in sqlgate.QUERY_CLASSES
    assert [sqlgate.Guard(dialect=d).dialect for d in sqlgate.DIALECTS] == list(sqlgate.DIALECTS)


def test_annotations_use_the_aliases() -> None:
    hints = typing.get_type_hints(sqlgate.Rejected)
    assert hints["code"] == _types.ErrorCode
    assert hints["stage"] == _types.Stage
    assert hints["query_class"] == _types.QueryClass
    assert typing.get_type_hints(sqlgate.LimitInfo)["action"] == _types.LimitAction
    stub = ast.parse((PACKAGE / "_sqlgate.pyi").read_text(encoding="utf-8"))
    declared = {
        node.target.id: ast.unparse(node.annotation)
        for node in stub.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    for name, alias in LISTS.items():
        assert declared.get(name) == f"tuple[{alias}, ...]", name


def test_literal_lists_are_written_once() -> None:
    """Only sqlgate/_types.py spells a Literal, once per alias; the rest use the aliases."""
    elsewhere = []
    for path in sorted(PACKAGE.glob("*.py*")):
        if path.name == "_types.py" or path.suffix not in (".py", ".pyi"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Literal"):
                elsewhere.append(f"{path.name}:{node.lineno}")
    assert not elsewhere
    literals = [
        node
        for node in ast.walk(ast.parse((PACKAGE / "_types.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "Literal"
    ]
    assert len(literals) == len(LISTS)
