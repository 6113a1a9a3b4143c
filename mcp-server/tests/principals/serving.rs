//! Principals served: over stdio with `--principal`, over HTTP by bearer token with sessions bound
//! to their principal, the server's token as the `default` principal, the server's policy with
//! top-level `vars`; the audit names each principal, never its token.

use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::common::{call, structured};
use crate::fixture::{
    http_client, initialize_body, order_customers, refuse, start_http, write_config, ACME_TOKEN,
    BIN, GLOBEX_TOKEN, TWO_PRINCIPALS,
};

#[tokio::test]
async fn stdio_serves_the_named_principal_and_the_audit_names_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_config(dir.path(), TWO_PRINCIPALS);
    let audit = dir.path().join("audit.jsonl");
    let cmd = tokio::process::Command::new(BIN).configure(|c| {
        c.arg("serve")
            .arg("--config")
            .arg(&path)
            .arg("--principal")
            .arg("globex")
            .arg("--audit-file")
            .arg(&audit)
            .env_remove("SQLGATE_TEST_ACME")
            .env_remove("SQLGATE_TEST_GLOBEX");
    });
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("client");
    let info = structured(&call(&client, "server_info", json!({})).await);
    assert_eq!(info["principal"], "globex");
    assert_eq!(info["row_cap"], 2);
    let customers = order_customers(&client).await;
    assert!(
        !customers.is_empty() && customers.iter().all(|c| *c == 2),
        "{customers:?}"
    );
    assert_eq!(customers.len(), 2, "globex's row cap");
    // globex may not read products, and list_tables does not show it.
    let r = call(
        &client,
        "run_query",
        json!({"sql": "SELECT name FROM products"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    let tables = structured(&call(&client, "list_tables", json!({})).await);
    let listed: Vec<(String, bool)> = tables["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_string(),
                t["row_filtered"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![
            ("customers".to_string(), false),
            ("order_lines".to_string(), false),
            ("orders".to_string(), true)
        ]
    );
    let d = structured(&call(&client, "describe_table", json!({"table": "orders"})).await);
    assert_eq!(d["row_filtered"], true);
    client.cancel().await.expect("stop");
    let text = std::fs::read_to_string(&audit).expect("audit");
    let records: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("tool").is_some())
        .collect();
    // server_info, two run_query, list_tables, describe_table: one record each.
    assert_eq!(records.len(), 5, "{text}");
    assert!(records.iter().all(|r| r["principal"] == "globex"), "{text}");
}

/// No token, an unknown token, a prefix of a token, a token without `Bearer`: 401. A connection
/// each: a 401 is sent without reading the body, and may close the connection.
async fn unknown_tokens_are_refused(url: &str) {
    for auth in [
        None,
        Some("Bearer nope".to_string()),
        Some(format!("Bearer {}", &ACME_TOKEN[..ACME_TOKEN.len() - 1])),
        Some(ACME_TOKEN.to_string()),
    ] {
        let mut r = reqwest::Client::new()
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .json(&initialize_body());
        if let Some(a) = &auth {
            r = r.header("Authorization", a);
        }
        assert_eq!(r.send().await.expect("send").status(), 401, "{auth:?}");
    }
}

/// acme opens a session; globex's token on it is refused, acme's is served.
async fn sessions_are_bound_to_their_principal(url: &str) {
    let http = reqwest::Client::new();
    let post = |token: Option<&str>, session: Option<&str>, body: Value| {
        let mut r = http
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .json(&body);
        if let Some(t) = token {
            r = r.header("Authorization", format!("Bearer {t}"));
        }
        if let Some(s) = session {
            r = r.header("Mcp-Session-Id", s);
        }
        r.send()
    };
    let r = post(Some(ACME_TOKEN), None, initialize_body())
        .await
        .expect("send");
    assert_eq!(r.status(), 200);
    let session = r
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_string();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = post(Some(ACME_TOKEN), Some(&session), initialized.clone())
        .await
        .expect("send");
    assert!(r.status().is_success(), "{}", r.status());
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let r = post(Some(GLOBEX_TOKEN), Some(&session), list.clone())
        .await
        .expect("send");
    assert_eq!(
        r.status(),
        404,
        "another principal's token on acme's session"
    );
    let r = post(Some(ACME_TOKEN), Some(&session), list)
        .await
        .expect("send");
    assert_eq!(r.status(), 200);
}

/// Each token sees its own rows, in parallel sessions, and nothing in a request lifts its filter.
async fn each_token_sees_its_own_rows(url: &str) {
    let acme = http_client(url, ACME_TOKEN).await;
    let globex = http_client(url, GLOBEX_TOKEN).await;
    let (a, g) = tokio::join!(order_customers(&acme), order_customers(&globex));
    assert!(!a.is_empty() && a.iter().all(|c| *c == 1), "{a:?}");
    assert!(!g.is_empty() && g.iter().all(|c| *c == 2), "{g:?}");
    // A WHERE naming the other tenant finds nothing: the filter is not the agent's to lift.
    let r = call(
        &acme,
        "run_query",
        json!({"sql": "SELECT count(*) AS n FROM orders WHERE customer_id = 2"}),
    )
    .await;
    assert_eq!(structured(&r)["rows"][0]["n"], 0);
    // Nothing in a request chooses the principal: arguments naming another are just arguments.
    let r = call(&acme, "server_info", json!({"principal": "globex"})).await;
    assert_eq!(structured(&r)["principal"], "acme");
    acme.cancel().await.expect("stop");
    globex.cancel().await.expect("stop");
}

#[tokio::test]
async fn http_routes_by_token_and_binds_sessions_to_their_principal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_config(dir.path(), TWO_PRINCIPALS);
    let audit = dir.path().join("audit.jsonl");
    let (mut child, url) = start_http(&path, &["--audit-file", audit.to_str().expect("path")], &[]);
    unknown_tokens_are_refused(&url).await;
    sessions_are_bound_to_their_principal(&url).await;
    each_token_sees_its_own_rows(&url).await;
    let _ = child.kill();
    let _ = child.wait();

    let text = std::fs::read_to_string(&audit).expect("audit");
    assert!(!text.contains(ACME_TOKEN) && !text.contains(GLOBEX_TOKEN));
    let principals: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("tool").is_some())
        .map(|v| v["principal"].as_str().unwrap_or("(none)").to_string())
        .collect();
    assert!(principals.iter().any(|p| p == "acme"), "{principals:?}");
    assert!(principals.iter().any(|p| p == "globex"), "{principals:?}");
    assert!(
        principals.iter().all(|p| p == "acme" || p == "globex"),
        "{principals:?}"
    );
}

