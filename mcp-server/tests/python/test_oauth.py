"""OAuth with the official MCP Python SDK's own OAuth client: given only the server's URL, the
SDK's ``ClientCredentialsOAuthProvider`` gets a 401, reads the protected resource metadata it
names, finds the authorization server, gets a token for this resource (RFC 8707 ``resource``)
and is served. The authorization server is a stand-in on loopback that signs RS256 JWTs with a
key generated for the test and counts its token requests."""
import asyncio
import json
import re
import socket
import threading
import time
from base64 import b64decode
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import httpx2
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import ClientSession
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sdk import Memory, err, sc, serve_config

CLIENT_ID, CLIENT_SECRET = "report-agent", "agent-secret-31f0"


class Issuer:
    """Authorization server metadata, a JWKS and a client_credentials token endpoint."""

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = {"keys": [dict(jwk, kid="k1", alg="RS256", use="sig")]}
        self.token_requests = []
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path in ("/.well-known/oauth-authorization-server",
                                 "/.well-known/openid-configuration"):
                    self.reply(200, issuer.metadata())
                elif self.path == "/jwks":
                    self.reply(200, issuer.jwks)
                else:
                    self.reply(404, {"error": "not_found"})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                basic = self.headers.get("Authorization", "")
                who = b64decode(basic[6:]).decode() if basic.startswith("Basic ") else ""
                issuer.token_requests.append(form)
                if self.path != "/token" or form.get("grant_type") != "client_credentials" \
                        or who != f"{CLIENT_ID}:{CLIENT_SECRET}":
                    self.reply(401, {"error": "invalid_client"})
                    return
                self.reply(200, {"access_token": issuer.token(form), "token_type": "Bearer",
                                 "expires_in": 3600, "scope": form.get("scope", "")})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def metadata(self):
        return {"issuer": self.url, "authorization_endpoint": f"{self.url}/authorize",
                "token_endpoint": f"{self.url}/token", "jwks_uri": f"{self.url}/jwks",
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "response_types_supported": ["code"]}

    def token(self, form):
        now = int(time.time())
        claims = {"iss": self.url, "aud": form.get("resource", ""), "sub": CLIENT_ID,
                  "client_id": CLIENT_ID, "scope": form.get("scope", ""), "iat": now,
                  "exp": now + 3600}
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "k1"})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(tmp_path, issuer):
    """The demo database behind [oauth] (no principals: every verified token), on a port chosen
    beforehand so that the resource URL is the server's own."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    config = tmp_path / "sqlgate.toml"
    config.write_text(f'demo = true\n[oauth]\nissuer = "{issuer.url}"\nresource = "{url}"\n')
    return serve_config(config, port), url


def test_the_sdk_finds_the_issuer_from_the_401_and_is_served(tmp_path):
    issuer = Issuer()
    proc, url = serve(tmp_path, issuer)
    try:
        # Without a token: 401, naming the metadata; the metadata names the issuer.
        r = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                   "params": {}},
                        headers={"Accept": "application/json, text/event-stream"})
        assert r.status_code == 401
        m = re.search(r'resource_metadata="([^"]+)"', r.headers["www-authenticate"])
        assert m, r.headers["www-authenticate"]
        prm = httpx2.get(m.group(1)).json()
        assert prm["resource"] == url and prm["authorization_servers"] == [issuer.url], prm

        async def main():
            provider = ClientCredentialsOAuthProvider(
                server_url=url, storage=Memory(), client_id=CLIENT_ID,
                client_secret=CLIENT_SECRET, scope="sql:read", issuer=issuer.url)
            async with create_mcp_http_client(auth=provider) as http:
                async with streamable_http_client(url, http_client=http) as streams:
                    async with ClientSession(streams[0], streams[1]) as session:
                        await session.initialize()
                        tools = [t.name for t in (await session.list_tools()).tools]
                        assert "run_query" in tools, tools
                        r = await session.call_tool(
                            "run_query", {"sql": "SELECT count(*) AS n FROM orders"})
                        assert not err(r), sc(r)
                        return sc(r)["rows"][0]["n"]

        assert asyncio.run(main()) > 0
        assert len(issuer.token_requests) == 1, issuer.token_requests
        assert issuer.token_requests[0].get("resource") == url, issuer.token_requests
    finally:
        proc.terminate()
        proc.wait(timeout=10)
