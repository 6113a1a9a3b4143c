"""sqlgate-mcp as an OAuth 2.1 resource server of a real authorization server: the npm package
``oidc-provider`` (a certified OpenID Provider), started on loopback by the test, issues JWT
access tokens by client_credentials for sqlgate's resource (RFC 8707), and sqlgate finds its keys
through the provider's discovery document. The official Python SDK's
``ClientCredentialsOAuthProvider``, given only sqlgate's URL, finds the provider from the 401 and
is served. Every token that must not be served, issued by the provider or forged from its tokens
with its key or another, is refused with its exact status and ``WWW-Authenticate``; and when the
provider rotates its signing key, sqlgate reloads its keys on the new ``kid`` and refuses the key
rotated out. Tenant isolation by token: ``test_oidc_tenants.py``."""
import asyncio
import base64
import hashlib
import hmac
import json
import socket
import time

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from oidc import (INITIALIZE, SECRET, Provider, Sqlgate, ec_key, rsa_key, sdk_session,
                  sqlgate_address)
from sdk import err, sc


def test_the_sdk_finds_oidc_provider_from_the_401_and_is_served(tmp_path):
    port, url = sqlgate_address()
    jwk, _ = rsa_key("k1")
    provider = Provider(tmp_path, [jwk], [
        {"client_id": "report-agent", "client_secret": SECRET, "resource_scope": "sql:read"},
        {"client_id": "writer-agent", "client_secret": SECRET}], [url])
    sqlgate = None
    try:
        sqlgate = Sqlgate(tmp_path, port, f'demo = true\nmode = "safe"\n[oauth]\n'
                                          f'issuer = "{provider.url}"\nresource = "{url}"\n')
        # Without a token: 401 naming the metadata; the metadata names the provider.
        status, www, _ = sqlgate.post(None)
        assert status == 401
        assert www == f'Bearer resource_metadata="{sqlgate.metadata}"'
        prm = httpx2.get(sqlgate.metadata).json()
        assert prm["resource"] == url and prm["authorization_servers"] == [provider.url], prm

        async def body(session):
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            r = await session.call_tool("run_query", {"sql": "SELECT count(*) AS n FROM orders"})
            assert not err(r), sc(r)
            return tools, sc(r)["rows"][0]["n"]

        # A client granted only sql:read is served read-only; one granted sql:write too gets
        # run_mutation.
        reader, n = asyncio.run(sdk_session(url, provider.url, "report-agent",
                                            "sql:read sql:write", body))
        assert n > 0
        assert "run_query" in reader and "run_mutation" not in reader, reader
        writer, _ = asyncio.run(sdk_session(url, provider.url, "writer-agent",
                                            "sql:read sql:write", body))
        assert sorted(set(writer) - set(reader)) == ["run_mutation", "run_mutations"], (reader, writer)
        # One token each, asked of the provider for sqlgate's resource.
        assert provider.issued() == [
            {"client_id": "report-agent", "resource": url, "scope": "sql:read"},
            {"client_id": "writer-agent", "resource": url, "scope": "sql:read sql:write"}]
    finally:
        if sqlgate:
            sqlgate.stop()
        provider.stop()


def test_the_sdk_gets_a_new_token_when_its_token_expires(tmp_path):
    """A session outlives its 1 s token: refused with `401 invalid_token` ("the token has
    expired"), the SDK's OAuth client asks the provider for a new one and the session goes on."""
    port, url = sqlgate_address()
    jwk, _ = rsa_key("k1")
    provider = Provider(tmp_path, [jwk], [{"client_id": "report-agent", "client_secret": SECRET,
                                           "access_token_ttl": 1}], [url])
    sqlgate = None
    try:
        sqlgate = Sqlgate(tmp_path, port, f'demo = true\n[oauth]\nissuer = "{provider.url}"\n'
                                          f'resource = "{url}"\nleeway = "1s"\n')

        async def body(session):
            counts = []
            for _ in range(2):
                r = await session.call_tool("run_query", {"sql": "SELECT count(*) AS n FROM orders"})
                assert not err(r), sc(r)
                counts.append(sc(r)["rows"][0]["n"])
                await asyncio.sleep(3)  # past exp and the leeway
            return counts

        counts = asyncio.run(sdk_session(url, provider.url, "report-agent", "sql:read", body))
        assert counts[0] == counts[1] > 0
        assert len(provider.issued()) >= 2, provider.issued()
    finally:
        if sqlgate:
            sqlgate.stop()
        provider.stop()