#[tokio::test]
async fn the_server_token_is_the_default_principal_and_otel_names_principals() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_config(dir.path(), TWO_PRINCIPALS);
    let audit = dir.path().join("audit.otel.jsonl");
    // SQLGATE_TEST_ACME doubles as the server token here: refused, one token per principal.
    let out = refuse(&[
        "--config",
        path.to_str().expect("path"),
        "--http",
        "127.0.0.1:0",
        "--auth-token-env",
        "SQLGATE_TEST_ACME",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`default`"));

    let (mut child, url) = start_http(
        &path,
        &[
            "--auth-token-env",
            "SQLGATE_TEST_SERVER",
            "--audit-file",
            audit.to_str().expect("path"),
            "--audit-format",
            "otel",
        ],
        &[("SQLGATE_TEST_SERVER", "server-token-5e5e")],
    );
    let server = http_client(&url, "server-token-5e5e").await;
    let info = structured(&call(&server, "server_info", json!({})).await);
    assert_eq!(info["principal"], "default");
    // The server's own policy: every order, no row filter.
    let all = order_customers(&server).await;
    assert!(all.contains(&1) && all.contains(&2), "{all:?}");
    let acme = http_client(&url, ACME_TOKEN).await;
    assert!(order_customers(&acme).await.iter().all(|c| *c == 1));
    server.cancel().await.expect("stop");
    acme.cancel().await.expect("stop");
    let _ = child.kill();
    let _ = child.wait();
    let text = std::fs::read_to_string(&audit).expect("audit");
    assert!(!text.contains("server-token-5e5e") && !text.contains(ACME_TOKEN));
    let mut seen = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("json line");
        let attrs = &v["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["attributes"];
        let Some(attrs) = attrs.as_array() else {
            continue;
        };
        if let Some(p) = attrs.iter().find(|a| a["key"] == "sqlgate.principal") {
            seen.push(
                p["value"]["stringValue"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    assert!(
        seen.contains(&"default".to_string()) && seen.contains(&"acme".to_string()),
        "{seen:?}"
    );
}

/// Without principals, the server's own policy takes its row filters' values from the top-level
/// `vars`; a variable missing there refuses to start.
#[tokio::test]
async fn the_server_policy_takes_top_level_vars() {
    let dir = tempfile::tempdir().expect("tempdir");
    let policy = "[policy]\ndialect = \"sqlite\"\nmax_rows = 100\n\
                  rows = { orders = \"customer_id = :tenant\" }\n";
    let path = write_config(dir.path(), &format!("demo = true\n{policy}"));
    let out = refuse(&["--config", path.to_str().expect("path")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the server's policy: vars lacks `tenant`"),
        "{stderr}"
    );
    let path = write_config(
        dir.path(),
        &format!("demo = true\nvars = {{ tenant = 3 }}\n{policy}"),
    );
    let cmd = tokio::process::Command::new(BIN).configure(|c| {
        c.arg("serve").arg("--config").arg(&path);
    });
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("client");
    let customers = order_customers(&client).await;
    assert!(
        !customers.is_empty() && customers.iter().all(|c| *c == 3),
        "{customers:?}"
    );
    let info = structured(&call(&client, "server_info", json!({})).await);
    assert!(info.get("principal").is_none(), "{info}");
    client.cancel().await.expect("stop");
}
