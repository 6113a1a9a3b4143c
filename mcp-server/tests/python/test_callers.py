"""What a caller can name beyond its session (issue 39), one test per case, against the server
of ``tenancy.py``: an approval is bound to the tool it approved; every ``tools/call`` leaves an
audit record, a call to a tool that does not exist or is hidden from the caller included; the
lists a caller is served are private to it (cache hints); the ``Host`` header is parsed, not
matched; a connection trickling its headers is cut off, and their number bounded, while an
honest client is served; quotas are counted per subject. The honest client is the official
Python SDK, the hostile one raw HTTP; each test reads the demo database and the audit log
before and after, and ``audit verify`` passes on every log."""
import asyncio
import json
import socket
import time

import httpx2

from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sdk import err, sc
from tenancy import (INITIALIZE, META_2026 as META, Tenancy, call_2026, raw_call, raw_session,
                     sse_message)
from test_mutations import Approver

UPDATE_10 = "UPDATE orders SET status = 'cancelled' WHERE id = 10"
ACCEPT = {"approval": {"action": "accept", "content": {"approve": True}}}
READERS = """
[[principals]]
name = "readers"
match = { org_role = "reader" }
mode = "read_only"
"""


def serving(tmp_path, **kwargs):
    """The server, stopped and its audit log verified at the end."""
    t = Tenancy(tmp_path, **kwargs)

    class Served:
        def __enter__(self):
            return t

        def __exit__(self, *exc):
            t.stop()
            t.verify()

    return Served()


def test_an_approval_is_bound_to_its_tool(tmp_path):
    """On a stateless server (2026-07-28, `input_required`), the state sealed for run_mutations'
    one statement does not approve run_mutation of that statement, nor the reverse
    (`approval_state_mismatch`, nothing committed); the form names the tool; the SDK's own
    retry of each call commits it."""
    with serving(tmp_path, extra="stateless = true") as t:
        alice = t.token("alice", 1)
        before_db, before = t.fingerprint(), t.records()
        asked = {}
        for tool, args in [("run_mutation", {"sql": UPDATE_10}),
                           ("run_mutations", {"statements": [UPDATE_10]})]:
            r = call_2026(t, alice, tool, args)["result"]
            assert r["resultType"] == "input_required", r
            form = r["inputRequests"]["approval"]["params"]
            assert tool in form["message"] and tool in form["requestedSchema"]["title"], form
            asked[tool] = r["requestState"]
        for tool, args, other in [("run_mutation", {"sql": UPDATE_10}, "run_mutations"),
                                  ("run_mutations", {"statements": [UPDATE_10]}, "run_mutation")]:
            r = call_2026(t, alice, tool, args, state=asked[other], responses=ACCEPT)["result"]
            assert r["isError"] and r["structuredContent"]["code"] == "approval_state_mismatch", r
            assert "other mutation tool" in r["structuredContent"]["message"], r
        assert t.fingerprint() == before_db
        new = t.new_records(before)
        mismatched = [x for x in new if x.get("code") == "approval_state_mismatch"]
        assert sorted(x["tool"] for x in mismatched) == ["run_mutation", "run_mutations"]
        assert all("committed_rows" not in x for x in new)

        async def honest():
            async with create_mcp_http_client(headers={"Authorization": f"Bearer {alice}"}) as http:
                transport = streamable_http_client(t.url, http_client=http)
                async with Client(transport, mode="2026-07-28",
                                  elicitation_callback=Approver()) as client:
                    return await client.call_tool("run_mutation", {"sql": UPDATE_10})

        r = asyncio.run(honest())
        assert not err(r) and sc(r)["affected_rows"] == 1, sc(r)
        assert [o for o in t.fingerprint()["orders"] if o[0] == 10][0][3] == "cancelled"


