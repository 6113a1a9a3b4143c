//! The same attacks and the mutation vectors through `run_query` and `run_mutation` of a server in
//! `safe` mode whose client approves everything: only the allowed mutations' targets change.
//! Twice: a client of the session era (approval by elicitation) and a client on 2026-07-28
//! (approval by `input_required`, the retry carrying the sealed state), rmcp's own both.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::tools::SqlGateServer;

use crate::attacks::{postgres_mutation_vectors, postgres_vectors, Attack};
use crate::common::{self, postgres_policy, structured};
use crate::fingerprint::{file_state, fingerprint, watched_paths};
use crate::scratch_database::{chinook_url, in_scratch_database, SETUP};

/// The tables the mutation vectors (`tests/vectors/mutations.jsonl`) aim at, as in the engines
/// suite's fixture, plus `order_lines`.
const WRITE_SETUP: &str = r#"
CREATE TABLE customer (customer_id int PRIMARY KEY, first_name text, last_name text, email text, phone text, country text, support_rep_id int);
INSERT INTO customer SELECT g, 'first' || g, 'last' || g, 'c' || g || '@example.com', '+1-555-' || g, 'C' || (g % 3), 1 FROM generate_series(1, 10) g;
CREATE TABLE employee (employee_id int PRIMARY KEY, first_name text, last_name text, email text, salary int);
INSERT INTO employee SELECT g, 'e' || g, 'l' || g, 'e' || g || '@example.com', 1000 * g FROM generate_series(1, 3) g;
CREATE TABLE invoice (invoice_id int PRIMARY KEY, customer_id int, total numeric(10,2), billing_country text);
INSERT INTO invoice SELECT g, 1 + g % 10, g * 1.5, 'C' || (g % 3) FROM generate_series(1, 20) g;
CREATE TABLE orders (id int PRIMARY KEY, status text, customer_id int, ssn text);
INSERT INTO orders SELECT g, 'new', 1 + g % 10, 'secret-ssn-' || g FROM generate_series(1, 20) g;
CREATE TABLE order_lines (order_id int, line_no int, product_id int, quantity int, PRIMARY KEY (order_id, line_no));
INSERT INTO order_lines SELECT 1 + g % 20, g, 1 + g % 5, g FROM generate_series(1, 30) g;
CREATE TABLE product (id int PRIMARY KEY, name text, price int);
INSERT INTO product SELECT g, 'p' || g, g % 7 FROM generate_series(1, 20) g;
ANALYZE;
"#;

