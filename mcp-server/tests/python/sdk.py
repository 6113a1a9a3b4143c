"""What every MCP test here reads off the official Python SDK: the server binary under test
(``SQLGATE_MCP_BIN``) and a tool result's fields, whichever spelling this SDK version uses; and
the PostgreSQL the tests share (``SQLGATE_CHINOOK_URL``) with its ``psql``; an OAuth client's
token storage in memory, ``serve --config`` started on a port chosen beforehand, and the demo's
temporary copy (its path from the server's stderr, its rows read directly)."""

import os
import re
import sqlite3
import subprocess
import threading

import pytest

BIN = os.environ["SQLGATE_MCP_BIN"]


def attr(obj, snake, camel):
    """The SDK's field, whichever spelling this SDK version uses."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def sc(r):
    """A tool result's structured content."""
    return attr(r, "structured_content", "structuredContent")


def err(r):
    """True when a tool result is an error."""
    return attr(r, "is_error", "isError")


def chinook_url():
    """``SQLGATE_CHINOOK_URL``: skips the test without it, except under ``CI=true`` (a failure)."""
    url = os.environ.get("SQLGATE_CHINOOK_URL", "").strip()
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail("SQLGATE_CHINOOK_URL not set, and CI=true requires the PostgreSQL tests")
        pytest.skip("SQLGATE_CHINOOK_URL not set (no PostgreSQL)")
    return url


def psql_bin():
    """The ``psql`` of the PostgreSQL on the PATH (``pg_config --bindir``)."""
    bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
    return os.path.join(bindir, "psql") if bindir else "psql"


class Memory:
    """The SDK's token storage, in memory."""

    def __init__(self):
        self.tokens, self.client = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, info):
        self.client = info


def serve_config(config, port, ready=r"listening on"):
    """`sqlgate-mcp serve --config CONFIG --http 127.0.0.1:PORT` (without SQLGATE_DATABASE_URL),
    once its stderr says `ready`; its stderr is drained from then on. Returns the process."""
    env = dict(os.environ)
    env.pop("SQLGATE_DATABASE_URL", None)
    proc = subprocess.Popen([BIN, "serve", "--config", str(config), "--http", f"127.0.0.1:{port}"],
                            env=env, stderr=subprocess.PIPE, text=True)
    lines = []
    for _ in range(200):
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if re.search(ready, line):
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc
    proc.kill()
    raise AssertionError("server did not start:\n" + "".join(lines))


def demo_path(stderr):
    """The demo's temporary copy, which `serve --demo` names on stderr in a write mode."""
    m = re.search(r"temporary copy: (\S+)", stderr)
    assert m, stderr
    return m.group(1)


def demo_fingerprint(path):
    """Every row of the demo's tables, read directly: equal before and after means nothing
    changed."""
    with sqlite3.connect(path) as c:
        return {t: sorted(c.execute(f"SELECT * FROM {t}").fetchall())
                for t in ["customers", "products", "orders", "order_lines"]}
