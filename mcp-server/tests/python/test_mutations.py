"""Governed writes through the official MCP Python SDK: run_mutation's preview, the user's approval
over elicitation (accept, decline, cancel, a client without elicitation), preview_mismatch, the
max_affected_rows bound, and read_only mode; on the SQLite demo and on PostgreSQL (Chinook).

The database is fingerprinted directly (sqlite3 on the demo's temporary copy, psql on a copy of
Chinook), never through the server under test."""
import asyncio
import os
import sqlite3
import subprocess
import tempfile
import uuid

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from sdk import BIN, attr, chinook_url, demo_fingerprint, demo_path, err, psql_bin, sc


class Approver:
    """An elicitation callback that answers `action` (and records what it was asked)."""

    def __init__(self, action="accept", approve=True, before=None):
        self.action, self.approve, self.before = action, approve, before
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params)
        if self.before:
            self.before()
        content = {"approve": self.approve} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)


async def session_run(args, approver, body, errlog):
    params = StdioServerParameters(command=BIN, args=args)
    async with stdio_client(params, errlog=errlog) as (read, write):
        kwargs = {"elicitation_callback": approver} if approver else {}
        async with ClientSession(read, write, **kwargs) as session:
            await session.initialize()
            return await body(session)


def serve(args, approver, body):
    """Runs `body(session)` against `sqlgate-mcp serve ARGS`; returns (result, server stderr)."""
    with tempfile.TemporaryFile(mode="w+") as errlog:
        result = asyncio.run(session_run(args, approver, body, errlog))
        errlog.seek(0)
        return result, errlog.read()


# ---------- SQLite demo ----------

def demo_orders(path):
    with sqlite3.connect(path) as c:
        return {r[0]: r[1:] for r in c.execute("SELECT id, customer_id, ordered_at, status FROM orders")}


UPDATE_7 = "UPDATE orders SET status = 'cancelled' WHERE id = 7"


def run_demo(mode, approver, sql, sneak=None, setup=None):
    """Calls run_mutation once (`sql` a string) or run_mutations (`sql` a list) on a fresh demo;
    returns (result, fingerprint before, after). `setup(path)` runs first, `sneak(path)` inside
    the elicitation callback, both through a second connection."""
    async def main(errlog):
        params = StdioServerParameters(command=BIN, args=["serve", "--demo", "--mode", mode])
        async with stdio_client(params, errlog=errlog) as (read, write):
            kwargs = {"elicitation_callback": approver} if approver else {}
            async with ClientSession(read, write, **kwargs) as session:
                await session.initialize()
                errlog.flush()
                path = demo_path(open(errlog.name).read())
                if sneak:
                    approver.before = lambda: sneak(path)
                if setup:
                    setup(path)
                before = demo_fingerprint(path)
                if isinstance(sql, list):
                    r = await session.call_tool("run_mutations", {"statements": sql})
                else:
                    r = await session.call_tool("run_mutation", {"sql": sql})
                return r, before, demo_fingerprint(path)

    with tempfile.NamedTemporaryFile(mode="w+", suffix=".log") as errlog:
        return asyncio.run(main(errlog))


def test_demo_accept_commits_exactly_the_previewed_row():
    approver = Approver("accept")
    r, before, after = run_demo("safe", approver, UPDATE_7)
    assert not err(r), sc(r)
    out = sc(r)
    assert out["affected_rows"] == 1 and out["decision"] == "needs_approval_accepted"
    assert out["query_class"] == "mutation_create"
    assert len(approver.asked) == 1
    p = approver.asked[0]
    msg = p.message
    for part in ["run_mutation", "mutation_create", "orders", "1 row would change", out["executed_sql"]]:
        assert part in msg, (part, msg)
    schema = attr(p, "requested_schema", "requestedSchema")
    assert list(schema["properties"]) == ["approve"]
    assert schema["properties"]["approve"]["type"] == "boolean"
    changed = {t for t in before if before[t] != after[t]}
    assert changed == {"orders"}
    diff_before = set(before["orders"]) - set(after["orders"])
    diff_after = set(after["orders"]) - set(before["orders"])
    assert [row[0] for row in diff_before] == [7] and [row[0] for row in diff_after] == [7]
    assert list(diff_after)[0][3] == "cancelled"


