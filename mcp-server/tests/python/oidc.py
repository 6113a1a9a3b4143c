"""A real authorization server for the OAuth tests: the npm package ``oidc-provider`` run by
``mcp-server/tests/oidc/provider.mjs`` on loopback (discovery document, JWKS, JWT access tokens
by client_credentials for a resource, RFC 8707), and sqlgate-mcp started on an ``[oauth]`` config
that trusts it. Without node or the provider's ``npm ci``, a test skips, except under
``CI=true`` (a failure)."""
import json
import os
import queue
import re
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp import ClientSession
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client

from sdk import BIN, Memory

OIDC_DIR = Path(__file__).resolve().parents[1] / "oidc"
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}
# Every test client's secret at the provider.
SECRET = "agent-secret-31f0"


def require_node():
    """The ``node`` that runs the provider: skips without it or without the provider's packages
    (``npm ci`` in tests/oidc), except under ``CI=true`` (a failure)."""
    node = shutil.which("node")
    if not node:
        why = "node is not on the PATH (the oidc-provider tests need Node.js 18+)"
    elif not (OIDC_DIR / "node_modules" / "oidc-provider" / "package.json").is_file():
        why = f"oidc-provider is not installed: run `npm ci` in {OIDC_DIR}"
    else:
        return node
    if os.environ.get("CI") == "true":
        pytest.fail(why + ", and CI=true requires the oidc-provider tests")
    pytest.skip(why)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rsa_key(kid):
    """A new RSA key: (its private JWK for the provider, the key for forging tokens)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key))
    # With pyjwt's `key_ops` oidc-provider found no key to sign with; `use` says the same.
    jwk.pop("key_ops", None)
    return dict(jwk, kid=kid, alg="RS256", use="sig"), key


def ec_key(kid):
    """A new P-256 key: (its private JWK for the provider, the key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key))
    jwk.pop("key_ops", None)
    return dict(jwk, kid=kid, alg="ES256", use="sig"), key


class Lines:
    """A child's output lines, read by a thread: waited for with a timeout, all kept."""

    def __init__(self, stream):
        self.all, self._new = [], queue.Queue()

        def read():
            for line in stream:
                self.all.append(line)
                self._new.put(line)
            self._new.put(None)

        threading.Thread(target=read, daemon=True).start()

    def wait_for(self, pattern, timeout=30):
        """The first match of `pattern` in a line not yet waited for."""
        while True:
            try:
                line = self._new.get(timeout=timeout)
            except queue.Empty:
                line = None
            if line is None:
                raise AssertionError(f"no line matching {pattern!r}:\n" + "".join(self.all))
            m = re.search(pattern, line)
            if m:
                return m


class Provider:
    """oidc-provider on loopback, `url` its issuer: `clients` as provider.mjs takes them, tokens
    for `resources` only."""

    def __init__(self, tmp_path, keys, clients, resources, port=0, options=None):
        self.node = require_node()
        self.tmp_path, self.clients, self.resources = tmp_path, clients, resources
        self.options = options or {}  # provider.mjs's other settings (access_token_alg...)
        self.proc, self.earlier = None, []
        self.start(keys, port)

    def start(self, keys, port):
        config = self.tmp_path / f"oidc-{free_port()}.json"
        config.write_text(json.dumps(dict(self.options, port=port, keys=keys,
                                          clients=self.clients, resources=self.resources)))
        self.proc = subprocess.Popen([self.node, "provider.mjs", str(config)], cwd=OIDC_DIR,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out, self.err = Lines(self.proc.stdout), Lines(self.proc.stderr)
        self.url = self.out.wait_for(r"listening on (http://\S+)").group(1)
        self.port = int(self.url.rsplit(":", 1)[1])

    def restart(self, keys):
        """The same issuer (same port) started again with `keys`."""
        self.earlier = self.issued()
        self.stop()
        self.start(keys, self.port)

    def issued(self):
        """The tokens issued, in order: {client_id, resource, scope} each."""
        return self.earlier + [json.loads(line[len("grant "):]) for line in self.out.all
                if line.startswith("grant ")]

    def token_response(self, client_id, resource, scope="sql:read"):
        secret = next(c["client_secret"] for c in self.clients if c["client_id"] == client_id)
        return httpx2.post(f"{self.url}/token", auth=(client_id, secret),
                           data={"grant_type": "client_credentials", "resource": resource,
                                 "scope": scope})

    def token(self, client_id, resource, scope="sql:read"):
        r = self.token_response(client_id, resource, scope)
        assert r.status_code == 200, (r.status_code, r.text, "".join(self.err.all)[-2000:])
        return r.json()["access_token"]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def sqlgate_address():
    """A free port for sqlgate, chosen before it starts (its URL is the `resource` both its
    config and the provider name): (port, `/mcp`'s URL)."""
    port = free_port()
    return port, f"http://127.0.0.1:{port}/mcp"


class Sqlgate:
    """sqlgate-mcp over HTTP on `port` with `config` as its config file."""

    def __init__(self, tmp_path, port, config, env=None):
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.metadata = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
        path = tmp_path / f"sqlgate-{port}.toml"
        path.write_text(config)
        env = dict(os.environ, **(env or {}))
        env.pop("SQLGATE_DATABASE_URL", None)
        self.proc = subprocess.Popen([BIN, "serve", "--config", str(path), "--http",
                                      f"127.0.0.1:{port}"], env=env, stderr=subprocess.PIPE,
                                     text=True)
        self.err = Lines(self.proc.stderr)
        try:
            self.err.wait_for(r"listening on")
        except AssertionError:
            self.stop()
            raise

    def post(self, token):
        """POSTs `initialize` with `token`: (status, WWW-Authenticate or None, JSON body)."""
        headers = dict(ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {}))
        r = httpx2.post(self.url, json=INITIALIZE, headers=headers)
        try:
            body = r.json()
        except ValueError:
            body = r.text
        return r.status_code, r.headers.get("www-authenticate"), body

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


async def sdk_session(url, issuer, client_id, scope, body):
    """`body(session)` in a session of the SDK's own OAuth client, which is given sqlgate's URL
    and its credentials at `issuer`, nothing else."""
    auth = ClientCredentialsOAuthProvider(server_url=url, storage=Memory(), client_id=client_id,
                                          client_secret=SECRET, scope=scope, issuer=issuer)
    # As create_mcp_http_client's, keep-alive included: a 401 says `Connection: close`
    # (test_oidc_provider.py::test_a_401_leaves_the_connection_usable).
    http = httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30, read=300))
    async with http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return await body(session)
