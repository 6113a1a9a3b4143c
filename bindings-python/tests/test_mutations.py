"""The mutation entry: Guard.check_mutation / mutation_verdict, the ``writes`` section, reads unchanged."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

import sqlgate
from sqlgate import ApprovedMutation, Guard, PolicyError, Rejected

WRITES = {"tables": ["orders", "order_lines"]}
UPDATE = "UPDATE orders SET status = 'cancelled' WHERE id = 7"


def test_update_with_where_is_approved() -> None:
    guard = Guard(writes=WRITES)
    approved = guard.check_mutation(UPDATE)
    assert isinstance(approved, ApprovedMutation)
    assert approved.sql == UPDATE
    assert approved.query_class == "mutation_create"
    assert approved.target == "orders"
    assert approved.columns_written == ["status"]
    assert approved.tables_read == []
    assert approved.functions == []
    assert approved.has_where is True
    verdict = guard.mutation_verdict(UPDATE)
    assert approved.to_dict() == verdict
    assert list(verdict) == [
        "allowed",
        "sql",
        "query_class",
        "statement_count",
        "target",
        "tables_read",
        "columns_written",
        "functions",
        "has_where",
    ]
    assert verdict["allowed"] is True and verdict["statement_count"] == 1
    assert json.loads(guard.mutation_verdict_json(UPDATE)) == verdict


def test_update_reading_other_tables() -> None:
    guard = Guard(writes=WRITES)
    approved = guard.check_mutation(
        "UPDATE orders SET total = (SELECT sum(price) FROM order_lines l WHERE l.order_id = orders.id) "
        "WHERE id = 7"
    )
    assert approved.target == "orders"
    assert approved.tables_read == ["order_lines"]
    assert approved.columns_written == ["total"]
    assert approved.functions == ["sum"]


def test_unbounded_update_raises_unless_allowed() -> None:
    sql = "UPDATE orders SET status = 'cancelled'"
    guard = Guard(writes=WRITES)
    with pytest.raises(Rejected) as info:
        guard.check_mutation(sql)
    e = info.value
    assert e.code == "unbounded_mutation"
    assert e.stage == "validate"
    assert e.query_class == "mutation_create"
    assert e.statement_count == 1
    assert e.hint
    assert e.to_dict() == guard.mutation_verdict(sql)
    assert str(e).startswith("unbounded_mutation: ")
    approved = Guard(writes={**WRITES, "allow_unbounded": True}).check_mutation(sql)
    assert approved.has_where is False


def test_delete_needs_mutation_delete_class() -> None:
    sql = "DELETE FROM orders WHERE id = 7"
    with pytest.raises(Rejected) as info:
        Guard(writes=WRITES).check_mutation(sql)
    assert info.value.code == "statement_not_allowed"
    assert info.value.query_class == "mutation_delete"
    guard = Guard(writes={**WRITES, "classes": ["mutation_create", "mutation_delete"]})
    approved = guard.check_mutation(sql)
    assert approved.query_class == "mutation_delete"
    assert approved.target == "orders"


def test_target_outside_writes_tables() -> None:
    with pytest.raises(Rejected) as info:
        Guard(writes=WRITES).check_mutation("UPDATE customer SET email = '' WHERE id = 1")
    assert info.value.code == "table_not_writable"


def test_policy_without_writes_refuses_every_mutation() -> None:
    guard = Guard()
    assert "writes" not in guard.policy
    for sql in [UPDATE, "INSERT INTO orders (id) VALUES (1)", "DELETE FROM orders WHERE id = 7"]:
        with pytest.raises(Rejected) as info:
            guard.check_mutation(sql)
        assert info.value.code == "table_not_writable", sql
        assert guard.mutation_verdict(sql)["error"]["code"] == "table_not_writable"


def test_check_still_refuses_every_mutation() -> None:
    guard = Guard(
        writes={**WRITES, "classes": ["mutation_create", "mutation_delete"], "allow_unbounded": True}
    )
    for sql in [
        UPDATE,
        "INSERT INTO orders (id) VALUES (1)",
        "DELETE FROM orders WHERE id = 7",
        "DELETE FROM orders",
        "MERGE INTO orders o USING order_lines l ON o.id = l.order_id "
        "WHEN MATCHED THEN UPDATE SET status = 'x'",
    ]:
        guard.check_mutation(sql)  # approved as a mutation ...
        with pytest.raises(Rejected) as info:
            guard.check(sql)  # ... never as a read
        assert info.value.code == "statement_not_allowed", sql
        assert guard.verdict(sql)["allowed"] is False
    with pytest.raises(Rejected) as info:
        guard.check_mutation("SELECT * FROM orders")
    assert info.value.code == "statement_not_allowed"


def test_writes_defaults_and_policy_round_trip() -> None:
    guard = Guard(writes={"tables": ["orders"]})
    assert guard.policy["writes"] == {
        "tables": ["orders"],
        "classes": ["mutation_create"],
        "max_affected_rows": 100,
        "allow_unbounded": False,
    }
    assert Guard(writes={"tables": ["orders"], "max_affected_rows": None}).policy["writes"][
        "max_affected_rows"
    ] is None
    again = pickle.loads(pickle.dumps(guard))
    assert again.policy == guard.policy
    assert again.check_mutation(UPDATE).target == "orders"
    assert "writes=" in repr(guard)


WRITES_TOML = """
dialect = "postgres"