def test_demo_a_batch_is_approved_once_in_the_session_and_commits_whole():
    approver = Approver("accept")
    batch = [UPDATE_7, "DELETE FROM order_lines WHERE order_id = 8"]
    r, before, after = run_demo("safe", approver, batch)
    assert not err(r), sc(r)
    out = sc(r)
    lines = len([l for l in before["order_lines"] if l[0] == 8])
    assert (out["status"], out["statement_count"], out["affected_rows"]) == ("committed", 2, 1 + lines)
    [asked] = approver.asked
    assert "2 statements in one transaction" in asked.message
    assert not [l for l in after["order_lines"] if l[0] == 8]
    r, before, after = run_demo("safe", Approver("decline"), batch)
    assert err(r) and sc(r)["status"] == "rejected" and before == after, sc(r)


def test_demo_a_swap_of_the_matching_row_during_the_approval_commits_nothing():
    """Same count, other row: another connection moves the matching status from order 7 to
    order 8 while the user is asked; the commit touches another row and is refused."""
    def flag(path):
        with sqlite3.connect(path) as c:
            c.execute("UPDATE orders SET status = 'flagged' WHERE id = 7")

    def swap(path):
        with sqlite3.connect(path) as c:
            c.execute("UPDATE orders SET status = 'pending' WHERE id = 7")
            c.execute("UPDATE orders SET status = 'flagged' WHERE id = 8")

    sql = "UPDATE orders SET status = 'cancelled' WHERE status = 'flagged'"
    r, before, after = run_demo("safe", Approver("accept"), sql, sneak=swap, setup=flag)
    assert err(r) and sc(r)["code"] == "preview_mismatch", sc(r)
    assert "other rows" in sc(r)["message"]
    assert "cancelled" not in {o[3] for o in after["orders"] if o[0] in (7, 8)}


@pytest.mark.parametrize("action,approve,code", [
    ("decline", None, "approval_declined"),
    ("cancel", None, "approval_cancelled"),
    ("accept", False, "approval_declined"),
])
def test_demo_no_approval_changes_nothing(action, approve, code):
    approver = Approver(action, approve)
    r, before, after = run_demo("safe", approver, UPDATE_7)
    assert err(r) and sc(r)["code"] == code, sc(r)
    assert len(approver.asked) == 1
    assert before == after


def test_demo_client_without_elicitation_is_refused_with_an_operator_hint():
    r, before, after = run_demo("safe", None, UPDATE_7)
    assert err(r) and sc(r)["code"] == "approval_unavailable", sc(r)
    assert "elicitation" in sc(r)["hint"] and "full_access" in sc(r)["hint"]
    assert before == after


def test_demo_concurrent_change_gives_preview_mismatch_and_changes_nothing():
    sql = "UPDATE orders SET status = 'on_hold' WHERE status = 'shipped' AND customer_id = 5"

    def sneak(path):
        with sqlite3.connect(path) as c:
            c.execute("UPDATE orders SET status = 'shipped', customer_id = 5 WHERE id = 8")
    approver = Approver("accept")
    r, first, after = run_demo("safe", approver, sql, sneak=sneak)
    assert err(r) and sc(r)["code"] == "preview_mismatch", sc(r)
    assert sc(r)["retryable"] is True
    # Only the concurrent change is there; nothing of the mutation.
    assert after["orders"] != first["orders"]
    assert not any(row[3] == "on_hold" for row in after["orders"])
    expected = {row[0]: row for row in first["orders"]}
    expected[8] = (8, 5, expected[8][2], "shipped")
    assert {row[0]: row for row in after["orders"]} == expected


def test_demo_too_many_rows_is_refused_before_asking():
    approver = Approver("accept")
    r, before, after = run_demo("safe", approver, "UPDATE orders SET status = 'lost' WHERE id > 0")
    assert err(r) and sc(r)["code"] == "too_many_rows", sc(r)
    assert approver.asked == []
    assert before == after


