"""Tenant isolation by token, the tokens issued by a real authorization server (oidc-provider,
see ``oidc.py``): one principal serves every tenant, its row filters bound to the ``org_id``
claim of each request's token. Two clients of the provider, whose tokens carry ``org_id`` 1 and
12, each see exactly the rows a direct query of the database (as a superuser, ``WHERE
customer_id = <tenant>``) returns for their tenant, over one server and its one connection pool
(SQLite Chinook and PostgreSQL Chinook); on PostgreSQL also exactly the rows its row-level
security returns for the same SQL (the oracle of core's row_filters_rls.rs: equivalent policies
created in a transaction that is rolled back); a session opened with one tenant's token is, to the
other's, a session that does not exist (404); 100 concurrent sessions alternating the two tokens
never see the other tenant's rows; and the audit names each call's token issuer, subject and
client, never the token."""
import asyncio
import json
import re
import sqlite3
import subprocess

from mcp.shared._httpx_utils import create_mcp_http_client

from oidc import ACCEPT, INITIALIZE, SECRET, Provider, Sqlgate, rsa_key, sdk_session, sqlgate_address
from sdk import chinook_url, psql_bin
from test_principals import Names, canon, chinook_sqlite, query, with_session

TENANTS = {"acme-agent": 1, "globex-agent": 12}


def config_text(db_url, dialect, q, issuer, resource, audit):
    """One principal for every customer agent; its tenant is the token's `org_id`."""
    return f"""
database_url = "{db_url}"
audit_file = "{audit}"

[policy]
dialect = "{dialect}"
max_rows = 1000

[oauth]
issuer = "{issuer}"
resource = "{resource}"

[[principals]]
name = "customer-agents"
match = {{ org_role = "customer-agent" }}
vars = {{ tenant = {{ claim = "org_id", type = "integer" }} }}

[principals.policy.rows]
{q.invoice} = "{q.customer_id} = :tenant"
{q.customer} = "{q.customer_id} = :tenant"
{q.invoice_line} = "{q.invoice_id} IN (SELECT {q.invoice_id} FROM {q.invoice} WHERE {q.customer_id} = :tenant)"
"""


def start(tmp_path, db_url, dialect, q):
    """The provider with both tenants' clients, and sqlgate trusting it."""
    port, url = sqlgate_address()
    jwk, _ = rsa_key("k1")
    clients = [{"client_id": c, "client_secret": SECRET,
                "token_claims": {"org_role": "customer-agent", "org_id": t}}
               for c, t in TENANTS.items()]
    provider = Provider(tmp_path, [jwk], clients, [url])
    try:
        return provider, Sqlgate(tmp_path, port, config_text(db_url, dialect, q, provider.url,
                                                             url, tmp_path / "audit.jsonl"))
    except BaseException:
        provider.stop()
        raise


