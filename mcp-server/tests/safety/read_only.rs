//! Every attack through `run_query` of a read-only server connected as a superuser: each seen
//! (one audit record), each the suite expects refused refused before the database, and nothing
//! changed.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{Peer, RunningService};
use rmcp::RoleClient;
use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::tools::SqlGateServer;

use crate::attacks::{postgres_vectors, Attack};
use crate::common::{pg_engine, postgres_policy, serve_in_process, structured, try_call};
use crate::fingerprint::{changes, file_state, fingerprint, watched_paths};
use crate::scratch_database::{chinook_url, in_scratch_database, SETUP};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_attack_through_run_query_as_superuser_changes_nothing() {
    let Some(chinook) = chinook_url() else { return };
    let db = format!("sqlgate_safety_{}", std::process::id());
    in_scratch_database(&chinook, &db, SETUP, run_attacks).await;
}

/// The PostgreSQL attacks of `attacks.jsonl` (how many: the second value), then the vectors of
/// `access.jsonl` and `limits.jsonl` and the extra attacks.
fn all_attacks() -> (Vec<Attack>, usize) {
    let mut attacks = postgres_vectors("attacks.jsonl", true);
    let suite = attacks.len();
    assert!(
        suite >= 100,
        "only {suite} PostgreSQL attacks in attacks.jsonl"
    );
    attacks.extend(postgres_vectors("access.jsonl", false));
    attacks.extend(postgres_vectors("limits.jsonl", false));
    attacks.extend(Attack::extra());
    (attacks, suite)
}

/// A client of a read-only server on `url`, connected as a superuser, auditing to `audit_path`.
async fn superuser_server(url: &str, audit_path: &Path) -> RunningService<RoleClient, ()> {
    let engine = pg_engine(url, 2, Duration::from_secs(5), postgres_policy(50)).await;
    assert!(
        engine
            .backend()
            .role_warnings()
            .iter()
            .any(|w| w.contains("superuser")),
        "the test must run as a superuser (the worst case)"
    );
    let server = SqlGateServer::new(Arc::new(engine), Audit::file(audit_path).expect("audit"));
    serve_in_process(server).await
}

/// Sends every attack to `run_query`; returns what went wrong: a failed call, an expected refusal
/// that reached the database or was allowed, anything run that is not a SELECT.
async fn attack_problems(client: &Peer<RoleClient>, attacks: &[Attack]) -> Vec<String> {
    let mut problems: Vec<String> = Vec::new();
    for a in attacks {
        let r = match try_call(client, "run_query", json!({ "sql": a.sql })).await {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("[{}] {:?}: call failed: {e}", a.source, a.sql));
                continue;
            }
        };
        let out = structured(&r);
        if r.is_error == Some(true) {
            if a.expect_refused && out["stage"] == "execute" {
                problems.push(format!(
                    "[{}] {:?}: reached the database: {out}",
                    a.source, a.sql
                ));
            }
        } else {
            if a.expect_refused {
                problems.push(format!("[{}] {:?}: allowed: {out}", a.source, a.sql));
            }
            if out["query_class"] != "select" {
                problems.push(format!("[{}] {:?}: ran as {out}", a.source, a.sql));
            }
        }
    }
    problems
}

/// Every attack went through run_query: one audit record each, with the SQL as sent.
fn assert_one_record_per_attack(audit_path: &Path, attacks: &[Attack]) {
    let audit = std::fs::read_to_string(audit_path).expect("audit file");
    let records: Vec<Value> = audit
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("header").is_none())
        .collect();
    assert_eq!(records.len(), attacks.len(), "one audit record per attack");
    for (rec, a) in records.iter().zip(attacks) {
        assert_eq!(rec["tool"], "run_query");
        assert_eq!(rec["sql"].as_str(), Some(a.sql.as_str()));
    }
}

/// The read-only run on the scratch database at `url`.
async fn run_attacks(url: String) {
    let (attacks, suite) = all_attacks();
    let paths = watched_paths(&attacks);
    let files_before = file_state(&paths);
    let before = fingerprint(&url).await;

    let dir = tempfile::tempdir().expect("tempdir");
    let audit_path = dir.path().join("audit.jsonl");
    let client = superuser_server(&url, &audit_path).await;
    let problems = attack_problems(&client, &attacks).await;
    let _ = client.cancel().await;
    assert_one_record_per_attack(&audit_path, &attacks);

    let after = fingerprint(&url).await;
    let files_after = file_state(&paths);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let changed = changes(&before, &after);
    assert!(changed.is_empty(), "the database changed: {changed:#?}");
    assert_eq!(files_before, files_after, "a watched file changed");
    eprintln!(
        "{} attacks ({suite} from attacks.jsonl) through run_query; {} aspects and {} paths unchanged",
        attacks.len(),
        before.len(),
        paths.len()
    );
}
