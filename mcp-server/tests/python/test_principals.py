"""Principals over streamable HTTP with the official MCP Python SDK: two API keys with different
tenants (Chinook customers 1 and 12) and policies against the same database (SQLite Chinook and
PostgreSQL Chinook) each see exactly their own rows, compared with a direct query of the database
as a superuser (`WHERE customer_id = <tenant>`); a session is bound to its principal; and 50
concurrent sessions alternating principals never see another tenant's row."""
import asyncio
import os
import re
import sqlite3
import subprocess
import threading
from pathlib import Path

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sdk import BIN, chinook_url, err, psql_bin, sc

REPO = Path(__file__).resolve().parents[3]
TOKENS = {"acme-support": "acme-9f1c2b-token", "globex-billing": "globex-77ad01-token"}
TENANTS = {"acme-support": 1, "globex-billing": 12}


# ---------- the two databases, named as each spells them ----------

class Names:
    def __init__(self, snake):
        n = (lambda s: s) if snake else (lambda s: "".join(p.capitalize() for p in s.split("_")))
        self.invoice, self.customer, self.invoice_line = n("invoice"), n("customer"), n("invoice_line")
        self.employee = n("employee")
        self.invoice_id, self.customer_id = n("invoice_id"), n("customer_id")
        self.invoice_line_id, self.total = n("invoice_line_id"), n("total")
        self.first_name, self.email = n("first_name"), n("email")


def config_text(url, dialect, names):
    """The server's policy filters invoice, customer and invoice_line by `:tenant`; each principal
    adds its own narrowing: acme-support may not read employee emails, globex-billing may not
    read employees at all and gets a lower row cap. (Core refuses a row filter on a table with
    protected columns, so the columns denied here are of an unfiltered table.)"""
    q = names
    rows = (
        f'{q.invoice} = "{q.customer_id} = :tenant"\n'
        f'{q.customer} = "{q.customer_id} = :tenant"\n'
        f'{q.invoice_line} = "{q.invoice_id} IN (SELECT {q.invoice_id} FROM {q.invoice} '
        f'WHERE {q.customer_id} = :tenant)"\n'
    )
    return f"""
database_url = "{url}"

[policy]
dialect = "{dialect}"
max_rows = 1000

[policy.rows]
{rows}
[[principals]]
name = "acme-support"
token_env = "SQLGATE_TOKEN_ACME"
vars = {{ tenant = {TENANTS["acme-support"]} }}
policy = {{ columns = {{ deny = ["{q.employee}.{q.email}"] }} }}

[[principals]]
name = "globex-billing"
token_env = "SQLGATE_TOKEN_GLOBEX"
vars = {{ tenant = {TENANTS["globex-billing"]} }}
policy = {{ max_rows = 500, tables = {{ deny = ["{q.employee}"] }} }}
"""


class Server:
    """`sqlgate-mcp serve --config CONFIG --http 127.0.0.1:0` with both tokens set."""

    def __init__(self, config_path):
        env = dict(os.environ, SQLGATE_TOKEN_ACME=TOKENS["acme-support"],
                   SQLGATE_TOKEN_GLOBEX=TOKENS["globex-billing"])
        env.pop("SQLGATE_DATABASE_URL", None)
        self.proc = subprocess.Popen([BIN, "serve", "--config", str(config_path), "--http",
                                      "127.0.0.1:0"], env=env, stderr=subprocess.PIPE, text=True)
        self.stderr = []
        self.url = None
        for _ in range(200):
            line = self.proc.stderr.readline()
            if not line:
                break
            self.stderr.append(line)
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                self.url = m.group(1)
                break
        assert self.url, "server did not start:\n" + "".join(self.stderr)
        threading.Thread(target=lambda: [self.stderr.append(l) for l in self.proc.stderr],
                         daemon=True).start()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def with_session(url, token, body):
    headers = {"Authorization": f"Bearer {token}"}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return await body(session)


async def query(session, sql):
    """The rows of `sql` as tuples in the result's column order."""
    r = await session.call_tool("run_query", {"sql": sql})
    assert not err(r), sc(r)
    out = sc(r)
    assert out["truncated"] is False
    cols = [c["name"] for c in out["columns"]]
    return [tuple(row[c] for c in cols) for row in out["rows"]]