def test_es256_tokens_of_the_provider_are_served(tmp_path):
    """The provider signing with an EC P-256 key (ES256): its JWKS read, its tokens served."""
    port, url = sqlgate_address()
    jwk, _ = ec_key("ec-1")
    provider = Provider(tmp_path, [jwk], [{"client_id": "report-agent", "client_secret": SECRET}],
                        [url], options={"access_token_alg": "ES256"})
    sqlgate = None
    try:
        sqlgate = Sqlgate(tmp_path, port, f'demo = true\n[oauth]\nissuer = "{provider.url}"\n'
                                          f'resource = "{url}"\n')
        token = provider.token("report-agent", url)
        assert parts(token)[0] == {"alg": "ES256", "typ": "at+jwt", "kid": "ec-1"}
        assert sqlgate.post(token)[:2] == (200, None)
        tampered = token[:-4] + ("AAAA" if token[-4:] != "AAAA" else "BBBB")
        assert sqlgate.post(tampered)[:2] == (401, (
            'Bearer error="invalid_token", error_description="the token\'s signature does not '
            f'verify", resource_metadata="{sqlgate.metadata}"'))
    finally:
        if sqlgate:
            sqlgate.stop()
        provider.stop()


# ---------- refusals: one server, one provider, a test per token ----------

ANALYST = {"org_role": "analyst", "org_id": 1}
CLIENTS = [
    {"client_id": "tenant-1", "token_claims": ANALYST},
    {"client_id": "short-lived", "token_claims": ANALYST, "access_token_ttl": 1},
    {"client_id": "writer-only", "token_claims": ANALYST, "resource_scope": "sql:write"},
    {"client_id": "no-tenant", "token_claims": {"org_role": "analyst"}},
    {"client_id": "string-tenant", "token_claims": {"org_role": "analyst", "org_id": "1"}},
    {"client_id": "intern", "token_claims": {"org_role": "intern", "org_id": 1}},
]


class Served:
    """sqlgate trusting `provider`; `impostor`, another issuer holding the same key."""

    def __init__(self, tmp_path):
        port, self.url = sqlgate_address()
        self.other_resource = f"http://127.0.0.1:{port}/other"
        self.jwk, self.key = rsa_key("k1")
        clients = [dict(c, client_secret=SECRET) for c in CLIENTS]
        self.provider = Provider(tmp_path, [self.jwk], clients, [self.url, self.other_resource])
        self.impostor = Provider(tmp_path, [self.jwk], clients, [self.url])
        self.sqlgate = Sqlgate(tmp_path, port, f"""
demo = true
[oauth]
issuer = "{self.provider.url}"
resource = "{self.url}"
leeway = "1s"

[[principals]]
name = "analyst"
match = {{ org_role = "analyst" }}
vars = {{ tenant = {{ claim = "org_id", type = "integer" }} }}
policy = {{ rows = {{ orders = "customer_id = :tenant" }} }}
""")

    def token(self, client_id, resource=None):
        return self.provider.token(client_id, resource or self.url)

    def stop(self):
        self.sqlgate.stop()
        self.provider.stop()
        self.impostor.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    s = None
    try:
        s = Served(tmp_path_factory.mktemp("oidc"))
        yield s
    finally:
        if s:
            s.stop()


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def parts(token):
    """A JWT's header and payload, decoded."""
    h, p, _ = token.split(".")
    pad = lambda s: s + "=" * (-len(s) % 4)
    return json.loads(base64.urlsafe_b64decode(pad(h))), json.loads(base64.urlsafe_b64decode(pad(p)))


def invalid(served, why):
    """`Bearer error="invalid_token", error_description="<why>", resource_metadata="..."`"""
    return (f'Bearer error="invalid_token", error_description="{why}", '
            f'resource_metadata="{served.sqlgate.metadata}"')


