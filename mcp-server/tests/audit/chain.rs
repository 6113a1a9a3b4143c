//! The chain across files and processes: each kind of tampering caught at its line, restarts, torn
//! and unreadable last lines, rotation (by the library and by SIGHUP to the binary), and many
//! concurrent HTTP sessions writing one chain.

use std::process::Command;
use std::time::Duration;

use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use sqlgate_mcp::audit::verify::{verify_files, Tamper};
use sqlgate_mcp::audit::Audit;

use crate::common::{call, demo_engine, open_http, start_http, try_call};
use crate::log_files::{cli_verify, intact, lines_of, tampered, write_records};

#[tokio::test]
async fn intact_chain_and_each_tampering_detected_at_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = Audit::file(&path).expect("audit");
    write_records(&audit, 10).await;
    drop(audit);

    let (code, sum) = cli_verify(&[&path]);
    assert_eq!(code, 0, "{sum}");
    assert_eq!(sum["records"], 10);
    assert_eq!(sum["headers"], 1);
    assert_eq!(sum["decisions"]["allow"], 10);
    assert!(sum["first_time"].as_str().is_some());

    let lines = lines_of(&path);
    assert_eq!(lines.len(), 11);
    // Line numbers are 1-based; line 1 is the header.
    let mut edited = lines.clone();
    edited[3] = edited[3].replacen("SELECT 2", "SELECT 7", 1);
    let mut deleted = lines.clone();
    deleted.remove(4);
    let mut inserted = lines.clone();
    inserted.insert(5, lines[1].clone());
    let mut swapped = lines.clone();
    swapped.swap(3, 4);
    let cases = [
        ("edited", edited, Tamper::Edited, 4),
        ("deleted", deleted, Tamper::Deleted, 5),
        ("inserted", inserted, Tamper::Inserted, 6),
        ("swapped", swapped, Tamper::Reordered, 4),
    ];
    for (name, ls, kind, line) in cases {
        let p = tampered(&path, name, &ls);
        let b = verify_files(&[&p]).expect("read").expect_err(name);
        assert_eq!((b.kind, b.line), (kind, line), "{name}: {b:?}");
        let (code, out) = cli_verify(&[&p]);
        assert_eq!(code, 1, "{name}");
        assert_eq!(out["line"], line, "{name}: {out}");
    }
    // Truncate the last line (drop its last 5 bytes and the newline).
    let mut bytes = std::fs::read(&path).expect("read");
    bytes.truncate(bytes.len() - 6);
    let p = path.with_file_name("truncated");
    std::fs::write(&p, bytes).expect("write");
    let b = verify_files(&[&p]).expect("read").expect_err("truncated");
    assert_eq!((b.kind, b.line), (Tamper::Truncated, 11), "{b:?}");
    // An edited byte in any middle line is caught at that line.
    for i in 1..10 {
        let mut ls = lines.clone();
        ls[i] = ls[i].replacen("run_query", "run_qverY", 1);
        let p = tampered(&path, "byte", &ls);
        let b = verify_files(&[&p]).expect("read").expect_err("byte");
        assert_eq!((b.kind, b.line), (Tamper::Edited, i + 1), "{b:?}");
    }
}

#[tokio::test]
async fn restart_torn_line_and_rotation_keep_one_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    write_records(&Audit::file(&path).expect("audit"), 3).await;
    // Restart: a new server continues the chain after the last line.
    write_records(&Audit::file(&path).expect("audit"), 2).await;
    let s = intact(&[&path]);
    assert_eq!((s.records, s.headers), (5, 2));
    // A crash mid-write leaves a torn line; the next start names it and continues.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    std::io::Write::write_all(&mut f, br#"{"seq":8,"prev":"ab"#).expect("torn");
    drop(f);
    write_records(&Audit::file(&path).expect("audit"), 1).await;
    let s = intact(&[&path]);
    assert_eq!((s.records, s.headers), (6, 3));
    assert_eq!(s.recorded_breaks.len(), 1, "{s:?}");
    let torn_header: Value = serde_json::from_str(&lines_of(&path)[8]).expect("json");
    assert_eq!(torn_header["header"]["reason"], "torn", "{torn_header}");

    // Rotation: move the file away, reopen, continue in the new file.
    let audit = Audit::file(&path).expect("audit");
    write_records(&audit, 2).await;
    let rotated = dir.path().join("audit.1.jsonl");
    std::fs::rename(&path, &rotated).expect("rename");
    audit.reopen();
    write_records(&audit, 4).await;
    drop(audit);
    let s = intact(&[&rotated, &path]);
    assert_eq!((s.records, s.headers), (12, 5), "{s:?}");
    let first: Value = serde_json::from_str(&lines_of(&path)[0]).expect("json");
    assert_eq!(first["header"]["reason"], "rotation");
    // The new file alone starts with a header that points into the old one.
    assert_eq!(intact(&[&path]).records, 4);
    // Out of order, the files do not chain.
    assert!(verify_files(&[&path, &rotated]).expect("read").is_err());
}