def check_tenants(provider, sqlgate, q, direct, rls=None):
    """Each client, through the SDK's own OAuth client, sees exactly its tenant's rows; and,
    given `rls(sql, tenant)`, exactly what row-level security returns for the same SQL."""
    for client_id, tenant in TENANTS.items():
        sql = {
            "invoice": f"SELECT {q.invoice_id}, {q.customer_id}, {q.total} FROM {q.invoice}",
            "customer": f"SELECT {q.customer_id}, {q.first_name} FROM {q.customer}",
            "line": f"SELECT {q.invoice_line_id}, {q.invoice_id} FROM {q.invoice_line}",
            "join": f"SELECT l.{q.invoice_line_id}, c.{q.first_name} FROM {q.invoice_line} l "
                    f"JOIN {q.invoice} i ON i.{q.invoice_id} = l.{q.invoice_id} JOIN "
                    f"{q.customer} c ON c.{q.customer_id} = i.{q.customer_id}",
            # A WHERE naming the other tenant changes nothing.
            "other": f"SELECT count(*) AS n FROM {q.invoice} WHERE {q.customer_id} <> {tenant}",
        }

        async def body(session):
            return {k: await query(session, text) for k, text in sql.items()}

        got = asyncio.run(sdk_session(sqlgate.url, provider.url, client_id, "sql:read", body))
        if rls:
            for k, text in sql.items():
                assert canon(got[k]) == canon(rls(text, tenant)), (client_id, k)
        want = {
            "invoice": direct(f"SELECT {q.invoice_id}, {q.customer_id}, {q.total} FROM "
                              f"{q.invoice} WHERE {q.customer_id} = {tenant}"),
            "customer": direct(f"SELECT {q.customer_id}, {q.first_name} FROM {q.customer} "
                               f"WHERE {q.customer_id} = {tenant}"),
            "line": direct(f"SELECT l.{q.invoice_line_id}, l.{q.invoice_id} FROM "
                           f"{q.invoice_line} l JOIN {q.invoice} i ON "
                           f"i.{q.invoice_id} = l.{q.invoice_id} WHERE i.{q.customer_id} = {tenant}"),
            "join": direct(f"{sql['join']} WHERE i.{q.customer_id} = {tenant}"),
        }
        for k, rows in want.items():
            assert len(rows) > 0, (client_id, k)
            assert canon(got[k]) == canon(rows), (client_id, k)
        assert canon(got["other"]) == [("0",)], client_id


def sse_result(text):
    """The JSON-RPC result of a streamable HTTP response (SSE `data:` lines, or plain JSON)."""
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            message = json.loads(line[5:])
            if "result" in message or "error" in message:
                return message
    return json.loads(text)


def check_session_takes_no_tenant(sqlgate, q, tokens):
    """A session opened with acme's token, then used with globex's: the unknown session's 404
    (a session belongs to the caller who opened it); acme's token on it is served acme's rows."""
    acme = dict(ACCEPT, Authorization=f"Bearer {tokens['acme-agent']}")
    globex = dict(ACCEPT, Authorization=f"Bearer {tokens['globex-agent']}")
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "run_query",
                       "arguments": {"sql": f"SELECT {q.customer_id} FROM {q.invoice}"}}}

    async def main():
        async with create_mcp_http_client() as http:
            async with http.stream("POST", sqlgate.url, json=INITIALIZE, headers=acme) as r:
                assert r.status_code == 200
                session = r.headers["mcp-session-id"]
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            r = await http.post(sqlgate.url, json=note,
                                headers=dict(acme, **{"Mcp-Session-Id": session}))
            assert r.status_code == 202, r.status_code
            r = await http.post(sqlgate.url, json=call,
                                headers=dict(globex, **{"Mcp-Session-Id": session}))
            foreign = r.status_code, r.text
            r = await http.post(sqlgate.url, json=call,
                                headers=dict(acme, **{"Mcp-Session-Id": session}))
            return foreign, (r.status_code, r.text)

    foreign, (status, text) = asyncio.run(main())
    assert foreign == (404, "Not Found: Session not found"), foreign
    assert status == 200, (status, text)
    rows = sse_result(text)["result"]["structuredContent"]["rows"]
    assert rows and {int(r[q.customer_id]) for r in rows} == {TENANTS["acme-agent"]}, rows


def check_concurrent_sessions(sqlgate, q, tokens, counts):
    """100 sessions at once, alternating the two tokens: each asks for every invoice and sees
    exactly its tenant's (as many as the direct query counts)."""
    clients = list(TENANTS)

    async def one(i):
        client_id = clients[i % 2]

        async def body(session):
            return await query(session, f"SELECT {q.invoice_id}, {q.customer_id} FROM {q.invoice}")

        rows = await with_session(sqlgate.url, tokens[client_id], body)
        return client_id, {int(r[1]) for r in rows}, len(rows)

    async def main():
        return await asyncio.gather(*(one(i) for i in range(100)))

    results = asyncio.run(main())
    assert len(results) == 100
    for client_id, tenants, n in results:
        assert tenants == {TENANTS[client_id]}, (client_id, tenants)
        assert n == counts[client_id], (client_id, n)


