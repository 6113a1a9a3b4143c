//! The `check` and `schema` command line, run as a process.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sqlgate-mcp");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().expect("wait")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn allowed_query_exits_0_with_the_verdict() {
    let out = run(&["check", "SELECT name FROM artist"], None);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["allowed"], true);
    assert_eq!(v["sql"], "SELECT name FROM artist LIMIT 1000");
    assert_eq!(v["limit"]["action"], "injected");
}

#[test]
fn refused_query_from_stdin_exits_1() {
    let out = run(&["check"], Some("SELECT 1; DROP TABLE orders"));
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["allowed"], false);
    assert_eq!(v["error"]["code"], "multiple_statements");
    assert_eq!(v["query_class"], "ddl");
}

#[test]
fn flags_set_dialect_max_rows_and_explain() {
    let out = run(
        &[
            "check",
            "--dialect",
            "sqlite",
            "--max-rows",
            "5",
            "SELECT a FROM t",
        ],
        None,
    );
    assert_eq!(json(&out)["sql"], "SELECT a FROM t LIMIT 5");
    let out = run(&["check", "--max-rows", "none", "SELECT a FROM t"], None);
    assert_eq!(json(&out)["limit"]["action"], "none");
    let out = run(&["check", "EXPLAIN SELECT a FROM t"], None);
    assert_eq!(out.status.code(), Some(1));
    let out = run(
        &["check", "--allow-explain", "EXPLAIN SELECT a FROM t"],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn usage_and_policy_errors_exit_2() {
    let out = run(&["check", "--dialect", "nope", "SELECT 1"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown dialect"));
    let out = run(&["check", "--max-rows", "lots", "SELECT 1"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        &["check", "--policy", "/definitely/missing.json", "SELECT 1"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["frobnicate"], None);
    assert_eq!(out.status.code(), Some(2));
    // HTTP without a token, or with a token variable that is not set: nothing is served.
    let out = run(&["serve", "--demo", "--http", "127.0.0.1:0"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("HTTP needs a bearer token"));
    let out = run(
        &[
            "serve",
            "--demo",
            "--http",
            "127.0.0.1:0",
            "--auth-token-env",
            "SQLGATE_TEST_TOKEN_THAT_IS_NOT_SET",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

/// A policy file that parses but does not compile (a pattern with an empty part): the message
/// names the file and the field, from `check` and from `serve`.
#[test]
fn a_policy_that_does_not_compile_names_its_file_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let policy = dir.path().join("team.json");
    std::fs::write(&policy, r#"{"columns": {"deny": ["customers..email"]}}"#).expect("write");
    let p = policy.to_str().expect("utf-8");
    for args in [
        vec!["check", "--policy", p, "SELECT 1"],
        vec!["serve", "--demo", "--policy", p],
    ] {
        let out = run(&args, Some(""));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(p), "{args:?}: no file name in {stderr}");
        assert!(stderr.contains("columns.deny[0]"), "{args:?}: {stderr}");
    }
}

#[test]
fn policy_files_json_and_toml_with_flag_override() {
    let dir = tempfile::tempdir().expect("tempdir");
    let j = dir.path().join("p.json");
    std::fs::write(
        &j,
        r#"{"dialect":"sqlite","max_rows":7,"columns":{"deny":["*.email"]}}"#,
    )
    .expect("write");
    let out = run(
        &[
            "check",
            "--policy",
            j.to_str().unwrap_or_default(),
            "SELECT a FROM t",
        ],
        None,
    );
    assert_eq!(json(&out)["sql"], "SELECT a FROM t LIMIT 7");
    let out = run(
        &[
            "check",
            "--policy",
            j.to_str().unwrap_or_default(),
            "SELECT email FROM t",
        ],
        None,
    );
    assert_eq!(json(&out)["error"]["code"], "column_not_allowed");
    let t = dir.path().join("p.toml");
    std::fs::write(&t, "max_rows = 3\n[functions]\ndeny = [\"lower\"]\n").expect("write");
    let p = t.to_str().unwrap_or_default();
    let out = run(
        &["check", "--policy", p, "--max-rows", "9", "SELECT a FROM t"],
        None,
    );
    assert_eq!(json(&out)["sql"], "SELECT a FROM t LIMIT 9");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"max_rowz": 1}"#).expect("write");
    let out = run(
        &[
            "check",
            "--policy",
            bad.to_str().unwrap_or_default(),
            "SELECT 1",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn jsonl_mode() {
    let input = concat!(
        "{\"sql\":\"SELECT 1\",\"id\":1}\n",
        "{not json\n",
        "{\"sql\":\"DELETE FROM t\",\"id\":\"b\",\"dialect\":\"mysql\"}\n",
        "{\"id\":4}\n",
        "{\"sql\":\"SELECT 2\",\"dialect\":\"sqlite\"}\n"
    );
    let out = run(&["check", "--jsonl"], Some(input));
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("line is JSON"))
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(lines[0]["line"], 1);
    assert_eq!(lines[0]["allowed"], true);
    assert_eq!(lines[1]["error"]["code"], "bad_request");
    assert_eq!(lines[1]["error"]["stage"], "precheck");
    assert_eq!(lines[2]["id"], "b");
    assert_eq!(lines[2]["query_class"], "mutation_delete");
    assert_eq!(lines[3]["id"], 4);
    assert_eq!(lines[3]["error"]["code"], "bad_request");
    assert_eq!(lines[4]["allowed"], true);
    let ok = run(&["check", "--jsonl"], Some("{\"sql\":\"SELECT 1\"}\n"));
    assert_eq!(ok.status.code(), Some(0));
    assert!(ok.stderr.is_empty(), "a final newline is not a blank line");
}

#[test]
fn jsonl_verdicts_carry_their_input_line_and_blank_lines_are_named() {
    let input = "{\"sql\":\"SELECT 1\"}\n\n   \n{oops\n{\"sql\":\"SELECT 2\",\"id\":7}";
    let out = run(&["check", "--jsonl"], Some(input));
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("line is JSON"))
        .collect();
    let numbers: Vec<&Value> = lines.iter().map(|l| &l["line"]).collect();
    assert_eq!(numbers, [1, 4, 5]);
    assert_eq!(lines[1]["error"]["code"], "bad_request");
    let message = lines[1]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("line 4"), "{message}");
    assert_eq!(lines[2]["id"], 7);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 blank line(s) skipped (line 2, 3)"),
        "{stderr}"
    );
}

#[test]
fn schemas() {
    for which in ["policy", "verdict"] {
        let out = run(&["schema", which], None);
        assert_eq!(out.status.code(), Some(0));
        let v = json(&out);
        assert!(v.get("properties").is_some() || v.get("$defs").is_some());
    }
    let out = run(&["schema", "nope"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn serve_refuses_a_duration_without_a_unit() {
    let out = run(&["serve", "--demo", "--statement-timeout", "1500"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("durations need a unit: 500ms, 10s, 2m"),
        "{err}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("sqlgate.toml");
    for line in ["statement_timeout = 1500", "statement_timeout = \"1500\""] {
        std::fs::write(&config, format!("demo = true\n{line}\n")).expect("write config");
        let out = run(
            &["serve", "--config", config.to_str().expect("utf-8")],
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{line}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("durations need a unit"), "{line}: {err}");
    }
}

#[test]
fn check_mutation_prints_the_mutation_verdict_and_schema_describes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let policy = dir.path().join("p.toml");
    std::fs::write(
        &policy,
        "dialect = \"postgres\"\n[writes]\ntables = [\"orders\"]\n",
    )
    .expect("write policy");
    let p = policy.to_str().expect("utf-8");
    let sql = "UPDATE orders SET status = 'x' WHERE id = 7";
    let out = run(&["check", "--mutation", "--policy", p, sql], None);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["allowed"], true);
    assert_eq!(v["target"], "orders");
    assert_eq!(v["has_where"], true);
    let out = run(
        &["check", "--mutation", "--policy", p, "DELETE FROM orders"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["error"]["code"], "statement_not_allowed");
    // Without --mutation the read entry refuses every mutation.
    let out = run(&["check", "--policy", p, sql], None);
    assert_eq!(json(&out)["error"]["code"], "statement_not_allowed");
    let out = run(&["schema", "mutation-verdict"], None);
    assert_eq!(out.status.code(), Some(0));
    let schema = json(&out);
    assert!(schema["properties"]["target"].is_object(), "{schema}");
    assert!(schema["properties"]["has_where"].is_object(), "{schema}");
}

#[test]
fn serve_refuses_write_modes_it_cannot_honour() {
    // No `writes` in the policy: the message says what to add.
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("x.db");
    rusqlite::Connection::open(&db)
        .and_then(|c| c.execute_batch("CREATE TABLE t (a int)"))
        .expect("create db");
    let url = format!("sqlite:{}", db.display());
    let out = run(&["serve", "--database-url", &url, "--mode", "safe"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[writes]") && err.contains("tables ="),
        "{err}"
    );
    // The approval key must be set, and long enough to seal with.
    for (value, says) in [(None, "is not set"), (Some("short"), "at least 32")] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"));
        cmd.args(["serve", "--demo", "--mode", "safe", "--http", "127.0.0.1:0"])
            .args(["--stateless", "--allow-unauthenticated"])
            .args(["--approval-key-env", "SQLGATE_TEST_APPROVAL_KEY"])
            .env_remove("SQLGATE_TEST_APPROVAL_KEY")
            .stdin(Stdio::null());
        if let Some(v) = value {
            cmd.env("SQLGATE_TEST_APPROVAL_KEY", v);
        }
        let out = cmd.output().expect("run");
        assert_eq!(out.status.code(), Some(1), "{value:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("approval_key_env") && err.contains(says),
            "{err}"
        );
    }
    let out = run(&["serve", "--demo", "--mode", "yolo"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["serve", "--demo", "--approval-timeout", "300"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("durations need a unit"));
}

#[test]
fn the_demo_plays_a_refused_and_an_approved_mutation() {
    let out = run(&["demo"], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let refused = text
        .find("REFUSED unbounded_mutation")
        .expect("unbounded refused");
    let preview = text.find("PREVIEW 1 row would change").expect("preview");
    let committed = text
        .find("COMMITTED 1 row changed; executed: UPDATE orders SET status = 'cancelled' WHERE id = 7")
        .expect("commit");
    assert!(refused < preview && preview < committed, "{text}");
    assert!(
        text.contains("order 7 now reads: status = cancelled"),
        "{text}"
    );
}

#[test]
fn the_demo_keeps_its_notes_in_its_scenes_and_names_this_binary() {
    let out = run(&["demo"], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The operator's note about a refused function is part of the scene that refused it, not a
    // stderr line that lands among the scenes.
    assert!(!stderr.contains("note for the operator"), "{stderr}");
    let refused = text
        .find("REFUSED function_not_allowed")
        .expect("a function refusal");
    let note = text
        .find("note for the operator")
        .expect("the note, in its scene");
    assert!(refused < note, "{text}");
    // The closing configuration names this binary by its absolute path: Claude Desktop does
    // not read the shell's PATH, and `cargo run` installs nothing on it.
    let exe = env!("CARGO_BIN_EXE_sqlgate-mcp");
    let start = text
        .find("{\n  \"mcpServers\"")
        .expect("the Claude Desktop config");
    let end = text[start..].find("\n}").expect("its end") + start + 2;
    let config: serde_json::Value = serde_json::from_str(&text[start..end]).expect("valid JSON");
    assert_eq!(
        config["mcpServers"]["sqlgate-demo"]["command"], exe,
        "{text}"
    );
    assert_eq!(
        config["mcpServers"]["sqlgate-demo"]["args"],
        serde_json::json!(["serve", "--demo"])
    );
}

#[test]
fn demo_into_a_closed_pipe_stops_quietly() {
    use std::io::{BufRead, BufReader, Read};
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .arg("demo")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sqlgate-mcp");
    // `sqlgate-mcp demo | head -1`: read one line, then close the pipe.
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("first line");
    assert!(first.contains("sqlgate demo"), "{first}");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr");
    let status = child.wait().expect("wait");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(status.code(), Some(101), "a panic exits 101");
}

#[test]
fn a_bad_otlp_endpoint_refuses_to_start() {
    for (url, says) in [
        ("https://collector:4318", "https is not supported"),
        ("collector:4318", "needs an http:// URL"),
    ] {
        let out = run(&["serve", "--demo", "--otlp-endpoint", url], None);
        assert_eq!(out.status.code(), Some(2), "{url}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{url}: {stderr}");
    }
}