def test_every_tool_call_is_audited(tmp_path):
    """A tool that does not exist, one this caller's mode hides, one its token's scopes hide,
    and arguments the tool cannot take: each answered as before (JSON-RPC's "tool not found",
    a tool error), each with a record and its code; nothing runs."""
    with serving(tmp_path, principal_extra=READERS) as t:
        alice, reader = t.token("alice", 1), t.token("rita", 1, role="reader")
        narrow = t.token("nina", 1, scope="sql:read")
        before_db, before = t.fingerprint(), t.records()
        sid = raw_session(t, alice)
        missing = raw_call(t, alice, sid, "drop_everything", {"sql": "DROP TABLE orders"})
        assert missing["error"]["code"] == -32602, missing
        # approval_status exists with an external approver only.
        hidden = raw_call(t, alice, sid, "approval_status", {"approval_request_id": "x"})
        assert hidden["error"] == missing["error"], (hidden, missing)
        bad_args = raw_call(t, alice, sid, "run_query", {"query": "SELECT 1"})
        assert bad_args["result"]["isError"], bad_args
        rsid = raw_session(t, reader)
        by_mode = raw_call(t, reader, rsid, "run_mutation", {"sql": UPDATE_10})
        assert by_mode["error"] == missing["error"], by_mode
        nsid = raw_session(t, narrow)
        by_scope = raw_call(t, narrow, nsid, "run_mutation", {"sql": UPDATE_10})
        assert by_scope["result"]["structuredContent"]["code"] == "insufficient_scope", by_scope
        assert t.fingerprint() == before_db
        got = [(x["tool"], x["code"], x["auth_subject"], x["decision"])
               for x in t.new_records(before)]
        assert got == [("drop_everything", "tool_not_found", "alice", "refuse"),
                       ("approval_status", "tool_not_available", "alice", "refuse"),
                       ("run_query", "bad_request", "alice", "refuse"),
                       ("run_mutation", "tool_not_available", "rita", "refuse"),
                       ("run_mutation", "insufficient_scope", "nina", "refuse")], got
        assert t.records()[-5]["session_id"] == sid


def test_lists_served_to_a_caller_are_private(tmp_path):
    """On 2026-07-28, tools/list and prompts/list carry cache hints: a verified caller's lists
    depend on its principal (a read_only principal has no run_mutation), so they are `private`,
    never `public` for a shared cache to hand to another principal."""
    with serving(tmp_path, principal_extra=READERS) as t:
        before = t.records()
        lists = {}
        for who, token in [("tenant", t.token("alice", 1)),
                           ("reader", t.token("rita", 1, role="reader"))]:
            for method in ["tools/list", "prompts/list"]:
                body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": META}}
                headers = t.headers(token, **{"Mcp-Protocol-Version": "2026-07-28",
                                              "Mcp-Method": method})
                r = httpx2.post(t.url, json=body, headers=headers, timeout=30)
                lists[who, method] = sse_message(r.text)["result"]
        for (who, method), result in lists.items():
            assert result.get("cacheScope") == "private", (who, method, result)
        names = {who: {x["name"] for x in lists[who, "tools/list"]["tools"]}
                 for who in ["tenant", "reader"]}
        assert "run_mutation" in names["tenant"] and "run_mutation" not in names["reader"]
        assert t.new_records(before) == []