def test_demo_delete_safe_asks_only_for_deletes_and_full_access_never():
    approver = Approver("decline")
    r, before, after = run_demo("delete_safe", approver, UPDATE_7)
    assert not err(r) and sc(r)["decision"] == "allow" and approver.asked == []
    r, before, after = run_demo("delete_safe", approver, "DELETE FROM order_lines WHERE order_id = 7")
    assert err(r) and sc(r)["code"] == "approval_declined" and len(approver.asked) == 1
    assert before == after
    r, before, after = run_demo("full_access", None, "DELETE FROM order_lines WHERE order_id = 7")
    assert not err(r) and sc(r)["decision"] == "allow", sc(r)
    assert len(before["order_lines"]) - len(after["order_lines"]) == sc(r)["affected_rows"] > 0


def test_tools_and_run_query_by_mode():
    async def body(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        refused = await session.call_tool("run_query", {"sql": UPDATE_7})
        return tools, refused, None

    (tools, refused, _), _ = serve(["serve", "--demo"], Approver(), body)
    assert "run_mutation" not in tools
    assert err(refused) and "run_mutation" not in (sc(refused)["hint"] or "")
    (tools, refused, _), _ = serve(["serve", "--demo", "--mode", "safe"], Approver(), body)
    t = tools["run_mutation"]
    a = t.annotations
    assert attr(a, "read_only_hint", "readOnlyHint") is False
    assert attr(a, "destructive_hint", "destructiveHint") is True
    assert attr(a, "idempotent_hint", "idempotentHint") is False
    assert attr(a, "open_world_hint", "openWorldHint") is False
    assert attr(t, "output_schema", "outputSchema") is not None
    assert err(refused) and "run_mutation" in sc(refused)["hint"]


def test_read_only_refuses_every_mutation():
    async def body(session):
        results = []
        for sql in [UPDATE_7, "DELETE FROM orders WHERE id = 7", "INSERT INTO orders VALUES (999, 1, 'x', 'y')"]:
            results.append(await session.call_tool("run_query", {"sql": sql}))
            # read_only has no run_mutation: the call fails at the protocol level.
            with pytest.raises(Exception, match="tool not found"):
                await session.call_tool("run_mutation", {"sql": sql})
        return results

    async def main():
        with tempfile.NamedTemporaryFile(mode="w+") as errlog:
            params = StdioServerParameters(command=BIN, args=["serve", "--demo"])
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, elicitation_callback=Approver()) as session:
                    await session.initialize()
                    return await body(session)
    results = asyncio.run(main())
    assert len(results) == 3
    for r in results:
        assert err(r) and sc(r)["code"] == "statement_not_allowed"
        assert "run_mutation" not in (sc(r)["hint"] or "")


# ---------- PostgreSQL (a copy of Chinook) ----------