def test_a_token_of_the_provider_is_served(served):
    status, www, _ = served.sqlgate.post(served.token("tenant-1"))
    assert (status, www) == (200, None)
    header, claims = parts(served.token("tenant-1"))
    # What oidc-provider issues (RFC 9068): typ at+jwt, its kid, the resource as aud.
    assert header == {"alg": "RS256", "typ": "at+jwt", "kid": "k1"}, header
    assert (claims["iss"], claims["aud"], claims["scope"]) == (served.provider.url, served.url,
                                                              "sql:read")
    assert (claims["org_id"], claims["client_id"]) == (1, "tenant-1")


def test_a_401_leaves_the_connection_usable(served):
    """A 401 answered before the request's body arrived: the server closes the connection, and
    says so (`Connection: close`), so that a keep-alive client (the SDK's metadata GET that
    follows) opens a new one instead of failing on it."""
    port = int(served.url.split(":")[2].split("/")[0])
    body = json.dumps(INITIALIZE).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
        # As httpx sends it: the headers, then the body in a write of its own (here a moment
        # later, as it happens on a loaded machine).
        c.sendall(head.encode())
        time.sleep(0.2)
        c.sendall(body)
        first = c.recv(65536).decode()
        assert first.startswith("HTTP/1.1 401 "), first
        if "\r\nconnection: close\r\n" in first.lower():
            return  # announced: a client opens a new connection
        c.sendall(f"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\n"
                  f"Host: 127.0.0.1:{port}\r\n\r\n".encode())
        second = c.recv(65536).decode()
        assert second.startswith("HTTP/1.1 200 "), repr(second)


def test_no_token(served):
    status, www, _ = served.sqlgate.post(None)
    assert (status, www) == (401, f'Bearer resource_metadata="{served.sqlgate.metadata}"')


def test_expired(served):
    token = served.token("short-lived")
    assert parts(token)[1]["exp"] - parts(token)[1]["iat"] == 1
    time.sleep(3)  # past exp and the 1 s leeway
    status, www, body = served.sqlgate.post(token)
    assert (status, www) == (401, invalid(served, "the token has expired")), body


def test_not_yet_valid(served):
    _, claims = parts(served.token("tenant-1"))
    forged = jwt.encode(dict(claims, nbf=int(time.time()) + 600), served.key, algorithm="RS256",
                        headers={"kid": "k1", "typ": "at+jwt"})
    status, www, _ = served.sqlgate.post(forged)
    assert (status, www) == (401, invalid(served, "the token is not valid yet"))


def test_wrong_audience(served):
    token = served.token("tenant-1", served.other_resource)
    assert parts(token)[1]["aud"] == served.other_resource
    status, www, _ = served.sqlgate.post(token)
    assert (status, www) == (401, invalid(served, "the token is not for this resource (aud)"))


def test_wrong_issuer(served):
    # Another issuer signing with the very same key and kid.
    token = served.impostor.token("tenant-1", served.url)
    status, www, _ = served.sqlgate.post(token)
    assert (status, www) == (401, invalid(served, "the token was issued by another issuer"))


def test_unknown_kid(served):
    _, claims = parts(served.token("tenant-1"))
    _, other = rsa_key("k9")
    forged = jwt.encode(claims, other, algorithm="RS256", headers={"kid": "k9"})
    status, www, _ = served.sqlgate.post(forged)
    assert (status, www) == (401, invalid(served, "no signing key with kid `k9`"))


def test_tampered_payload(served):
    # Tenant 1's token made to say tenant 2, its signature kept.
    h, _, s = served.token("tenant-1").split(".")
    _, claims = parts(served.token("tenant-1"))
    payload = b64(json.dumps(dict(claims, org_id=2)).encode())
    status, www, _ = served.sqlgate.post(f"{h}.{payload}.{s}")
    assert (status, www) == (401, invalid(served, "the token's signature does not verify"))


def test_alg_none(served):
    _, claims = parts(served.token("tenant-1"))
    header = b64(json.dumps({"alg": "none", "typ": "at+jwt", "kid": "k1"}).encode())
    status, www, _ = served.sqlgate.post(f"{header}.{b64(json.dumps(claims).encode())}.")
    assert (status, www) == (401, invalid(served, "the bearer token is not a JWT"))


