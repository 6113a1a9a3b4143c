"""Refused frames over stdio are answered with JSON-RPC errors the official SDK's own message
type accepts (``"id": null`` when the id could not be read: the SDK requires the member), and the
connection goes on."""
import json
import subprocess

import mcp.types as types
from pydantic import TypeAdapter

from sdk import BIN

MESSAGE = TypeAdapter(types.JSONRPCMessage)


def test_refused_frames_get_errors_the_sdk_parses():
    p = subprocess.Popen(
        [BIN, "serve", "--demo"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:

        def ask(line: bytes):
            p.stdin.write(line + b"\n")
            p.stdin.flush()
            answer = p.stdout.readline()
            return MESSAGE.validate_json(answer), json.loads(answer)

        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "py", "version": "0"}}}
        msg, _ = ask(json.dumps(init).encode())
        assert isinstance(msg, types.JSONRPCResponse)
        p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        deep = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
        for line, code, rid in [
            (deep, -32600, 1),
            (b"not json at all", -32700, None),
            (b'{"jsonrpc":"2.0","id":"x","method":"tools/call","params":3}', -32600, "x"),
        ]:
            msg, raw = ask(line)
            assert isinstance(msg, types.JSONRPCError), raw
            assert (msg.error.code, msg.id) == (code, rid), raw
            assert "id" in raw
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "run_query", "arguments": {"sql": "SELECT 1 AS n"}}}
        msg, raw = ask(json.dumps(call).encode())
        assert isinstance(msg, types.JSONRPCResponse), raw
        assert raw["result"]["structuredContent"]["rows"] == [{"n": 1}]
    finally:
        p.kill()
        p.wait()
