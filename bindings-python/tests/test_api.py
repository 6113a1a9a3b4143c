"""The Python API: construction, exceptions and their attributes, policies, threads, reprs."""

from __future__ import annotations

import inspect
import json
import pickle
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import sqlgate
from conftest import load_vectors, policy_of
from sqlgate import Approved, Guard, PolicyError, Rejected


def test_exports() -> None:
    for name in sqlgate.__all__:
        assert hasattr(sqlgate, name), name
    assert isinstance(sqlgate.__version__, str)
    assert "multiple_statements" in sqlgate.ERROR_CODES
    assert "too_large" in sqlgate.ERROR_CODES
    assert sqlgate.QUERY_CLASSES[0] == "select"
    assert sqlgate.QUERY_CLASSES[-1] == "unknown"
    assert "postgres" in sqlgate.DIALECTS and "sqlite" in sqlgate.DIALECTS
    assert issubclass(Rejected, ValueError)
    assert issubclass(PolicyError, ValueError)


def test_check_approved_attributes() -> None:
    guard = Guard(max_rows=100)
    approved = guard.check("SELECT name FROM artist ORDER BY name")
    assert isinstance(approved, Approved)
    assert approved.sql == "SELECT name FROM artist ORDER BY name LIMIT 100"
    assert approved.query_class == "select"
    assert approved.statement_count == 1
    assert approved.tables == ["artist"]
    assert approved.columns == []
    assert approved.functions == []
    assert approved.limit == {"action": "injected", "value": 100, "original": None}
    assert approved.to_dict() == guard.verdict("SELECT name FROM artist ORDER BY name")
    assert approved.to_dict()["allowed"] is True


def test_placeholders_are_listed_for_the_caller_to_bind() -> None:
    guard = Guard(dialect="sqlite", writes={"tables": ["orders"]})
    approved = guard.check("SELECT name FROM artist WHERE artist_id = ? OR name = :name")
    assert approved.parameters == ["?", ":name"]
    assert guard.check("SELECT name FROM artist WHERE name = '?'").parameters == []
    mutation = guard.check_mutation("UPDATE orders SET status = ?1 WHERE id = ?2")
    assert mutation.parameters == ["?1", "?2"]
    assert "unbound_parameter" in sqlgate.ERROR_CODES


def test_limit_clamped_and_none() -> None:
    assert Guard(max_rows=10).check("SELECT 1 LIMIT 500").limit == {
        "action": "clamped",
        "value": 10,
        "original": 500,
    }
    assert Guard(max_rows=None).check("SELECT 1").limit["action"] == "none"


def test_rejected_attributes() -> None:
    guard = Guard()
    with pytest.raises(Rejected) as info:
        guard.check("SELECT 1; DROP TABLE artist")
    e = info.value
    assert isinstance(e, ValueError)
    assert e.code == "multiple_statements"
    assert e.stage == "validate"
    assert e.retryable is False
    assert e.hint == "send the SELECT alone"
    assert e.location is not None and e.location["line"] == 1
    assert e.query_class == "ddl"
    assert e.statement_count == 2
    assert "statements" in e.message
    assert str(e).startswith("multiple_statements: ")
    assert "hint: send the SELECT alone" in str(e)
    assert e.args == (e.message,)
    assert e.to_dict() == guard.verdict("SELECT 1; DROP TABLE artist")


def test_rejected_without_location_or_hint() -> None:
    with pytest.raises(Rejected) as info:
        Guard(max_sql_bytes=10).check("SELECT 1234567890")
    assert info.value.code == "too_large"
    assert info.value.stage == "precheck"
    assert info.value.query_class == "unknown"
    assert info.value.statement_count == 0


def test_rejected_is_catchable_as_value_error() -> None:
    with pytest.raises(ValueError):
        Guard().check("DELETE FROM t")


def test_rejected_pickles() -> None:
    with pytest.raises(Rejected) as info:
        Guard().check("DELETE FROM t")
    again = pickle.loads(pickle.dumps(info.value))
    assert isinstance(again, Rejected)
    assert again.to_dict() == info.value.to_dict()


