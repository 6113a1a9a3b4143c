"""Approvals on MCP 2026-07-28 with the official Python SDK's `Client`: against
`sqlgate-mcp serve --demo --mode safe --stateless`, run_mutation answers `input_required`; the SDK
asks its elicitation callback and retries with the answer and the sealed `requestState`, and the
server commits only then. The demo's temporary copy is fingerprinted directly (sqlite3)."""
import asyncio
import re
import sqlite3
import subprocess

import pytest
from mcp import Client

from sdk import BIN, err, sc
from test_mutations import Approver

UPDATE_7 = "UPDATE orders SET status = 'cancelled' WHERE id = 7"


def fingerprint(path):
    with sqlite3.connect(path) as c:
        return {t: sorted(c.execute(f"SELECT * FROM {t}").fetchall()) for t in ["orders", "order_lines"]}


@pytest.fixture()
def served():
    """`serve --demo --mode safe --stateless` over HTTP: (url, the demo copy's path)."""
    proc = subprocess.Popen([BIN, "serve", "--demo", "--mode", "safe", "--stateless", "--http",
                             "127.0.0.1:0", "--allow-unauthenticated"],
                            stderr=subprocess.PIPE, text=True)
    url = path = None
    for _ in range(100):
        line = proc.stderr.readline()
        path = path or (re.search(r"temporary copy: (\S+)", line) or [None, None])[1]
        m = re.search(r"listening on (http://\S+)", line)
        if m:
            url = m.group(1)
            break
    try:
        assert url and path, "the server reported neither its address nor the demo's copy"
        yield url, path
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def call(url, approver, sql, mode="2026-07-28"):
    async def main():
        async with Client(url, mode=mode, elicitation_callback=approver) as client:
            return await client.call_tool("run_mutation", {"sql": sql})
    return asyncio.run(main())


@pytest.mark.parametrize("mode", ["2026-07-28", "auto"])
def test_the_sdk_answers_input_required_and_the_mutation_commits(served, mode):
    url, path = served
    before = fingerprint(path)
    approver = Approver()
    r = call(url, approver, UPDATE_7, mode)
    assert not err(r), sc(r)
    assert (sc(r)["affected_rows"], sc(r)["decision"]) == (1, "needs_approval_accepted")
    [asked] = approver.asked
    assert UPDATE_7 in asked.message and "1 row would change" in asked.message
    after = fingerprint(path)
    assert after != before
    assert [o for o in after["orders"] if o[0] == 7][0][3] == "cancelled"


@pytest.mark.parametrize("action,approve,code", [("accept", False, "approval_declined"),
                                                 ("decline", None, "approval_declined"),
                                                 ("cancel", None, "approval_cancelled")])
def test_no_approval_changes_nothing(served, action, approve, code):
    url, path = served
    before = fingerprint(path)
    r = call(url, Approver(action, approve), UPDATE_7)
    assert err(r) and sc(r)["code"] == code, sc(r)
    assert fingerprint(path) == before


def test_data_changed_while_the_user_was_asked_commits_nothing(served):
    url, path = served
    delete = "DELETE FROM order_lines WHERE order_id = 7"

    def sneak():
        with sqlite3.connect(path) as c:
            c.execute("INSERT INTO order_lines VALUES (7, 99, 1, 1, 100)")

    approver = Approver(before=sneak)
    r = call(url, approver, delete)
    assert err(r) and sc(r)["code"] == "preview_mismatch", sc(r)
    after = fingerprint(path)
    assert (7, 99, 1, 1, 100) in after["order_lines"], "nothing deleted"


def test_a_session_era_client_on_a_stateless_server_is_told_at_once(served):
    """Before 2026-07-28 approval is an elicitation sent on the client's session; a stateless
    server has none to send it on: the client gets approval_unavailable at once (not after the
    approval timeout), naming the way out, and nothing changes."""
    url, path = served
    before = fingerprint(path)
    r = call(url, Approver(), UPDATE_7, mode="legacy")
    assert err(r) and sc(r)["code"] == "approval_unavailable", sc(r)
    assert "2026-07-28" in sc(r)["hint"], sc(r)
    assert fingerprint(path) == before


def test_a_swap_of_the_matching_row_while_the_user_was_asked_commits_nothing(served):
    """The same count is not the same rows: another connection moves the matching status from
    order 7 to order 8 while the user is asked; the retry's preview touches another row (the
    digest of the rows it touches differs) and nothing is committed."""
    url, path = served
    with sqlite3.connect(path) as c:
        c.execute("UPDATE orders SET status = 'flagged' WHERE id = 7")
    swapped = {}

    def swap():
        with sqlite3.connect(path) as c:
            c.execute("UPDATE orders SET status = 'pending' WHERE id = 7")
            c.execute("UPDATE orders SET status = 'flagged' WHERE id = 8")
        swapped["db"] = fingerprint(path)

    sql = "UPDATE orders SET status = 'cancelled' WHERE status = 'flagged'"
    r = call(url, Approver(before=swap), sql)
    assert err(r) and sc(r)["code"] == "preview_mismatch", sc(r)
    assert sc(r)["status"] == "failed"
    assert fingerprint(path) == swapped["db"], "order 8 was not the one approved"


def call_batch(url, approver, statements):
    async def main():
        async with Client(url, mode="2026-07-28", elicitation_callback=approver) as client:
            return await client.call_tool("run_mutations", {"statements": statements})
    return asyncio.run(main())


DELETE_LINES_8 = "DELETE FROM order_lines WHERE order_id = 8"


def test_a_batch_is_approved_once_and_commits_whole(served):
    url, path = served
    before = fingerprint(path)
    approver = Approver()
    r = call_batch(url, approver, [UPDATE_7, DELETE_LINES_8])
    assert not err(r), sc(r)
    out = sc(r)
    lines = len([l for l in before["order_lines"] if l[0] == 8])
    assert (out["status"], out["statement_count"]) == ("committed", 2)
    assert [s["affected_rows"] for s in out["statements"]] == [1, lines]
    assert out["affected_rows"] == 1 + lines and out["approval_wait_ms"] >= 0
    [asked] = approver.asked
    assert "2 statements in one transaction" in asked.message
    assert UPDATE_7 in asked.message and DELETE_LINES_8 in asked.message
    after = fingerprint(path)
    assert [o for o in after["orders"] if o[0] == 7][0][3] == "cancelled"
    assert not [l for l in after["order_lines"] if l[0] == 8]


def test_a_declined_or_failing_batch_changes_nothing(served):
    url, path = served
    before = fingerprint(path)
    r = call_batch(url, Approver("decline"), [UPDATE_7, DELETE_LINES_8])
    assert err(r) and sc(r)["code"] == "approval_declined" and sc(r)["status"] == "rejected", sc(r)
    assert fingerprint(path) == before
    # The third statement fails on the engine (a duplicate key): the first two do not commit.
    dup = "INSERT INTO order_lines (order_id, line_no, product_id, quantity, unit_price_cents) VALUES (7, 98, 1, 1, 100)"
    r = call_batch(url, Approver(), [UPDATE_7, dup, dup])
    assert err(r) and sc(r)["message"].startswith("statement 3 of 3"), sc(r)
    assert fingerprint(path) == before
