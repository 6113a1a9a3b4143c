//! Approvals without a session (MCP 2026-07-28): `run_mutation` in `safe` / `delete_safe`
//! over `--stateless` HTTP previews and answers `input_required` with the approval form and a
//! sealed `requestState`; the retry with the user's answer is checked again from the start and
//! commits at most once. The real binary on a SQLite copy of the demo database, driven with
//! raw JSON-RPC as a 2026-07-28 client sends it, the database read directly before and after.
//! Two instances sharing the approval key: one previews, the other commits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "../principals/fixture.rs"]
mod fixture;

mod batch;
mod client;
mod engines;
mod refusals;
mod webhook;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sqlgate_mcp::app::demo::demo_backend;
use sqlgate_mcp::backend::Backend;

use client::Client2026;

/// The variable the servers read their approval key from.
pub const KEY_ENV: &str = "SQLGATE_TEST_APPROVAL_KEY";
/// The approval key two instances share.
pub const KEY: &str = "0123456789abcdef0123456789abcdef-test-approval-key";
/// A mutation that needs approval in `safe`.
pub const UPDATE_7: &str = "UPDATE orders SET status = 'cancelled' WHERE id = 7";

/// A writable copy of the demo database in `dir`.
pub fn shop(dir: &Path) -> PathBuf {
    let backend = demo_backend(true).expect("demo");
    let Backend::Sqlite(b) = &backend else {
        panic!("the demo is SQLite")
    };
    let path = dir.join("shop.db");
    std::fs::copy(b.path(), &path).expect("copy the demo");
    path
}

/// Every row of orders and order_lines, read directly.
pub fn contents(db: &Path) -> Vec<String> {
    common::demo_rows(db)
}

/// Order 7's status, read directly.
pub fn status_of_7(db: &Path) -> String {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row("SELECT status FROM orders WHERE id = 7", [], |r| r.get(0))
        .unwrap()
}

/// A stateless server in `mode` on `db`, its config and audit in `dir`, with two principals
/// (acme, globex: the fixture's tokens) and the approval key from the environment
/// (`key: None` leaves it unset: the instance makes its own).
pub fn serve(
    dir: &Path,
    db: &Path,
    mode: &str,
    key: Option<&str>,
    extra: &str,
) -> (Server, String) {
    let key_line = if key.is_some() {
        format!("approval_key_env = \"{KEY_ENV}\"\n")
    } else {
        String::new()
    };
    let config = format!(
        r#"database_url = "sqlite:{db}"
mode = "{mode}"
stateless = true
audit_file = "{audit}"
{key_line}{extra}
[policy]
dialect = "sqlite"
[policy.writes]
tables = ["orders", "order_lines"]
classes = ["mutation_create", "mutation_delete"]

[[principals]]
name = "acme"
token_env = "SQLGATE_TEST_ACME"

[[principals]]
name = "globex"
token_env = "SQLGATE_TEST_GLOBEX"
"#,
        db = db.display(),
        audit = dir
            .join(format!("audit-{}.jsonl", std::process::id()))
            .display(),
    );
    let name = format!(
        "sqlgate-{}.toml",
        dir.read_dir().map(|d| d.count()).unwrap_or(0)
    );
    let path = dir.join(name);
    std::fs::write(&path, config).expect("config");
    let env: Vec<(&str, &str)> = key.map(|k| vec![(KEY_ENV, k)]).unwrap_or_default();
    let (child, url) = fixture::start_http(&path, &[], &env);
    (Server(child), url)
}

pub use fixture::Server;

