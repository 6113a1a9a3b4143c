"""Every streamable HTTP session belongs to the caller who opened it (issue 39). One claims
principal serves two tenants (``tenancy.py``); tenant 1 (``alice``, ``org_id`` 1) uses the
official Python SDK as an honest client, and a hostile caller with a valid token of its own and
alice's ``Mcp-Session-Id`` sends raw HTTP: an answer to alice's approval request, a tool call,
her event stream, the end of her session. Each is answered exactly as a session the server does
not know (404, same body), changes nothing in the database, and leaves an audit record naming
the caller who tried; ``audit verify`` passes on every log. "Another caller" is another subject,
the same subject bound to another tenant, and the same subject through another OAuth client."""
import asyncio
import contextlib

import httpx2
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sdk import err, sc
from tenancy import INITIALIZED, UNKNOWN_SESSION, Tenancy, orders_of, raw_session, sse_message

UPDATE_10 = "UPDATE orders SET status = 'cancelled' WHERE id = 10"  # an order of customer 1
JSON = {"Content-Type": "application/json"}


@pytest.fixture()
def tenancy(tmp_path):
    t = Tenancy(tmp_path)
    try:
        yield t
    finally:
        t.stop()
    t.verify()


@contextlib.asynccontextmanager
async def sdk(t, token, approver=None):
    """The SDK's session with `token`; yields (session, its Mcp-Session-Id)."""
    ids = []

    async def seen(response):
        sid = response.headers.get("mcp-session-id")
        if sid and not ids:
            ids.append(sid)

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        http.event_hooks = {"response": [seen]}
        async with streamable_http_client(t.url, http_client=http) as (read, write):
            kwargs = {"elicitation_callback": approver} if approver else {}
            async with ClientSession(read, write, **kwargs) as session:
                await session.initialize()
                yield session, ids[0]


async def raw(t, method, token, session, body=None):
    """One raw request; returns (status, body text)."""
    async with httpx2.AsyncClient(timeout=10) as http:
        headers = t.headers(token, session, **(JSON if body is not None else {}))
        r = await http.request(method, t.url, json=body, headers=headers)
        return r.status_code, r.text


def refusals(records, code):
    return [r for r in records if r["tool"] == "mcp_session" and r["code"] == code]


def test_another_callers_answer_to_an_approval_is_refused(tenancy):
    """alice runs a mutation in `safe` mode; while the server waits for her approval, mallory
    (tenant 2) posts `accept` under alice's request id on alice's session: 404 as for a session
    that does not exist; alice declines; nothing is committed."""
    t = tenancy
    alice, mallory = t.token("alice", 1), t.token("mallory", 2)
    before_db, before = t.fingerprint(), t.records()
    seen = {}

    async def approver(context, params):
        forged = {"jsonrpc": "2.0", "id": context.request_id,
                  "result": {"action": "accept", "content": {"approve": True}}}
        seen["forged"] = await raw(t, "POST", mallory, seen["session"], forged)
        seen["unknown"] = await raw(t, "POST", mallory, "no-such-session", forged)
        seen["message"] = params.message
        return types.ElicitResult(action="decline")

    async def main():
        async with sdk(t, alice, approver) as (session, sid):
            seen["session"] = sid
            return await session.call_tool("run_mutation", {"sql": UPDATE_10})

    r = asyncio.run(main())
    assert err(r) and sc(r)["code"] == "approval_declined", sc(r)
    assert seen["forged"] == seen["unknown"] == UNKNOWN_SESSION, seen
    assert "run_mutation" in seen["message"]
    assert t.fingerprint() == before_db
    new = t.new_records(before)
    [foreign] = refusals(new, "session_not_owned")
    assert (foreign["auth_subject"], foreign["session_id"]) == ("mallory", seen["session"])
    assert (foreign["http_method"], foreign["decision"]) == ("POST", "refuse")
    assert [r["session_id"] for r in refusals(new, "session_not_found")] == ["no-such-session"]
    [mutation] = [x for x in new if x["tool"] == "run_mutation"]
    assert mutation["decision"] == "needs_approval_declined"
    assert mutation["auth_subject"] == "alice" and "committed_rows" not in mutation


OTHERS = {
    "another subject": ("mallory", 2, "support-portal"),
    "the same subject in another tenant": ("alice", 2, "support-portal"),
    "the same subject through another client": ("alice", 1, "other-app"),
}


@pytest.mark.parametrize("who", list(OTHERS))
def test_another_caller_cannot_use_a_session(tenancy, who):
    """On alice's session another caller's tool call (a read and a write), notification, event
    stream (GET) and DELETE are all 404 like an unknown session's; alice's session still works
    after them; her rows, and only hers, come back to her."""
    t = tenancy
    sub, org, client = OTHERS[who]
    other = t.token(sub, org, client=client)
    alice = t.token("alice", 1)
    before_db, before = t.fingerprint(), t.records()
    read = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "run_query", "arguments": {"sql": "SELECT id FROM orders"}}}
    write = {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
             "params": {"name": "run_mutation", "arguments": {"sql": UPDATE_10}}}

    async def main():
        async with sdk(t, alice) as (session, sid):
            got = [await raw(t, "POST", other, sid, read), await raw(t, "POST", other, sid, write),
                   await raw(t, "POST", other, sid, INITIALIZED),
                   await raw(t, "GET", other, sid), await raw(t, "DELETE", other, sid)]
            mine = await session.call_tool("run_query", {"sql": "SELECT id, customer_id FROM orders"})
            return sid, got, mine

    sid, got, mine = asyncio.run(main())
    assert got == [UNKNOWN_SESSION] * 5, got
    assert not err(mine), sc(mine)
    rows = sc(mine)["rows"]
    assert sorted(r["id"] for r in rows) == sorted(o[0] for o in orders_of(before_db, 1)), rows
    assert t.fingerprint() == before_db
    new = t.new_records(before)
    foreign = refusals(new, "session_not_owned")
    assert [f["http_method"] for f in foreign] == ["POST", "POST", "POST", "GET", "DELETE"]
    assert all(f["session_id"] == sid and f["auth_subject"] == sub for f in foreign), foreign
    assert not [x for x in new if x["tool"] in ("run_mutation",)], "the write never ran"