[writes]
tables = ["orders", "order_lines"]
classes = ["mutation_create", "mutation_delete"]
max_affected_rows = "none"
allow_unbounded = false
"""


def test_from_policy_reads_writes(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(WRITES_TOML, encoding="utf-8")
    expected = {
        "tables": ["orders", "order_lines"],
        "classes": ["mutation_create", "mutation_delete"],
        "max_affected_rows": None,
        "allow_unbounded": False,
    }
    mapping = {"writes": {**expected, "max_affected_rows": None}}
    for guard in (Guard.from_policy(path), Guard.from_policy(mapping), Guard.from_policy(json.dumps(mapping))):
        assert guard.policy["writes"] == expected
        assert guard.check_mutation("DELETE FROM orders WHERE id = 7").query_class == "mutation_delete"


@pytest.mark.parametrize(
    ("writes", "field"),
    [
        ({"tables": ["orders"], "classes": ["select"]}, "writes.classes[0]"),
        ({"tables": []}, "writes.tables"),
        ({"tables": ["a..b"]}, "writes.tables[0]"),
        ({"tables": ["orders"], "max_affected_rows": 0}, "writes.max_affected_rows"),
    ],
)
def test_bad_writes_names_the_field(writes: dict[str, object], field: str) -> None:
    with pytest.raises(PolicyError) as info:
        Guard(writes=writes)
    assert info.value.field == field
    assert str(info.value).startswith(f"invalid policy: {field}: ")
    with pytest.raises(PolicyError) as info:
        Guard.from_policy({"writes": writes})
    assert info.value.field == field


@pytest.mark.parametrize(
    ("writes", "path"),
    [
        ({"tables": "orders"}, "writes.tables"),
        ({"tables": ["orders"], "classes": ["mutation_everything"]}, "writes.classes[0]"),
        ({"tables": ["orders"], "allow_unbounded": "yes"}, "writes.allow_unbounded"),
        ({"table": ["orders"]}, "writes.table"),
        ({"classes": ["mutation_create"]}, "writes"),
    ],
)
def test_malformed_writes_names_the_place(writes: dict[str, object], path: str) -> None:
    """As for the other sections: the keyword names the section, the message the place in it;
    a whole policy names the place as its field."""
    with pytest.raises(PolicyError) as info:
        Guard(writes=writes)
    assert info.value.field == "writes"
    if path != "writes":
        assert info.value.message.endswith(f" at {path}"), info.value.message
    with pytest.raises(PolicyError) as info:
        Guard.from_policy({"writes": writes})
    assert info.value.field == path


def test_approved_mutation_is_immutable_and_has_a_repr() -> None:
    approved = Guard(writes=WRITES).check_mutation(UPDATE)
    with pytest.raises(AttributeError):
        approved.sql = "DROP TABLE orders"  # type: ignore[misc]
    assert repr(approved) == (
        "ApprovedMutation(sql=\"UPDATE orders SET status = 'cancelled' WHERE id = 7\", "
        "query_class='mutation_create', target='orders', columns_written=['status'], "
        "has_where=True)"
    )


def test_new_codes_are_listed() -> None:
    assert "unbounded_mutation" in sqlgate.ERROR_CODES
    assert "table_not_writable" in sqlgate.ERROR_CODES