/// The user's answer to the approval form.
pub fn accept(approve: bool) -> Value {
    json!({"approval": {"action": "accept", "content": {"approve": approve}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_safe_mode_asks_by_input_required_and_commits_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (_server, url) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let acme = Client2026::new(&url, fixture::ACME_TOKEN);
    let before = contents(&db);

    // The first call previews and asks: the form, the state; nothing changed.
    let asked = acme.run_mutation(UPDATE_7, None, None).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let form = &result["inputRequests"]["approval"];
    assert_eq!(form["method"], "elicitation/create");
    let message = form["params"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(UPDATE_7) && message.contains("1 row would change"),
        "{message}"
    );
    assert_eq!(
        form["params"]["requestedSchema"]["properties"]["approve"]["type"],
        "boolean"
    );
    let state = result["requestState"]
        .as_str()
        .expect("requestState")
        .to_string();
    assert_eq!(contents(&db), before, "asking changes nothing");

    // The retry with the user's yes commits.
    let done = acme
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    let sc = &done["result"]["structuredContent"];
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(
        (sc["affected_rows"].as_u64(), sc["decision"].as_str()),
        (Some(1), Some("needs_approval_accepted"))
    );
    assert_eq!(status_of_7(&db), "cancelled");
    let after = contents(&db);

    // The same state again: refused, nothing changed.
    let again = acme
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(client::code(&again), "approval_state_replayed", "{again}");
    assert_eq!(contents(&db), after);

    // The audit: asked, then accepted, then refused; each with the principal.
    let audit = std::fs::read_to_string(
        dir.path()
            .join(format!("audit-{}.jsonl", std::process::id())),
    )
    .unwrap_or_default();
    let decisions: Vec<String> = audit
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["tool"] == "run_mutation")
        .map(|r| {
            format!(
                "{}:{}",
                r["principal"].as_str().unwrap_or("-"),
                r["decision"].as_str().unwrap_or("-")
            )
        })
        .collect();
    assert_eq!(
        decisions,
        [
            "acme:needs_approval_requested",
            "acme:needs_approval_accepted",
            "acme:refuse"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_instance_previews_another_commits_exactly_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (_a, url_a) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let (_b, url_b) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let (_c, url_c) = serve(dir.path(), &db, "safe", None, "");
    let on = |url: &str| Client2026::new(url, fixture::ACME_TOKEN);
    let before = contents(&db);

    let asked = on(&url_a).run_mutation(UPDATE_7, None, None).await;
    let state = asked["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_string();
    // An instance with a key of its own cannot open it.
    let foreign = on(&url_c)
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(
        client::code(&foreign),
        "approval_state_invalid",
        "{foreign}"
    );
    assert_eq!(contents(&db), before);
    // B commits what A previewed; a second retry on B is refused.
    let done = on(&url_b)
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(
        done["result"]["structuredContent"]["affected_rows"], 1,
        "{done}"
    );
    assert_eq!(status_of_7(&db), "cancelled");
    let again = on(&url_b)
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(client::code(&again), "approval_state_replayed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declined_cancelled_and_unanswered_change_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (_server, url) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let acme = Client2026::new(&url, fixture::ACME_TOKEN);
    let before = contents(&db);
    for (answer, code) in [
        (Some(accept(false)), "approval_declined"),
        (
            Some(json!({"approval": {"action": "decline"}})),
            "approval_declined",
        ),
        (
            Some(json!({"approval": {"action": "cancel"}})),
            "approval_cancelled",
        ),
        (
            Some(json!({"other": {"action": "accept", "content": {"approve": true}}})),
            "approval_cancelled",
        ),
        (None, "approval_cancelled"),
    ] {
        let asked = acme.run_mutation(UPDATE_7, None, None).await;
        let state = asked["result"]["requestState"]
            .as_str()
            .expect("state")
            .to_string();
        let r = acme
            .run_mutation(UPDATE_7, Some(&state), answer.clone())
            .await;
        assert_eq!(client::code(&r), code, "{answer:?}: {r}");
        assert_eq!(contents(&db), before, "{answer:?}");
    }
    // A client that did not announce elicitation cannot be asked.
    let r = acme
        .without_elicitation()
        .run_mutation(UPDATE_7, None, None)
        .await;
    assert_eq!(client::code(&r), "approval_unavailable", "{r}");
    assert_eq!(contents(&db), before);
}