def check_audit(path, issuer, tokens):
    """Every call's record names the principal, how it authenticated and the provider's token's
    issuer, subject and client (oidc-provider's client_credentials `sub` is the client); both
    clients are there; no token is."""
    log = path.read_text()
    records = [r for r in map(json.loads, log.splitlines()) if "tool" in r]
    assert records
    for r in records:
        assert (r["principal"], r["auth"], r["auth_issuer"]) == ("customer-agents", "jwt", issuer), r
        assert r["auth_client_id"] in TENANTS and r["auth_subject"] == r["auth_client_id"], r
    assert {r["auth_client_id"] for r in records} == set(TENANTS)
    for token in tokens.values():
        assert token not in log


def run_all(tmp_path, db_url, dialect, q, direct, rls=None):
    provider, sqlgate = start(tmp_path, db_url, dialect, q)
    try:
        check_tenants(provider, sqlgate, q, direct, rls)
        tokens = {c: provider.token(c, sqlgate.url) for c in TENANTS}
        check_session_takes_no_tenant(sqlgate, q, tokens)
        counts = {c: len(direct(f"SELECT 1 FROM {q.invoice} WHERE {q.customer_id} = {t}"))
                  for c, t in TENANTS.items()}
        check_concurrent_sessions(sqlgate, q, tokens, counts)
        check_audit(tmp_path / "audit.jsonl", provider.url, tokens)
        # Two tokens from the SDK's flows, two for the rest: the provider issued nothing else.
        assert len(provider.issued()) == 4, provider.issued()
    finally:
        sqlgate.stop()
        provider.stop()


def test_sqlite_tenants_by_token(tmp_path):
    db = chinook_sqlite()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        run_all(tmp_path, f"sqlite:{db}", "sqlite", Names(snake=False),
                lambda sql: conn.execute(sql).fetchall())
    finally:
        conn.close()


# The row filters as RLS policies for a role of this test's own; created, used and dropped in one
# transaction (ROLLBACK), so nothing outlives it and no other test sees them.
RLS = """
BEGIN;
CREATE ROLE sqlgate_rls_oidc;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO sqlgate_rls_oidc;
CREATE POLICY sqlgate_rls_oidc ON customer FOR SELECT TO sqlgate_rls_oidc
  USING (customer_id = current_setting('sqlgate.tenant')::int);
CREATE POLICY sqlgate_rls_oidc ON invoice FOR SELECT TO sqlgate_rls_oidc
  USING (customer_id = current_setting('sqlgate.tenant')::int);
CREATE POLICY sqlgate_rls_oidc ON invoice_line FOR SELECT TO sqlgate_rls_oidc
  USING (invoice_id IN (SELECT invoice_id FROM invoice
                        WHERE customer_id = current_setting('sqlgate.tenant')::int));
ALTER TABLE customer ENABLE ROW LEVEL SECURITY;
ALTER TABLE invoice ENABLE ROW LEVEL SECURITY;
ALTER TABLE invoice_line ENABLE ROW LEVEL SECURITY;
SET LOCAL sqlgate.tenant = '{tenant}';
SET LOCAL ROLE sqlgate_rls_oidc;
{sql};
ROLLBACK;
"""


def psql_rows(url, script):
    out = subprocess.run([psql_bin(), url, "-q", "-v", "ON_ERROR_STOP=1", "-AtF", "\t", "-f", "-"],
                         input=script, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    # numeric totals: compare as numbers with two decimals, like the server's JSON numbers.
    return [tuple(float(v) if re.fullmatch(r"-?\d+\.\d+", v) else v for v in r) for r in rows]


def test_postgres_tenants_by_token(tmp_path):
    url = chinook_url()
    # The superuser's view: no filter, the tenant named in the WHERE; and the RLS role's view of
    # the very SQL the agent sent.
    run_all(tmp_path, url, "postgres", Names(snake=True), lambda sql: psql_rows(url, sql + ";"),
            lambda sql, tenant: psql_rows(url, RLS.format(tenant=tenant, sql=sql)))