def test_the_owner_ends_a_session_with_200_and_it_is_gone(tenancy):
    """The owner's DELETE ends the session with 200 (rmcp's 202 made the SDKs log every clean
    close as a failure); the session is then unknown to its owner too."""
    t = tenancy
    alice = t.token("alice", 1)
    read = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "run_query", "arguments": {"sql": "SELECT id FROM orders"}}}

    async def main():
        sid = raw_session(t, alice)
        ended = await raw(t, "DELETE", alice, sid)
        after = await raw(t, "POST", alice, sid, read)
        return ended, after

    (status, _), after = asyncio.run(main())
    assert status == 200, status
    assert after == UNKNOWN_SESSION, after


def test_an_answer_is_taken_only_for_a_request_still_waiting(tenancy):
    """On her own session, alice's client may answer only a request the server sent there and
    still waits for: an answer to an id never sent, or a second answer to one already answered,
    is refused (400, a JSON-RPC error), audited as `response_not_awaited`, and changes
    nothing."""
    t = tenancy
    alice = t.token("alice", 1)
    before_db, before = t.fingerprint(), t.records()
    seen = {}

    async def approver(context, params):
        seen["id"] = context.request_id
        stray = {"jsonrpc": "2.0", "id": context.request_id + 1000,
                 "result": {"action": "accept", "content": {"approve": True}}}
        seen["stray"] = await raw(t, "POST", alice, seen["session"], stray)
        return types.ElicitResult(action="decline")

    async def main():
        async with sdk(t, alice, approver) as (session, sid):
            seen["session"] = sid
            r = await session.call_tool("run_mutation", {"sql": UPDATE_10})
            again = {"jsonrpc": "2.0", "id": seen["id"],
                     "result": {"action": "accept", "content": {"approve": True}}}
            seen["again"] = await raw(t, "POST", alice, sid, again)
            return r

    r = asyncio.run(main())
    assert err(r) and sc(r)["code"] == "approval_declined", sc(r)
    for key in ["stray", "again"]:
        status, text = seen[key]
        assert status == 400, (key, status, text)
        assert sse_message(text)["error"]["code"] == -32600, text
    assert t.fingerprint() == before_db
    stray = refusals(t.new_records(before), "response_not_awaited")
    assert [s["call_id"] for s in stray] == [str(seen["id"] + 1000), str(seen["id"])], stray


def test_two_subjects_twenty_sessions_each_never_reach_each_other(tenancy):
    """Two subjects of the one claims principal open 20 sessions each (the SDK, concurrently);
    every session is tried by the other subject with every method (a tool call, a notification,
    a response, GET, DELETE): all 404. Each session then serves its owner its own tenant's rows
    only, and every attempt is in the audit log."""
    t = tenancy
    tokens = {"alice": t.token("alice", 1), "bob": t.token("bob", 2)}
    tenant = {"alice": 1, "bob": 2}
    before_db, before = t.fingerprint(), t.records()
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "run_query", "arguments": {"sql": "SELECT id FROM orders"}}}
    response = {"jsonrpc": "2.0", "id": 0, "result": {"action": "accept"}}

    async def one(i, ready, go):
        me = "alice" if i % 2 == 0 else "bob"
        other = tokens["bob" if me == "alice" else "alice"]
        async with sdk(t, tokens[me]) as (session, sid):
            ready.append(sid)
            await go.wait()
            tried = [await raw(t, "POST", other, sid, call),
                     await raw(t, "POST", other, sid, INITIALIZED),
                     await raw(t, "POST", other, sid, response),
                     await raw(t, "GET", other, sid), await raw(t, "DELETE", other, sid)]
            r = await session.call_tool("run_query", {"sql": "SELECT customer_id FROM orders"})
            return me, sid, tried, {row["customer_id"] for row in sc(r)["rows"]}

    async def main():
        ready, go = [], asyncio.Event()
        tasks = [asyncio.create_task(one(i, ready, go)) for i in range(40)]
        while len(ready) < 40 and not any(task.done() for task in tasks):
            await asyncio.sleep(0.05)
        go.set()  # every session is open: each is tried while the others are too
        return await asyncio.gather(*tasks)

    results = asyncio.run(main())
    assert len({sid for _, sid, _, _ in results}) == 40
    for me, sid, tried, customers in results:
        assert tried == [UNKNOWN_SESSION] * 5, (me, tried)
        assert customers == {tenant[me]}, (me, customers)
    assert t.fingerprint() == before_db
    foreign = refusals(t.new_records(before), "session_not_owned")
    assert len(foreign) == 40 * 5
    owner = {sid: me for me, sid, _, _ in results}
    assert all(owner[f["session_id"]] != f["auth_subject"] for f in foreign)