def canon(rows):
    """Rows as sorted tuples of strings: the server's JSON and the driver's values compare."""
    out = []
    for vals in rows:
        out.append(tuple("" if v is None else f"{float(v):.2f}" if isinstance(v, float)
                         else str(v) for v in vals))
    return sorted(out)


def check_principals(server, names, direct):
    """Each principal sees exactly the rows `direct(sql)` returns for its tenant."""
    q = names
    for principal, tenant in TENANTS.items():
        token = TOKENS[principal]

        async def body(session):
            info = sc(await session.call_tool("server_info", {}))
            assert info["principal"] == principal
            tables = sc(await session.call_tool("list_tables", {}))["tables"]
            listed = {t["name"]: t["row_filtered"] for t in tables}
            for t in (q.invoice, q.customer, q.invoice_line):
                assert listed[t] is True, (principal, listed)
            assert (q.employee in listed) == (principal == "acme-support"), listed
            got = {
                "invoice": await query(session, f"SELECT {q.invoice_id}, {q.customer_id}, {q.total} "
                                                f"FROM {q.invoice}"),
                "customer": await query(session, f"SELECT {q.customer_id}, {q.first_name} "
                                                 f"FROM {q.customer}"),
                "line": await query(session, f"SELECT {q.invoice_line_id}, {q.invoice_id} "
                                             f"FROM {q.invoice_line}"),
                # A join and a WHERE naming the other tenant change nothing.
                "join": await query(session, f"SELECT i.{q.invoice_id}, c.{q.customer_id} FROM "
                                             f"{q.invoice} i JOIN {q.customer} c ON "
                                             f"c.{q.customer_id} = i.{q.customer_id}"),
                "other": await query(session, f"SELECT count(*) AS n FROM {q.invoice} WHERE "
                                              f"{q.customer_id} <> {tenant}"),
            }
            got["email"] = await query(session, f"SELECT {q.email} FROM {q.customer}")
            r = await session.call_tool("run_query", {"sql": f"SELECT {q.email} FROM {q.employee}"})
            employee_email = sc(r)["code"] if err(r) else "allowed"
            r = await session.call_tool("run_query", {"sql": f"SELECT count(*) AS n FROM {q.employee}"})
            employee = sc(r)["code"] if err(r) else "allowed"
            return got, employee_email, employee

        got, employee_email, employee = asyncio.run(with_session(server.url, token, body))
        want = {
            "invoice": direct(f"SELECT {q.invoice_id}, {q.customer_id}, {q.total} FROM {q.invoice} "
                              f"WHERE {q.customer_id} = {tenant}"),
            "customer": direct(f"SELECT {q.customer_id}, {q.first_name} FROM {q.customer} "
                               f"WHERE {q.customer_id} = {tenant}"),
            "line": direct(f"SELECT l.{q.invoice_line_id}, l.{q.invoice_id} FROM {q.invoice_line} l "
                           f"JOIN {q.invoice} i ON i.{q.invoice_id} = l.{q.invoice_id} "
                           f"WHERE i.{q.customer_id} = {tenant}"),
            "join": direct(f"SELECT {q.invoice_id}, {q.customer_id} FROM {q.invoice} "
                           f"WHERE {q.customer_id} = {tenant}"),
            "email": direct(f"SELECT {q.email} FROM {q.customer} WHERE {q.customer_id} = {tenant}"),
        }
        for k, rows in want.items():
            assert len(rows) > 0, (principal, k)
            assert canon(got[k]) == canon(rows), (principal, k)
        assert canon(got["other"]) == [("0",)], principal
        if principal == "acme-support":
            assert (employee_email, employee) == ("column_not_allowed", "allowed")
        else:
            assert employee_email in ("table_not_allowed", "unknown_table"), employee_email
            assert employee in ("table_not_allowed", "unknown_table"), employee