/// The policy of most mutation vectors: writes to orders, order_lines and customer (create and
/// delete), employee denied, contact columns and `*.ssn` protected.
fn write_policy() -> sqlgate::Policy {
    let mut p = postgres_policy(50);
    p.tables.deny = vec!["employee".into()];
    p.columns.deny = vec![
        "customer.email".into(),
        "customer.phone".into(),
        "*.ssn".into(),
    ];
    p.writes = Some(sqlgate::WriteRules::new(
        &["orders", "order_lines", "customer"],
        &[
            sqlgate::QueryClass::MutationCreate,
            sqlgate::QueryClass::MutationDelete,
        ],
    ));
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_safe_mode_only_allowed_mutations_change_anything() {
    let Some(chinook) = chinook_url() else { return };
    let setup = format!("{SETUP}\n{WRITE_SETUP}");
    for (era, lifecycle) in [
        ("session", ClientLifecycleMode::Initialize),
        (
            "2026",
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        ),
    ] {
        let db = format!("sqlgate_safety_{}_writes_{era}", std::process::id());
        in_scratch_database(&chinook, &db, &setup, |url| {
            run_attacks_in_safe_mode(url, lifecycle.clone())
        })
        .await;
    }
}

/// Sends `a` to `tool`; returns the committed mutation's target, and pushes what went wrong.
async fn send(
    client: &RunningService<RoleClient, common::AlwaysApprove>,
    tool: &str,
    a: &Attack,
    problems: &mut Vec<String>,
) -> Option<String> {
    // RunningService's own call_tool: it answers `input_required` through the handler and
    // retries, as a 2026-07-28 client does.
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let serde_json::Value::Object(m) = json!({ "sql": a.sql }) {
        params = params.with_arguments(m);
    }
    let r = match client.call_tool(params).await {
        Ok(r) => r,
        Err(e) => {
            problems.push(format!(
                "[{}] {tool} {:?}: call failed: {e}",
                a.source, a.sql
            ));
            return None;
        }
    };
    let out = structured(&r);
    if r.is_error == Some(true) {
        return None;
    }
    match tool {
        "run_query" if out["query_class"] != "select" => {
            problems.push(format!("[{}] run_query {:?} ran as {out}", a.source, a.sql));
            None
        }
        "run_mutation" if a.source != "mutations.jsonl" => {
            problems.push(format!(
                "[{}] an attack committed: {:?}: {out}",
                a.source, a.sql
            ));
            None
        }
        "run_mutation" => out["target"].as_str().map(str::to_string),
        _ => None,
    }
}

/// The PostgreSQL attacks of `attacks.jsonl`, the extra attacks, and the mutation vectors.
fn safe_mode_attacks() -> Vec<Attack> {
    let mut attacks = postgres_vectors("attacks.jsonl", true);
    attacks.extend(Attack::extra());
    let mutations = postgres_mutation_vectors();
    assert!(
        mutations.len() >= 100,
        "only {} mutation vectors",
        mutations.len()
    );
    attacks.extend(mutations);
    attacks
}

/// An engine in `safe` mode on `url` under [`write_policy`].
async fn safe_mode_engine(url: &str) -> sqlgate_mcp::gate::Engine {
    let mut engine_config =
        sqlgate_mcp::gate::EngineConfig::read_only(write_policy(), Duration::from_secs(5));
    engine_config.mode = sqlgate_mcp::codes::Mode::Safe;
    let pg =
        sqlgate_mcp::backend::postgres::PgBackend::connect(url, 2, Duration::from_secs(5), false)
            .await
            .expect("connect");
    sqlgate_mcp::gate::Engine::new(sqlgate_mcp::backend::Backend::Postgres(pg), engine_config)
        .await
        .expect("engine")
}

/// The aspects that changed or are new, other than the rows of the committed mutations' `targets`
/// (none of them has a sequence to advance).
fn changed_outside_targets(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
    targets: &[String],
) -> Vec<String> {
    let allowed: Vec<String> = targets
        .iter()
        .map(|t| format!("rows public.{}", t.rsplit('.').next().unwrap_or(t)))
        .collect();
    before
        .iter()
        .filter(|(k, v)| after.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .chain(after.keys().filter(|k| !before.contains_key(*k)).cloned())
        .filter(|k| !allowed.contains(k))
        .collect()
}

/// The safe-mode run on the scratch database at `url`, with a client of `lifecycle`.
async fn run_attacks_in_safe_mode(url: String, lifecycle: ClientLifecycleMode) {
    let attacks = safe_mode_attacks();
    let paths = watched_paths(&attacks);
    let files_before = file_state(&paths);
    let before = fingerprint(&url).await;

    let engine = safe_mode_engine(&url).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let server = SqlGateServer::new(
        Arc::new(engine),
        Audit::file(&dir.path().join("a.jsonl")).expect("audit"),
    );
    let approver = common::AlwaysApprove::default();
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    let client = approver
        .clone()
        .serve_with_lifecycle(b, lifecycle.clone())
        .await
        .expect("client");
    if let ClientLifecycleMode::Discover { .. } = lifecycle {
        let version = client.peer_info().map(|i| i.protocol_version.clone());
        assert_eq!(version, Some(ProtocolVersion::V_2026_07_28));
    }

    let mut problems: Vec<String> = Vec::new();
    let mut targets: Vec<String> = Vec::new();
    let mut committed = 0;
    for a in &attacks {
        send(&client, "run_query", a, &mut problems).await;
        if let Some(t) = send(&client, "run_mutation", a, &mut problems).await {
            committed += 1;
            targets.push(t);
        }
    }
    let _ = client.cancel().await;
    let after = fingerprint(&url).await;
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        committed > 0,
        "no allowed mutation vector committed: the test would prove nothing"
    );
    let asked = approver.asked.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        asked >= committed,
        "{committed} commits but only {asked} approvals asked"
    );
    // Only the committed vectors' targets may differ (none of them has a sequence to advance).
    let changed = changed_outside_targets(&before, &after, &targets);
    assert!(
        changed.is_empty(),
        "changed outside the allowed mutations' targets: {changed:#?}"
    );
    assert_eq!(files_before, file_state(&paths), "a watched file changed");
    eprintln!(
        "{} payloads through run_query and run_mutation in safe mode; {committed} allowed mutations committed (targets {:?}); nothing else changed",
        attacks.len(),
        { let mut t = targets.clone(); t.sort(); t.dedup(); t }
    );
}