def psql(url, sql):
    out = subprocess.run([psql_bin(), url, "-v", "ON_ERROR_STOP=1", "-Atc", sql],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def with_db(url, db):
    base, _, query = url.partition("?")
    head, _, _ = base.rpartition("/")
    return f"{head}/{db}" + (f"?{query}" if query else "")


@pytest.fixture()
def pg_copy(tmp_path):
    url = chinook_url()
    name = "sqlgate_mut_" + uuid.uuid4().hex[:8]
    psql(with_db(url, "postgres"), f"CREATE DATABASE {name} TEMPLATE chinook")
    policy = tmp_path / "policy.toml"
    policy.write_text(
        'dialect = "postgres"\nmax_rows = 100\n[writes]\ntables = ["genre", "playlist_track"]\n'
        'classes = ["mutation_create", "mutation_delete"]\nmax_affected_rows = 100\n')
    try:
        yield with_db(url, name), str(policy)
    finally:
        psql(with_db(url, "postgres"), f"DROP DATABASE {name} WITH (FORCE)")


PG_TABLES = ["artist", "album", "employee", "customer", "invoice", "invoice_line", "track",
             "playlist", "playlist_track", "genre", "media_type"]


def pg_fingerprint(url):
    out = {}
    for t in PG_TABLES:
        rows = psql(url, f"SELECT x::text FROM {t} x ORDER BY 1").splitlines()
        out[t] = sorted(rows)
    return out


def pg_call(url, policy, mode, approver, sql):
    async def body(session):
        return await session.call_tool("run_mutation", {"sql": sql})
    args = ["serve", "--database-url", url, "--policy", policy, "--mode", mode]
    return serve(args, approver, body)


PG_UPDATE = "UPDATE genre SET name = name || ' (edited)' WHERE genre_id IN (1, 2) RETURNING genre_id, name"


def test_pg_accept_commits_exactly_the_previewed_rows(pg_copy):
    url, policy = pg_copy
    before = pg_fingerprint(url)
    approver = Approver("accept")
    (r, stderr) = pg_call(url, policy, "safe", approver, PG_UPDATE)
    assert not err(r), (sc(r), stderr)
    out = sc(r)
    assert out["affected_rows"] == 2 and out["decision"] == "needs_approval_accepted"
    assert sorted(x["genre_id"] for x in out["returning"]) == [1, 2]
    assert "2 rows would change" in approver.asked[0].message
    assert "superuser" in stderr  # the startup warning lists what the role can do beyond writes
    after = pg_fingerprint(url)
    assert {t for t in PG_TABLES if before[t] != after[t]} == {"genre"}
    added = set(after["genre"]) - set(before["genre"])
    removed = set(before["genre"]) - set(after["genre"])
    assert len(added) == len(removed) == 2
    assert all(" (edited)" in row for row in added)


@pytest.mark.parametrize("action,code", [("decline", "approval_declined"), ("cancel", "approval_cancelled"),
                                         (None, "approval_unavailable")])
def test_pg_without_approval_nothing_changes(pg_copy, action, code):
    url, policy = pg_copy
    before = pg_fingerprint(url)
    approver = Approver(action) if action else None
    (r, stderr) = pg_call(url, policy, "safe", approver, PG_UPDATE)
    assert err(r) and sc(r)["code"] == code, (sc(r), stderr)
    assert pg_fingerprint(url) == before


def test_pg_concurrent_change_gives_preview_mismatch(pg_copy):
    url, policy = pg_copy
    before = pg_fingerprint(url)
    sneak = "INSERT INTO genre (genre_id, name) VALUES (1000, 'Rap')"
    approver = Approver("accept", before=lambda: psql(url, sneak))
    sql = "UPDATE genre SET name = name || '!' WHERE name LIKE 'R%'"
    (r, stderr) = pg_call(url, policy, "safe", approver, sql)
    assert err(r) and sc(r)["code"] == "preview_mismatch", (sc(r), stderr)
    after = pg_fingerprint(url)
    assert set(after["genre"]) - set(before["genre"]) == {"(1000,Rap)"}
    assert set(before["genre"]) - set(after["genre"]) == set()
    assert {t for t in PG_TABLES if before[t] != after[t]} == {"genre"}


def test_pg_too_many_rows_refused_before_asking(pg_copy):
    url, policy = pg_copy
    before = pg_fingerprint(url)
    approver = Approver("accept")
    (r, stderr) = pg_call(url, policy, "safe", approver, "DELETE FROM playlist_track WHERE playlist_id = 1")
    assert err(r) and sc(r)["code"] == "too_many_rows", (sc(r), stderr)
    assert approver.asked == []
    assert pg_fingerprint(url) == before


def test_pg_write_mode_needs_writes_and_privileges(pg_copy):
    url, policy = pg_copy
    out = subprocess.run([BIN, "serve", "--database-url", url, "--mode", "safe"],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert out.returncode != 0 and "[writes]" in out.stderr
    ro = os.environ.get("SQLGATE_CHINOOK_RO_URL")
    if ro:
        ro_url = with_db(ro, url.rsplit("/", 1)[1])
        psql(url, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO sqlgate_ro")
        psql(with_db(url, "postgres"), f"GRANT CONNECT ON DATABASE {url.rsplit('/', 1)[1]} TO sqlgate_ro")
        out = subprocess.run([BIN, "serve", "--database-url", ro_url, "--policy", policy, "--mode", "safe"],
                             capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
        assert out.returncode != 0 and "lacks INSERT on public.genre" in out.stderr, out.stderr
