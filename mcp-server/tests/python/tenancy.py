"""One claims principal serving two tenants over HTTP, for the tests of who may reach what
(``test_sessions.py``, ``test_callers.py``): ``sqlgate-mcp serve --config`` on the SQLite demo in
``safe`` mode, its ``[oauth]`` trusting a key made for the test (``jwks_file``), the principal
``tenants`` binding ``:tenant`` to the token's ``org_id``. Tokens are minted here (RS256) for any
subject; the demo's temporary copy is read directly (sqlite3) and the audit file through the
binary's ``audit verify``."""
import json
import re
import socket
import sqlite3
import subprocess
import threading
import time

import httpx2
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from sdk import BIN

ISSUER = "https://issuer.sqlgate.test"
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                         "clientInfo": {"name": "raw", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
# rmcp's answer to a request naming a session it does not know.
UNKNOWN_SESSION = (404, "Not Found: Session not found")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config_text(url, audit, extra="", principal_extra=""):
    return f"""
demo = true
mode = "safe"
approval_timeout = "20s"
audit_file = "{audit}"
{extra}

[oauth]
issuer = "{ISSUER}"
resource = "{url}"
jwks_file = "jwks.json"

[[principals]]
name = "tenants"
match = {{ org_role = "customer-agent" }}
vars = {{ tenant = {{ claim = "org_id", type = "integer" }} }}
policy = {{ rows = {{ orders = "customer_id = :tenant" }} }}
{principal_extra}
"""


class Tenancy:
    """The server, its key, its audit file and its demo copy; stopped by ``stop``."""

    def __init__(self, tmp_path, extra="", principal_extra="", args=()):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        (tmp_path / "jwks.json").write_text(json.dumps(
            {"keys": [dict(jwk, kid="k1", alg="RS256", use="sig")]}))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.audit = tmp_path / "audit.jsonl"
        config = tmp_path / "sqlgate.toml"
        config.write_text(config_text(self.url, self.audit, extra, principal_extra))
        self.proc = subprocess.Popen(
            [BIN, "serve", "--config", str(config), "--http", f"127.0.0.1:{self.port}", *args],
            stderr=subprocess.PIPE, text=True)
        self.demo, lines = None, []
        for _ in range(200):
            line = self.proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"temporary copy: (\S+)", line)
            self.demo = m.group(1) if m else self.demo
            if "listening on" in line:
                threading.Thread(target=lambda: [None for _ in self.proc.stderr],
                                 daemon=True).start()
                break
        else:
            lines.append("(no `listening on` in 200 lines)")
        if not (self.demo and lines and "listening on" in lines[-1]):
            self.proc.kill()
            raise AssertionError("server did not start:\n" + "".join(lines))

    def token(self, sub, org_id, scope="sql:read sql:write", client="support-portal",
              role="customer-agent"):
        """A token of the issuer for `sub`, tenant `org_id`, this server as its audience."""
        now = int(time.time())
        claims = {"iss": ISSUER, "aud": self.url, "sub": sub, "azp": client, "scope": scope,
                  "org_role": role, "org_id": org_id, "iat": now, "exp": now + 600}
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "k1"})

    def headers(self, token, session=None, **more):
        h = dict(ACCEPT, Authorization=f"Bearer {token}", **more)
        if session:
            h["Mcp-Session-Id"] = session
        return h

    def fingerprint(self):
        """Every table of the demo copy, read directly."""
        with sqlite3.connect(self.demo) as c:
            return {t: sorted(c.execute(f"SELECT * FROM {t}").fetchall())
                    for t in ["customers", "products", "orders", "order_lines"]}

    def records(self):
        """The audit file's call records (header lines left out)."""
        lines = self.audit.read_text().splitlines() if self.audit.exists() else []
        return [r for r in map(json.loads, lines) if "tool" in r]

    def new_records(self, before):
        return self.records()[len(before):]

    def verify(self):
        """`sqlgate-mcp audit verify` on the audit file: intact."""
        r = subprocess.run([BIN, "audit", "verify", str(self.audit)], capture_output=True,
                           text=True)
        assert r.returncode == 0, (r.stdout, r.stderr)
        return json.loads(r.stdout)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def sse_message(text):
    """The JSON-RPC response in a streamable HTTP answer (SSE `data:` lines, or plain JSON)."""
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            m = json.loads(line[5:])
            if "result" in m or "error" in m:
                return m
    return json.loads(text)


def orders_of(fingerprint, customer):
    return [o for o in fingerprint["orders"] if o[1] == customer]


META_2026 = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
             "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
             "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}}


def call_2026(t, token, tool, arguments, state=None, responses=None):
    """`tools/call` on protocol 2026-07-28 in raw JSON-RPC (no session): the JSON-RPC response."""
    params = {"name": tool, "arguments": arguments, "_meta": META_2026}
    if state:
        params["requestState"] = state
    if responses:
        params["inputResponses"] = responses
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    headers = t.headers(token, **{"Mcp-Protocol-Version": "2026-07-28",
                                  "Mcp-Method": "tools/call", "Mcp-Name": tool})
    r = httpx2.post(t.url, json=body, headers=headers, timeout=30)
    return sse_message(r.text)


def raw_session(t, token):
    """A session opened in raw JSON-RPC with `token`: its id."""
    with httpx2.Client(timeout=30) as http:
        with http.stream("POST", t.url, json=INITIALIZE, headers=t.headers(token)) as r:
            assert r.status_code == 200, r.status_code
            sid = r.headers["mcp-session-id"]
        r = http.post(t.url, json=INITIALIZED, headers=t.headers(token, sid))
        assert r.status_code == 202, r.status_code
    return sid


def raw_call(t, token, sid, tool, arguments, rid=2):
    """`tools/call` on session `sid`: the JSON-RPC response."""
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}
    r = httpx2.post(t.url, json=body, headers=t.headers(token, sid), timeout=30)
    return sse_message(r.text)