def check_tokens_and_sessions(server):
    """Unknown tokens get 401; a session id opened by one principal is refused with another's
    token (the SDK's own HTTP client, raw requests)."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}

    async def main():
        for auth in [None, "Bearer wrong", "Bearer " + TOKENS["acme-support"][:-1],
                     TOKENS["acme-support"]]:
            headers = dict(accept, **({"Authorization": auth} if auth else {}))
            # A connection each: a 401 is sent without reading the body, and the server may
            # close the connection after it.
            async with create_mcp_http_client() as http:
                r = await http.post(server.url, json=init, headers=headers)
                assert r.status_code == 401, auth
        async with create_mcp_http_client() as http:
            acme = dict(accept, Authorization="Bearer " + TOKENS["acme-support"])
            globex = dict(accept, Authorization="Bearer " + TOKENS["globex-billing"])
            async with http.stream("POST", server.url, json=init, headers=acme) as r:
                assert r.status_code == 200
                session = r.headers["mcp-session-id"]
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            r = await http.post(server.url, json=note,
                                headers=dict(acme, **{"Mcp-Session-Id": session}))
            assert r.status_code == 202, r.status_code
            listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
            r = await http.post(server.url, json=listing,
                                headers=dict(globex, **{"Mcp-Session-Id": session}))
            assert r.status_code == 404, r.status_code

    asyncio.run(main())


def check_concurrent_sessions(server, names, counts):
    """50 sessions at once, alternating principals: each asks for every invoice and sees exactly
    its tenant's (as many as the direct query counts)."""
    q = names
    principals = list(TENANTS)

    async def one(i):
        principal = principals[i % 2]

        async def body(session):
            return await query(session, f"SELECT {q.invoice_id}, {q.customer_id} FROM {q.invoice}")

        rows = await with_session(server.url, TOKENS[principal], body)
        tenants = {int(r[1]) for r in rows}
        return principal, tenants, len(rows)

    async def main():
        return await asyncio.gather(*(one(i) for i in range(50)))

    results = asyncio.run(main())
    assert len(results) == 50
    for principal, tenants, n in results:
        assert tenants == {TENANTS[principal]}, (principal, tenants)
        assert n == counts[principal], (principal, n)


# ---------- SQLite: Chinook's own file ----------

def chinook_sqlite():
    """The repository's Chinook file (tests/fixtures/chinook); the server opens it read-only."""
    return REPO / "tests" / "fixtures" / "chinook" / "Chinook_Sqlite.sqlite"


def test_sqlite_principals(tmp_path):
    db = chinook_sqlite()
    names = Names(snake=False)
    config = tmp_path / "sqlgate.toml"
    config.write_text(config_text(f"sqlite:{db}", "sqlite", names))
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def direct(sql):
        return conn.execute(sql).fetchall()

    server = Server(config)
    try:
        check_principals(server, names, direct)
        check_tokens_and_sessions(server)
        counts = {p: len(direct(f"SELECT 1 FROM Invoice WHERE CustomerId = {t}"))
                  for p, t in TENANTS.items()}
        check_concurrent_sessions(server, names, counts)
    finally:
        server.stop()
        conn.close()


# ---------- PostgreSQL: the Chinook database of scripts/pg-cluster.sh ----------

def test_postgres_principals(tmp_path):
    url = chinook_url()
    names = Names(snake=True)
    config = tmp_path / "sqlgate.toml"
    config.write_text(config_text(url, "postgres", names))

    def direct(sql):
        # The superuser's view: no filter, the tenant named in the WHERE.
        out = subprocess.run([psql_bin(), url, "-v", "ON_ERROR_STOP=1", "-AtF", "\t", "-c", sql],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        rows = [line.split("\t") for line in out.stdout.splitlines()]
        # numeric totals: compare as numbers with two decimals, like the server's JSON numbers.
        return [tuple(float(v) if re.fullmatch(r"-?\d+\.\d+", v) else v for v in r) for r in rows]

    server = Server(config)
    try:
        check_principals(server, names, direct)
        check_tokens_and_sessions(server)
        counts = {p: len(direct(f"SELECT 1 FROM invoice WHERE customer_id = {t}"))
                  for p, t in TENANTS.items()}
        check_concurrent_sessions(server, names, counts)
    finally:
        server.stop()