def test_verdict_never_raises() -> None:
    guard = Guard()
    for sql in ["", "DROP TABLE x", "SELECT \x00", "SELECT (", "SELECT 1; SELECT 2"]:
        verdict = guard.verdict(sql)
        assert verdict["allowed"] is False
        assert verdict["error"]["code"] in sqlgate.ERROR_CODES
        assert json.loads(guard.verdict_json(sql)) == verdict


def test_classify() -> None:
    assert sqlgate.classify("SELECT 1") == "select"
    assert sqlgate.classify("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d") == (
        "mutation_delete"
    )
    assert sqlgate.classify("PRAGMA writable_schema = 1", dialect="sqlite") == "admin"
    assert sqlgate.classify("not sql at all") == "unknown"
    assert sqlgate.classify("SELECT 1", "mysql") in sqlgate.QUERY_CLASSES
    with pytest.raises(PolicyError) as info:
        sqlgate.classify("SELECT 1", dialect="oracle")
    assert info.value.field == "dialect"


def test_keyword_construction() -> None:
    guard = Guard(
        dialect="postgres",
        max_rows=50,
        allow_explain=True,
        functions={"allow": ["my_udf"], "deny": ["random"]},
        tables={"allow": ["public.*"], "deny": ["public.secrets"]},
        columns={"deny": ["*.ssn"]},
        max_sql_bytes=4096,
        max_depth=32,
        allow_system_catalogs=False,
        max_tokens=500,
    )
    policy = guard.policy
    assert policy["max_rows"] == 50
    assert policy["allow_explain"] is True
    assert policy["functions"] == {"allow": ["my_udf"], "deny": ["random"]}
    assert policy["tables"] == {"allow": ["public.*"], "deny": ["public.secrets"]}
    assert policy["columns"] == {"deny": ["*.ssn"]}
    assert policy["max_sql_bytes"] == 4096
    assert policy["max_depth"] == 32
    assert policy["max_tokens"] == 500
    assert guard.check("SELECT my_udf(a) FROM t").functions == ["my_udf"]
    with pytest.raises(Rejected) as info:
        guard.check("SELECT random()")
    assert info.value.code == "function_not_allowed"
    with pytest.raises(Rejected) as info:
        guard.check("SELECT ssn FROM people")
    assert info.value.code == "column_not_allowed"
    with pytest.raises(Rejected) as info:
        guard.check("SELECT * FROM secrets")
    assert info.value.code == "table_not_allowed"


def test_defaults_policy() -> None:
    policy = Guard().policy
    assert policy["dialect"] == "postgres"
    assert policy["max_rows"] == 1000
    assert policy["allow_explain"] is False
    assert policy["allow_system_catalogs"] is False
    assert Guard(dialect="postgresql").dialect == "postgres"


def test_catalog() -> None:
    catalog = {"tables": [{"name": "artist", "columns": [{"name": "id"}, {"name": "name"}]}]}
    guard = Guard(catalog=catalog)
    assert guard.policy["catalog"]["tables"][0]["name"] == "artist"
    assert guard.check("SELECT name FROM artist").query_class == "select"


POLICY = {
    "dialect": "sqlite",
    "max_rows": 20,
    "tables": {"deny": ["employee"]},
    "columns": {"deny": ["customer.email"]},
}
POLICY_TOML = """
dialect = "sqlite"
max_rows = 20

[tables]
deny = ["employee"]

[columns]
deny = ["customer.email"]
"""


def _assert_policy_guard(guard: Guard) -> None:
    assert guard.dialect == "sqlite"
    assert guard.policy["max_rows"] == 20
    assert guard.check("SELECT name FROM artist").sql == "SELECT name FROM artist LIMIT 20"
    with pytest.raises(Rejected) as info:
        guard.check("SELECT * FROM employee")
    assert info.value.code == "table_not_allowed"
    with pytest.raises(Rejected) as info:
        guard.check("SELECT email FROM customer")
    assert info.value.code == "column_not_allowed"


def test_from_policy_dict() -> None:
    _assert_policy_guard(Guard.from_policy(POLICY))


def test_from_policy_json_text() -> None:
    _assert_policy_guard(Guard.from_policy(json.dumps(POLICY)))
    _assert_policy_guard(Guard.from_policy("  \n" + json.dumps(POLICY)))


