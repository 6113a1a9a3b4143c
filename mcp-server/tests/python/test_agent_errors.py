"""What an agent gets back when it cannot act: a placeholder it has no way to bind, and
arguments a tool does not take. Both are refusals like any other (``isError``, structured
content with a code and a hint), nothing runs, and each call leaves an audit record. The
official SDK is the client; the demo's SQLite copy is read directly before and after."""
import asyncio
import json
import sqlite3
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from sdk import BIN, demo_fingerprint, demo_path, err, sc


def session_on_demo(body, *args):
    """Runs `body(session, demo_path)` against `serve --demo ARGS` over stdio."""
    async def main(errlog):
        params = StdioServerParameters(command=BIN, args=["serve", "--demo", *args])
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                errlog.flush()
                # The demo names its temporary copy in the write modes only.
                path = demo_path(open(errlog.name).read()) if "--mode" in args else None
                return await body(session, path)

    with tempfile.NamedTemporaryFile(mode="w+", suffix=".log") as errlog:
        return asyncio.run(main(errlog))


# Every placeholder form SQLite binds; unbound, SQLite reads each as NULL and the count is 0.
PLACEHOLDERS = ["?", "?1", ":city", "@city", "$city"]


def test_a_placeholder_is_refused_where_nothing_binds_it(tmp_path):
    audit = tmp_path / "audit.jsonl"

    async def body(session, path):
        before = demo_fingerprint(path)
        with sqlite3.connect(path) as c:
            (city,) = c.execute("SELECT city FROM customers ORDER BY id LIMIT 1").fetchone()
        for p in PLACEHOLDERS:
            sql = f"SELECT count(*) AS n FROM customers WHERE city = {p}"
            r = await session.call_tool("run_query", {"sql": sql})
            assert err(r), (p, sc(r))
            out = sc(r)
            assert out["code"] == "unbound_parameter", (p, out)
            assert p in out["message"] and "literal" in out["hint"], (p, out)
            assert "rows" not in out
            v = await session.call_tool("validate_query", {"sql": sql})
            verdict = sc(v)
            assert verdict["allowed"] is False and verdict["error"]["code"] == "unbound_parameter", verdict
        # The hint's way out works: the value written as a literal.
        literal = city.replace("'", "''")
        r = await session.call_tool(
            "run_query", {"sql": f"SELECT count(*) AS n FROM customers WHERE city = '{literal}'"})
        assert not err(r), sc(r)
        assert sc(r)["rows"][0]["n"] >= 1
        # In a string or a comment, `?` and `:city` are text, not placeholders.
        r = await session.call_tool(
            "run_query", {"sql": "SELECT count(*) AS n FROM customers WHERE city <> '?:city' -- ?"})
        assert not err(r), sc(r)
        # A mutation cannot bind either: refused before any preview, nothing changes.
        r = await session.call_tool(
            "run_mutation", {"sql": "UPDATE orders SET status = ? WHERE id = 7"})
        assert err(r) and sc(r)["code"] == "unbound_parameter", sc(r)
        assert demo_fingerprint(path) == before

    session_on_demo(body, "--mode", "full_access", "--audit-file", str(audit))
    records = [r for r in map(json.loads, audit.read_text().splitlines()) if "tool" in r]
    codes = [(r["tool"], r.get("code")) for r in records]
    assert codes.count(("run_query", "unbound_parameter")) == len(PLACEHOLDERS), codes
    assert ("run_mutation", "unbound_parameter") in codes, codes


def test_arguments_a_tool_does_not_take_are_a_structured_refusal(tmp_path):
    audit = tmp_path / "audit.jsonl"

    async def body(session, _path):
        out = []
        for args in [{"query": "SELECT 1"}, {"sql": 42}, {"sql": "SELECT 1", "extra": True}]:
            r = await session.call_tool("run_query", args)
            out.append((args, err(r), sc(r)))
        return out

    results = session_on_demo(body, "--audit-file", str(audit))
    missing, wrong_type, extra = results
    for args, is_error, content in [missing, wrong_type]:
        assert is_error, (args, content)
        assert content["code"] == "bad_request", (args, content)
        assert content["message"].startswith("the arguments of `run_query` are not what it takes"), content
        assert '"sql": <string>' in content["hint"], content
    assert "sql" in missing[2]["message"]
    assert "invalid type" in wrong_type[2]["message"], wrong_type
    # An argument the tool does not know is ignored (its schema does not forbid more): the
    # query runs as sent.
    args, is_error, content = extra
    assert not is_error and content["row_count"] == 1, (args, content)
    records = [r for r in map(json.loads, audit.read_text().splitlines()) if "tool" in r]
    refused = [r for r in records if r["tool"] == "run_query" and r.get("code") == "bad_request"]
    assert len(refused) >= 2, records
