"""Interop: the official MCP Python SDK drives sqlgate-mcp over stdio and streamable HTTP."""
import asyncio
import os
import re
import subprocess

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sdk import BIN, attr, err, sc


async def exercise(session: ClientSession) -> None:
    await session.initialize()
    tools = (await session.list_tools()).tools
    names = {t.name for t in tools}
    assert names == {"list_schemas", "list_tables", "describe_table", "validate_query", "run_query", "server_info"}
    for t in tools:
        assert attr(t, "output_schema", "outputSchema") is not None
        assert attr(t.annotations, "read_only_hint", "readOnlyHint") is True
        assert attr(t.annotations, "destructive_hint", "destructiveHint") is False
    r = await session.call_tool("list_tables", {})
    assert not err(r)
    assert [t["name"] for t in sc(r)["tables"]] == ["customers", "order_lines", "orders", "products"]
    r = await session.call_tool("describe_table", {"table": "customers"})
    assert any(c["name"] == "email" and c["protected"] for c in sc(r)["columns"])
    r = await session.call_tool("validate_query", {"sql": "SELECT name FROM products"})
    assert sc(r)["allowed"] is True
    r = await session.call_tool("server_info", {})
    info = sc(r)
    assert (info["database"], info["mode"], info["row_cap"]) == ("sqlite", "read_only", 100)
    r = await session.call_tool("run_query", {"sql": "SELECT name FROM products ORDER BY id"})
    assert not err(r)
    assert sc(r)["row_count"] == 24
    r = await session.call_tool("run_query", {"sql": "SELECT 1; DROP TABLE orders"})
    assert err(r)
    assert sc(r)["code"] == "multiple_statements"


def test_stdio():
    async def main():
        params = StdioServerParameters(command=BIN, args=["serve", "--demo"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await exercise(session)

    asyncio.run(main())


@pytest.mark.parametrize("stateless", [False, True])
def test_http(stateless):
    env = dict(os.environ, SQLGATE_TEST_TOKEN="interop-token")
    args = [BIN, "serve", "--demo", "--http", "127.0.0.1:0", "--auth-token-env", "SQLGATE_TEST_TOKEN"]
    if stateless:
        args.append("--stateless")
    proc = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for _ in range(100):
            line = proc.stderr.readline()
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                url = m.group(1)
                break
        assert url, "server did not report its address"

        async def main():
            headers = {"Authorization": "Bearer interop-token"}
            async with create_mcp_http_client(headers=headers) as http:
                async with streamable_http_client(url, http_client=http) as streams:
                    async with ClientSession(streams[0], streams[1]) as session:
                        await exercise(session)

        asyncio.run(main())
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_traceparent_from_the_sdk_becomes_the_audit_trace_id(tmp_path):
    """A W3C traceparent the Python SDK sends in a call's `_meta` is the trace id of the call's
    OTLP audit record (the audit log joins the client's trace)."""
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    traceparent = f"00-{trace_id}-00f067aa0ba902b7-01"
    audit = tmp_path / "audit.otlp.jsonl"

    async def main():
        args = ["serve", "--demo", "--audit-file", str(audit), "--audit-format", "otel"]
        params = StdioServerParameters(command=BIN, args=args)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                r = await session.call_tool(
                    "run_query", {"sql": "SELECT 1 AS one"}, meta={"traceparent": traceparent}
                )
                assert not err(r)
                r = await session.call_tool("run_query", {"sql": "SELECT 2 AS two"})
                assert not err(r)

    asyncio.run(main())
    import json

    records = [
        json.loads(line)["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]
        for line in audit.read_text().splitlines()
    ]
    calls = [r for r in records if r["body"]["stringValue"] == "execute_tool run_query"]
    assert len(calls) == 2
    assert calls[0]["traceId"] == trace_id
    # Without a traceparent: the process's own trace, not the client's.
    assert calls[1]["traceId"] != trace_id and len(calls[1]["traceId"]) == 32
