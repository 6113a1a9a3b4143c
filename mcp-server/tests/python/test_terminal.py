"""`serve` started by hand in a terminal: it says it waits for an MCP client on stdin, and Ctrl-C
(SIGINT, which a terminal sends to the foreground process) stops it at once."""
import os
import pty
import select
import signal
import subprocess
import time

BIN = os.environ["SQLGATE_MCP_BIN"]


def read_until(fd: int, needle: bytes, seconds: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            seen += chunk
    return seen


def test_terminal_stdin_gets_a_waiting_line_and_ctrl_c_stops_it():
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [BIN, "serve", "--demo"],
        stdin=terminal,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(terminal)
    try:
        stderr = read_until(proc.stderr.fileno(), b"see README", 60)
        assert b"waiting for an MCP client on stdin" in stderr, stderr
        assert b"see README" in stderr, stderr
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(controller)


def test_piped_stdin_gets_no_waiting_line():
    proc = subprocess.Popen(
        [BIN, "serve", "--demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        proc.stdin.write(
            b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
            b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
        )
        proc.stdin.flush()
        assert b"serverInfo" in proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert b"waiting for an MCP client" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