def test_from_policy_json_path(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(POLICY), encoding="utf-8")
    _assert_policy_guard(Guard.from_policy(path))
    _assert_policy_guard(Guard.from_policy(str(path)))


def test_from_policy_toml_path(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(POLICY_TOML, encoding="utf-8")
    _assert_policy_guard(Guard.from_policy(path))
    _assert_policy_guard(Guard.from_policy(str(path)))


def test_from_policy_empty_is_default() -> None:
    assert Guard.from_policy({}).policy == Guard().policy


def test_from_policy_errors(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as info:
        Guard.from_policy({"dialect": "sqlite", "max_row": 5})
    assert info.value.field == "max_row"
    assert "unknown field" in info.value.message
    with pytest.raises(PolicyError) as info:
        Guard.from_policy('{"dialect": "oracle"}')
    assert "oracle" in info.value.message
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("dialect = ", encoding="utf-8")
    with pytest.raises(PolicyError) as info:
        Guard.from_policy(bad_toml)
    assert info.value.field == "policy"
    yaml = tmp_path / "policy.yaml"
    yaml.write_text("dialect: sqlite", encoding="utf-8")
    with pytest.raises(PolicyError):
        Guard.from_policy(yaml)
    with pytest.raises(FileNotFoundError):
        Guard.from_policy(tmp_path / "missing.json")
    with pytest.raises(TypeError):
        Guard.from_policy(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"dialect": "oracle"}, "dialect"),
        ({"max_rows": 0}, "max_rows"),
        ({"max_depth": 0}, "max_depth"),
        ({"max_sql_bytes": 0}, "max_sql_bytes"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"tables": {"allow": ["a..b"]}}, "tables.allow[0]"),
        ({"tables": {"alow": ["a"]}}, "tables"),
        ({"columns": {"deny": ["nodot"]}}, "columns.deny[0]"),
    ],
)
def test_policy_error_names_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(PolicyError) as info:
        Guard(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field
    assert str(info.value).startswith(f"invalid policy: {field}: ")
    assert isinstance(info.value, ValueError)


def test_wrong_argument_types() -> None:
    with pytest.raises(TypeError):
        Guard(max_rows="ten")  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        Guard(max_rows=-1)
    with pytest.raises(TypeError):
        Guard().check(b"SELECT 1")  # type: ignore[arg-type]


def test_guard_pickles() -> None:
    guard = Guard(dialect="sqlite", max_rows=7, tables={"deny": ["secret"]})
    again = pickle.loads(pickle.dumps(guard))
    assert again.policy == guard.policy


def test_reprs() -> None:
    guard = Guard(dialect="sqlite", max_rows=7, tables={"deny": ["secret"]})
    text = repr(guard)
    assert text.startswith("Guard(dialect='sqlite', max_rows=7")
    assert "secret" in text
    assert "max_depth" not in text  # defaults are left out
    assert repr(Guard()) == "Guard(dialect='postgres', max_rows=1000)"
    approved = guard.check("SELECT name FROM artist")
    assert repr(approved) == (
        "Approved(sql='SELECT name FROM artist LIMIT 7', query_class='select', "
        "tables=['artist'], limit=7)"
    )
    with pytest.raises(Rejected) as info:
        guard.check("DELETE FROM t")
    assert repr(info.value).startswith("Rejected(code='statement_not_allowed', stage='validate'")
    assert repr(PolicyError("dialect", "bad")) == "PolicyError(field='dialect', message='bad')"


def test_guard_is_immutable() -> None:
    guard = Guard()
    with pytest.raises(AttributeError):
        guard.policy = {}  # type: ignore[misc]
    approved = guard.check("SELECT 1")
    with pytest.raises(AttributeError):
        approved.sql = "DROP TABLE x"  # type: ignore[misc]


def test_thread_pool_shares_one_guard() -> None:
    cases = [
        c
        for c in load_vectors()
        if policy_of(c) == {"dialect": c.get("dialect", "postgres")} and c.get("entry") != "mutation"
    ]
    assert cases
    guards = {d: Guard(dialect=d) for d in {c.get("dialect", "postgres") for c in cases}}
    work = [(guards[c.get("dialect", "postgres")], c["sql"], c["expect"]) for c in cases] * 5

    def run(item: tuple[Guard, str, dict[str, object]]) -> bool:
        guard, sql, expect = item
        return guard.verdict(sql) == expect

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(run, work))
    assert all(results)
    assert len(results) == len(work)

    guard = Guard(max_rows=3)
    sqls = [f"SELECT {i} FROM t{i}" for i in range(2000)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        checked = list(pool.map(lambda s: guard.check(s).sql, sqls))
    assert checked == [f"SELECT {i} FROM t{i} LIMIT 3" for i in range(2000)]


def test_policy_schema() -> None:
    schema = sqlgate.policy_schema()
    assert "properties" in schema
    assert "max_rows" in schema["properties"]


def test_gil_released_while_checking() -> None:
    """Another Python thread keeps running during one long check (the GIL is released)."""
    guard = Guard(max_sql_bytes=1 << 22, max_tokens=1 << 20)
    sql = "SELECT a FROM t WHERE a IN (" + ", ".join(str(i) for i in range(60000)) + ")"
    start = time.perf_counter()
    assert guard.verdict(sql)["allowed"] is True
    duration = time.perf_counter() - start

    done = threading.Event()
    started = threading.Event()

    def worker() -> None:
        started.set()
        guard.check(sql)
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait()
    gaps = []
    last = time.perf_counter()
    while not done.is_set():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    thread.join()
    # With the GIL held, this loop would stall for the whole check (`duration`).
    assert len(gaps) > 100
    assert max(gaps) < duration / 2, (max(gaps), duration)


def test_signature_defaults_match_core() -> None:
    """The documented defaults (text signature, stubs) are the core's."""
    params = inspect.signature(Guard).parameters
    policy = Guard().policy
    for name in ("dialect", "max_rows", "allow_explain", "max_sql_bytes", "max_depth",
                 "allow_system_catalogs", "max_tokens", "max_generated_bytes", "max_generated_rows",
                 "allow_unbounded_recursion"):
        assert params[name].default == policy[name], name
    for name in ("functions", "tables", "columns", "catalog", "writes"):
        assert params[name].default is None
    assert "writes" not in policy  # read-only unless a writes section is given


def test_policy_sections_read_strictly() -> None:
    """Sections are read by the rules of a JSON policy file, and the message says where the fault is."""
    with pytest.raises(PolicyError) as info:
        Guard(tables={"allow": [1]})
    assert info.value.field == "tables"
    assert info.value.message == "invalid type: integer `1`, expected a string at tables.allow[0]"
    with pytest.raises(PolicyError) as info:
        Guard(catalog={"tables": [{"name": "t", "columns": [{"nme": "a"}]}]})
    assert info.value.field == "catalog"
    assert info.value.message.endswith(" at catalog.tables[0].columns[0].nme")
    # A str is not a list of its characters: deny="secret" must not become deny s, e, c, ...
    with pytest.raises(PolicyError) as info:
        Guard(tables={"deny": "secret"})
    assert info.value.message.endswith("expected a sequence at tables.deny")
    with pytest.raises(PolicyError) as info:
        Guard(tables=["secret"])
    assert info.value.message.endswith(" at tables[0]")
    with pytest.raises(PolicyError) as info:
        Guard.from_policy({"allow_explain": "yes"})
    assert info.value.field == "allow_explain"
    assert Guard(tables={"deny": ("secret",)}).policy["tables"]["deny"] == ["secret"]


def test_policy_numbers_json_cannot_hold_are_refused() -> None:
    """NaN is not null: read as null, max_rows would mean no row cap at all."""
    with pytest.raises(PolicyError) as info:
        Guard.from_policy({"max_rows": float("nan")})
    assert info.value.field == "max_rows"
    assert "NaN" in info.value.message
    with pytest.raises(PolicyError) as info:
        Guard(catalog={"tables": [{"name": "t", "schema": float("inf")}]})
    assert info.value.field == "catalog"
    assert info.value.message.endswith(" at catalog.tables[0].schema")
    with pytest.raises(TypeError):
        Guard(tables={"deny": [object()]})