def http_request(port, host_lines, body=b"", token=None):
    """One raw HTTP/1.1 request with these Host lines (none when empty); the status line."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        head = "POST /mcp HTTP/1.1\r\n" + "".join(f"Host: {h}\r\n" for h in host_lines)
        head += f"Authorization: Bearer {token}\r\n" if token else ""
        head += ("Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        s.sendall(head.encode() + body)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return data.split(b"\r\n", 1)[0].decode()


def test_the_host_header_is_parsed(tmp_path):
    """With a valid token, `Host: evil.example@127.0.0.1:PORT` (userinfo), a path in it, two
    Host lines or none are 400 before anything else reads the request; `evil.example` alone is
    still the DNS rebinding check's 403; the loopback host is served."""
    with serving(tmp_path) as t:
        before_db, before = t.fingerprint(), t.records()
        body, token, p = json.dumps(INITIALIZE).encode(), t.token("alice", 1), t.port
        for hosts in [[f"evil.example@127.0.0.1:{p}"], [f"127.0.0.1:{p}/mcp"],
                      [f"127.0.0.1:{p}", f"127.0.0.1:{p}"], [], [f"127.0.0.1 :{p}"]]:
            assert http_request(p, hosts, body, token) == "HTTP/1.1 400 Bad Request", hosts
        rebinding = http_request(p, ["evil.example"], body, token)
        assert rebinding.startswith("HTTP/1.1 403"), rebinding
        assert http_request(p, [f"127.0.0.1:{p}"], body, token) == "HTTP/1.1 200 OK"
        assert (t.fingerprint(), t.records()) == (before_db, before)


def trickle(port, count):
    """`count` connections that send the start of a request and then one byte at a time."""
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        s.setblocking(False)
        socks.append(s)
    return socks


def open_ones(socks):
    """The connections the server has not closed (a read gives neither EOF nor an error)."""
    alive = []
    for s in socks:
        try:
            s.send(b"a")
            if s.recv(1) == b"":
                continue
        except BlockingIOError:
            alive.append(s)
            continue
        except OSError:
            continue
    return alive


def test_slow_headers_are_cut_off_and_bounded(tmp_path):
    """With `header_read_timeout = "2s"` and `max_pending_connections = 8`: 30 connections
    trickling their headers leave 8 open (the oldest are closed to make room), the SDK
    is served meanwhile, and after the timeout none is left; nothing reached the audit log."""
    extra = 'header_read_timeout = "2s"\nmax_pending_connections = 8'
    with serving(tmp_path, extra=extra) as t:
        before = t.records()
        socks = trickle(t.port, 30)
        time.sleep(0.5)
        assert len(open_ones(socks)) == 8, "the 8 newest wait; the 22 oldest made room"

        async def honest():
            headers = {"Authorization": f"Bearer {t.token('alice', 1)}"}
            async with create_mcp_http_client(headers=headers) as http:
                async with streamable_http_client(t.url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        return await session.call_tool("run_query", {"sql": "SELECT 1 AS one"})

        r = asyncio.run(honest())
        assert not err(r) and sc(r)["rows"] == [{"one": 1}], sc(r)
        deadline = time.monotonic() + 20
        while open_ones(socks) and time.monotonic() < deadline:
            time.sleep(0.25)
        assert open_ones(socks) == [], "connections outlived the header-read timeout"
        for s in socks:
            s.close()
        assert [x["tool"] for x in t.new_records(before)] == ["run_query"]


def test_quotas_are_counted_per_subject(tmp_path):
    """One principal, `calls_per_minute = 3`: alice's fourth call is `quota_exceeded`; bob, a
    tenant of the same principal, is still served his own rows."""
    with serving(tmp_path, principal_extra="quota = { calls_per_minute = 3 }") as t:
        before = t.records()

        async def calls(token, n):
            headers = {"Authorization": f"Bearer {token}"}
            async with create_mcp_http_client(headers=headers) as http:
                async with streamable_http_client(t.url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        return [await session.call_tool(
                            "run_query", {"sql": "SELECT DISTINCT customer_id FROM orders"})
                            for _ in range(n)]

        alice = asyncio.run(calls(t.token("alice", 1), 4))
        assert [err(r) for r in alice] == [False, False, False, True]
        assert sc(alice[3])["code"] == "quota_exceeded", sc(alice[3])
        bob = asyncio.run(calls(t.token("bob", 2), 3))
        assert [sc(r)["rows"] for r in bob] == [[{"customer_id": 2}]] * 3
        codes = [(x["auth_subject"], x["code"]) for x in t.new_records(before)]
        assert codes == [("alice", None)] * 3 + [("alice", "quota_exceeded")] + [("bob", None)] * 3
