//! Logs (issue 42): `--log-format json` writes one JSON object per stderr line (the startup or
//! `listening on` event, one `sqlgate::decision` event per tool call) while stdout over stdio
//! carries only MCP JSON-RPC; `--log-level error` keeps the info events out; `RUST_LOG` is a
//! full filter directive when `--log-level` is absent. Run as a process, as a client runs it.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use serde_json::Value;

/// What a stdio session left: stdout's lines and all of stderr.
struct Session {
    stdout: Vec<String>,
    stderr: String,
}

/// Serves the demo over stdio with `args` and `RUST_LOG` as given (absent when `None`), the
/// audit log in a file; calls `run_query` allowed (id 2) and refused (id 3), then closes stdin.
fn stdio_session(args: &[&str], rust_log: Option<&str>) -> Session {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"));
    cmd.args(args)
        .args([
            "serve",
            "--demo",
            "--audit-file",
            audit.to_str().expect("utf-8"),
        ])
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(filter) = rust_log {
        cmd.env("RUST_LOG", filter);
    }
    let mut child = cmd.spawn().expect("spawn sqlgate-mcp");
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        stderr_pipe.read_to_string(&mut text).expect("read stderr");
        text
    });
    let mut stdin = child.stdin.take().expect("stdin");
    for message in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 1 AS one"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"DROP TABLE orders"}}}"#,
    ] {
        writeln!(stdin, "{message}").expect("write a message");
    }
    let mut stdout = Vec::new();
    let mut answered = 0;
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("stdout line");
        let message: Value = serde_json::from_str(&line).expect("stdout carries JSON only");
        if message.get("id").is_some() && message.get("method").is_none() {
            answered += 1;
        }
        stdout.push(line);
        if answered == 3 {
            break;
        }
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    Session {
        stdout,
        stderr: stderr.join().expect("stderr thread"),
    }
}

/// Every stderr line as JSON (a line that is not JSON fails the test).
fn json_lines(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The decision events of `tool`.
fn decisions<'a>(events: &'a [Value], tool: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["target"] == "sqlgate::decision" && e["tool"] == tool)
        .collect()
}

#[test]
fn json_logs_are_json_lines_on_stderr_and_stdout_stays_mcp() {
    let s = stdio_session(&["--log-format", "json"], None);
    for line in &s.stdout {
        let message: Value = serde_json::from_str(line).expect("JSON");
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    let events = json_lines(&s.stderr);
    assert!(
        events
            .iter()
            .any(|e| e["message"] == "serving MCP over stdio" && e["level"] == "INFO"),
        "{}",
        s.stderr
    );
    let calls = decisions(&events, "run_query");
    let allowed = calls
        .iter()
        .find(|e| e["decision"] == "allow")
        .unwrap_or_else(|| panic!("no allowed decision in {}", s.stderr));
    assert_eq!(allowed["level"], "INFO");
    assert_eq!(allowed["class"], "select");
    assert!(allowed["duration_ms"].is_number(), "{allowed}");
    // At info (the default), no SQL.
    assert!(allowed.get("sql").is_none(), "{allowed}");
    let refused = calls
        .iter()
        .find(|e| e["decision"] == "refuse")
        .unwrap_or_else(|| panic!("no refused decision in {}", s.stderr));
    assert_eq!(refused["level"], "WARN");
    assert_eq!(refused["code"], "statement_not_allowed");
    assert_eq!(refused["class"], "ddl");
}

#[test]
fn log_level_error_keeps_info_and_warn_events_out_whatever_rust_log_says() {
    for format in ["text", "json"] {
        let s = stdio_session(
            &["--log-level", "error", "--log-format", format],
            Some("trace"),
        );
        assert_eq!(s.stdout.len(), 3, "{:?}", s.stdout);
        assert!(!s.stderr.contains("serving MCP over stdio"), "{}", s.stderr);
        assert!(!s.stderr.contains("sqlgate::decision"), "{}", s.stderr);
    }
}

#[test]
fn rust_log_is_a_full_directive_without_log_level() {
    // Decisions at info, everything else of sqlgate's at warn: no startup line.
    let s = stdio_session(&[], Some("warn,sqlgate::decision=info"));
    assert!(!s.stderr.contains("serving MCP over stdio"), "{}", s.stderr);
    assert!(s.stderr.contains("run_query allow"), "{}", s.stderr);
    // At debug, a decision carries its SQL.
    let s = stdio_session(&["--log-format", "json"], Some("sqlgate=debug"));
    let events = json_lines(&s.stderr);
    let allowed = decisions(&events, "run_query")
        .into_iter()
        .find(|e| e["decision"] == "allow")
        .unwrap_or_else(|| panic!("no allowed decision in {}", s.stderr));
    assert_eq!(allowed["sql"], "SELECT 1 AS one");
    // Without either, info: the startup line, in text.
    let s = stdio_session(&[], None);
    assert!(s.stderr.contains("INFO"), "{}", s.stderr);
    assert!(s.stderr.contains("serving MCP over stdio"), "{}", s.stderr);
    assert!(s.stderr.contains("run_query allow"), "{}", s.stderr);
}

#[test]
fn http_says_where_it_listens_in_a_json_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .args(["serve", "--demo", "--http", "127.0.0.1:0"])
        .args(["--audit-file", audit.to_str().expect("utf-8")])
        .args(["--allow-unauthenticated", "--log-format", "json"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sqlgate-mcp");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let listening = lines
        .by_ref()
        .map_while(Result::ok)
        .map(|l| serde_json::from_str::<Value>(&l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .find(|e| {
            e["message"]
                .as_str()
                .is_some_and(|m| m.contains("listening on"))
        })
        .expect("a listening line");
    let _ = child.kill();
    let _ = child.wait();
    let message = listening["message"].as_str().expect("message");
    assert!(
        message.starts_with("listening on http://127.0.0.1:"),
        "{listening}"
    );
    assert!(message.ends_with("/mcp"), "{listening}");
    assert_eq!(listening["level"], "INFO");
}