def test_hs256_signed_with_the_public_key(served):
    # The provider's own published key, as PEM, used as an HMAC secret.
    jwks = httpx2.get(f"{served.provider.url}/jwks").json()
    public = jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(jwks["keys"][0]))
    pem = public.public_bytes(serialization.Encoding.PEM,
                              serialization.PublicFormat.SubjectPublicKeyInfo)
    _, claims = parts(served.token("tenant-1"))
    signing_input = (b64(json.dumps({"alg": "HS256", "typ": "at+jwt", "kid": "k1"}).encode())
                     + "." + b64(json.dumps(claims).encode()))
    mac = hmac.new(pem, signing_input.encode(), hashlib.sha256).digest()
    status, www, _ = served.sqlgate.post(f"{signing_input}.{b64(mac)}")
    assert (status, www) == (401, invalid(served, "tokens signed with HS256 are not accepted"))


def test_missing_scope(served):
    token = served.token("writer-only")
    assert parts(token)[1].get("scope") is None  # sql:read asked, sql:write only granted
    status, www, _ = served.sqlgate.post(token)
    assert (status, www) == (403, 'Bearer error="insufficient_scope", scope="sql:read", '
                                  'error_description="the token lacks the scope `sql:read`", '
                                  f'resource_metadata="{served.sqlgate.metadata}"')


@pytest.mark.parametrize("client_id,why", [
    ("no-tenant", "the token has no claim `org_id`, which row-filter variable `tenant` is bound to"),
    ("string-tenant", "the token's claim `org_id` (for row-filter variable `tenant`) is a string, "
                      "not an integer"),
    ("intern", "no principal of this server serves this token's claims"),
])
def test_claims_that_bind_no_principal(served, client_id, why):
    status, www, body = served.sqlgate.post(served.token(client_id))
    # A verified token the server will not serve: 403 without a challenge (a new token from the
    # same client would not do better).
    assert (status, www) == (403, None), body
    assert body == {"error": "access_denied", "error_description": why}


# ---------- key rotation ----------

def test_key_rotation(tmp_path):
    """The provider restarted with a new signing key: sqlgate, on the first token naming it,
    reloads the provider's keys (at most once per `jwks_reload_interval`, here 1 s) and serves
    it; the key rotated out is refused from then on, a key kept published is not."""
    port, url = sqlgate_address()
    (k1, _), (k2, _), (k3, _) = rsa_key("k1"), rsa_key("k2"), rsa_key("k3")
    provider = Provider(tmp_path, [k1], [
        {"client_id": "tenant-1", "client_secret": SECRET, "token_claims": ANALYST}], [url])
    sqlgate = None
    try:
        sqlgate = Sqlgate(tmp_path, port, f"""
demo = true
[oauth]
issuer = "{provider.url}"
resource = "{url}"
jwks_reload_interval = "1s"

[[principals]]
name = "analyst"
match = {{ org_role = "analyst" }}
vars = {{ tenant = {{ claim = "org_id", type = "integer" }} }}
policy = {{ rows = {{ orders = "customer_id = :tenant" }} }}
""")
        refused = (f'Bearer error="invalid_token", error_description="no signing key with kid '
                   f'`k1`", resource_metadata="{sqlgate.metadata}"')

        def token(kid):
            t = provider.token("tenant-1", url)
            assert parts(t)[0]["kid"] == kid
            return t

        old = token("k1")
        assert sqlgate.post(old)[:2] == (200, None)

        # Rotated: the new key only. Its tokens are served after one reload; the old key's are
        # refused from then on (it is still within its exp).
        provider.restart([k2])
        new = token("k2")
        time.sleep(1.2)
        assert sqlgate.post(new)[:2] == (200, None)
        assert sqlgate.post(old)[:2] == (401, refused)

        # Rotated again, the previous key kept published: both served, the first still refused.
        provider.restart([k3, k2])
        newest = token("k3")
        time.sleep(1.2)
        assert sqlgate.post(newest)[:2] == (200, None)
        assert sqlgate.post(new)[:2] == (200, None)
        assert sqlgate.post(old)[:2] == (401, refused)
    finally:
        if sqlgate:
            sqlgate.stop()
        provider.stop()
