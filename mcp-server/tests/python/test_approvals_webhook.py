"""External approvers with the official Python SDK: `serve --demo --mode safe` with
`approval = { webhook = ... }` pointing at a small HTTP approver in this test. run_mutation
answers `status: "pending"` (not an error, and valid against the tool's output schema, which the
SDK checks); approval_status stays pending, then commits once the approver approves; a
rejection is a result too. The demo's temporary copy is fingerprinted directly (sqlite3)."""
import asyncio
import json
import re
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from mcp import Client

from sdk import BIN, err, sc
from test_approvals_2026 import UPDATE_7, fingerprint


class Approver(BaseHTTPRequestHandler):
    decision = "pending"
    seen = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        Approver.seen.append(body)
        reply = json.dumps({"decision": Approver.decision, "reference": "CHG-7"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


@pytest.fixture()
def served():
    """The approver, and the server asking it: (url, the demo copy's path)."""
    Approver.decision, Approver.seen = "pending", []
    hook = ThreadingHTTPServer(("127.0.0.1", 0), Approver)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as cfg:
        cfg.write(f'approval = {{ webhook = "http://127.0.0.1:{hook.server_port}/hook" }}\n')
    proc = subprocess.Popen([BIN, "serve", "--demo", "--mode", "safe", "--config", cfg.name,
                             "--http", "127.0.0.1:0", "--allow-unauthenticated"],
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
        hook.shutdown()


def calls(url, *steps):
    """Runs each (tool, arguments) in one SDK client; returns the results."""
    async def main():
        async with Client(url, mode="2026-07-28") as client:
            return [await client.call_tool(tool, args) for tool, args in steps]
    return asyncio.run(main())


def test_pending_then_approved_commits_once(served):
    url, path = served
    before = fingerprint(path)
    [r] = calls(url, ("run_mutation", {"sql": UPDATE_7}))
    assert not err(r) and sc(r)["status"] == "pending", sc(r)
    assert sc(r)["approver_reference"] == "CHG-7"
    rid = sc(r)["approval_request_id"]
    [sent] = Approver.seen
    assert (sent["tool"], sent["sql"], sent["preview_rows"]) == ("run_mutation", UPDATE_7, 1)
    assert fingerprint(path) == before
    [r] = calls(url, ("approval_status", {"approval_request_id": rid}))
    assert not err(r) and sc(r)["status"] == "pending", sc(r)
    Approver.decision = "approved"
    done, again = calls(url, ("approval_status", {"approval_request_id": rid}),
                        ("approval_status", {"approval_request_id": rid}))
    assert not err(done) and sc(done)["status"] == "committed", sc(done)
    assert sc(done)["affected_rows"] == 1
    assert err(again) and sc(again)["code"] == "approval_state_replayed", sc(again)
    after = fingerprint(path)
    assert [o for o in after["orders"] if o[0] == 7][0][3] == "cancelled"


def test_a_rejected_batch_is_a_result_and_changes_nothing(served):
    url, path = served
    before = fingerprint(path)
    Approver.decision = "rejected"
    batch = [UPDATE_7, "DELETE FROM order_lines WHERE order_id = 8"]
    [r] = calls(url, ("run_mutations", {"statements": batch}))
    assert not err(r) and sc(r)["status"] == "rejected", sc(r)
    assert sc(r)["statement_count"] == 2
    assert fingerprint(path) == before