#[cfg(unix)]
#[tokio::test]
async fn sighup_rotates_the_binary_audit_file() {
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let bin = env!("CARGO_BIN_EXE_sqlgate-mcp");
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|c| {
        c.args(["serve", "--demo", "--audit-file"]).arg(&path);
        c.stderr(std::process::Stdio::null());
    }))
    .expect("spawn");
    let pid = transport.id().expect("pid");
    let client = ().serve(transport).await.expect("initialize");
    call(&client, "list_tables", json!({})).await;
    let rotated = dir.path().join("audit.1.jsonl");
    std::fs::rename(&path, &rotated).expect("rename");
    let st = Command::new("kill")
        .args(["-HUP", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(st.success());
    // The writer reopens on its next message; wait until the new file exists.
    for _ in 0..100 {
        if path.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    call(&client, "list_tables", json!({})).await;
    let _ = client.cancel().await;
    let s = intact(&[&rotated, &path]);
    assert_eq!((s.records, s.headers), (2, 2), "{s:?}");
    // The header names the server, mode, dialect and policy hash.
    let h: Value = serde_json::from_str(&lines_of(&path)[0]).expect("json");
    assert_eq!(h["header"]["mode"], "read_only");
    assert_eq!(h["header"]["dialect"], "sqlite");
    assert_eq!(
        h["header"]["policy_sha256"].as_str().map(str::len),
        Some(64)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_http_sessions_produce_one_verifiable_chain() {
    let sessions: usize = env_or("SQLGATE_AUDIT_SESSIONS", 50);
    let calls: usize = env_or("SQLGATE_AUDIT_CALLS", 100);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = Audit::file(&path).expect("audit");
    let (url, shutdown) = start_http(demo_engine().await, audit, open_http()).await;
    let start = std::time::Instant::now();
    let mut tasks = Vec::new();
    for s in 0..sessions {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let client =
                ().serve(StreamableHttpClientTransport::from_uri(url))
                    .await
                    .expect("initialize");
            for q in 0..calls {
                let sql = format!("SELECT {s} AS s, {q} AS q");
                let r = try_call(&client, "validate_query", json!({ "sql": sql })).await;
                assert!(
                    r.is_ok_and(|r| r.is_error != Some(true)),
                    "session {s} call {q}"
                );
            }
            let _ = client.cancel().await;
        }));
    }
    for t in tasks {
        t.await.expect("session");
    }
    let elapsed = start.elapsed();
    shutdown.cancel();
    let s = intact(&[&path]);
    assert_eq!(s.records as usize, sessions * calls, "{s:?}");
    assert_eq!(s.headers, 1);
    // Each session's calls appear in its call order.
    let mut last = vec![None::<u64>; sessions];
    for l in lines_of(&path).iter().skip(1) {
        let v: Value = serde_json::from_str(l).expect("json");
        let sql = v["sql"].as_str().expect("sql");
        let nums: Vec<u64> = sql
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|x| x.parse().ok())
            .collect();
        let (s, q) = (nums[0] as usize, nums[1]);
        assert!(
            last[s] < Some(q),
            "session {s}: call {q} after {:?}",
            last[s]
        );
        last[s] = Some(q);
    }
    eprintln!(
        "{} calls in {sessions} sessions: {:.1} s, {:.0} calls/s, chain verified",
        sessions * calls,
        elapsed.as_secs_f64(),
        (sessions * calls) as f64 / elapsed.as_secs_f64()
    );
}

fn env_or(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test]
async fn unreadable_last_line_is_named_by_the_next_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    write_records(&Audit::file(&path).expect("audit"), 2).await;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("open");
    std::io::Write::write_all(&mut f, b"not json at all\n").expect("append");
    drop(f);
    write_records(&Audit::file(&path).expect("audit"), 1).await;
    let s = intact(&[&path]);
    assert_eq!(
        (s.records, s.headers, s.recorded_breaks.len()),
        (3, 2, 1),
        "{s:?}"
    );
    assert_eq!(lines_of(&path).len(), 6, "no empty line was added");
}
