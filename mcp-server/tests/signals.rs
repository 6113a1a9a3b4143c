//! `serve` stops on SIGINT (Ctrl-C) and SIGTERM in every mode: over stdio while a client keeps
//! stdin open (the read of stdin must not keep the process alive), and over HTTP with a session
//! open or a client still sending its headers. Run as a process, as a client or a terminal would run it.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sqlgate-mcp")
}

fn kill(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

/// Waits up to 10 s for the child to exit; returns its exit code (None: killed by the signal).
fn exits_within(child: &mut Child, what: &str) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}: sqlgate-mcp still running 10 s after the signal");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Reads stderr lines on a thread; sends each one.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

fn wait_for(lines: &mpsc::Receiver<String>, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) {
            if line.contains(needle) {
                return line;
            }
            seen.push(line);
        }
    }
    panic!("no stderr line with {needle:?}; saw {seen:?}");
}

#[test]
fn stdio_serve_stops_on_sigint_and_sigterm_with_stdin_open() {
    for signal in ["INT", "TERM"] {
        let mut child = spawn(&["serve", "--demo"]);
        let lines = stderr_lines(&mut child);
        // A client's first message; the answer proves the server is up and its handlers set.
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        )
        .expect("write initialize");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("read the answer");
        assert!(answer.contains("\"serverInfo\""), "{answer}");
        kill(&child, signal);
        // stdin stays open (held here) while the server stops.
        let code = exits_within(&mut child, &format!("stdio, SIG{signal}"));
        assert_eq!(code, Some(0), "SIG{signal}: a clean stop exits 0");
        wait_for(&lines, &format!("SIG{signal}: stopping"));
        let mut rest = String::new();
        let _ = stdout.read_to_string(&mut rest);
        drop(stdin);
    }
}

#[test]
fn http_serve_stops_on_sigint_and_sigterm() {
    for signal in ["INT", "TERM"] {
        let mut child = spawn(&[
            "serve",
            "--demo",
            "--http",
            "127.0.0.1:0",
            "--allow-unauthenticated",
        ]);
        let lines = stderr_lines(&mut child);
        let listening = wait_for(&lines, "listening on http://");
        let url = listening
            .split("listening on ")
            .nth(1)
            .expect("address")
            .trim()
            .to_string();
        // Open a session and keep its connection: the stop must not wait for the client.
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        let mut conn = std::net::TcpStream::connect(&addr).expect("connect");
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        write!(
            conn,
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("send initialize");
        let mut first = [0u8; 12];
        conn.read_exact(&mut first).expect("an HTTP answer");
        assert_eq!(
            &first,
            b"HTTP/1.1 200",
            "{}",
            String::from_utf8_lossy(&first)
        );
        kill(&child, signal);
        let code = exits_within(&mut child, &format!("HTTP, SIG{signal}"));
        assert_eq!(code, Some(0), "SIG{signal}: a clean stop exits 0");
        wait_for(&lines, &format!("SIG{signal}: stopping"));
        drop(conn);
    }
}

/// A client trickling its headers (`--header-read-timeout` far away) does not hold the stop:
/// a connection that never showed a credential has nothing to finish.
#[test]
fn http_serve_stops_with_a_client_still_sending_its_headers() {
    let mut child = spawn(&[
        "serve",
        "--demo",
        "--http",
        "127.0.0.1:0",
        "--allow-unauthenticated",
        "--header-read-timeout",
        "10m",
    ]);
    let lines = stderr_lines(&mut child);
    let listening = wait_for(&lines, "listening on http://");
    let addr = listening
        .split("listening on http://")
        .nth(1)
        .expect("address")
        .trim()
        .trim_end_matches("/mcp")
        .to_string();
    let mut conn = std::net::TcpStream::connect(&addr).expect("connect");
    write!(conn, "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Slow: a").expect("send");
    std::thread::sleep(Duration::from_millis(200));
    kill(&child, "TERM");
    let code = exits_within(&mut child, "HTTP, SIGTERM, headers half sent");
    assert_eq!(code, Some(0), "a clean stop exits 0");
    drop(conn);
}

#[test]
fn stdio_serve_stops_while_waiting_for_a_client() {
    let mut child = spawn(&["serve", "--demo"]);
    let lines = stderr_lines(&mut child);
    // The audit log's header (stderr by default) is written once the server is up.
    wait_for(&lines, "\"header\"");
    kill(&child, "INT");
    let code = exits_within(&mut child, "stdio before initialize, SIGINT");
    assert_eq!(code, Some(0));
    wait_for(&lines, "SIGINT: stopping");
}
