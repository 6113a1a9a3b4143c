//! The README's OAuth configuration ("OAuth 2.1 access tokens (JWT)"), served on Chinook
//! (PostgreSQL) with the stand-in issuer in place of the README's: a customer agent's token
//! sees its customer's invoices only; a staff token sees every customer's, and no email.

use std::path::Path;

use jsonwebtoken::Algorithm;
use serde_json::json;

use crate::common::{call, chinook_url, query_ok};
use crate::fixture::http_client;
use crate::issuer::{sign, Issuer};
use crate::{keys, start, Server};

const README_ISSUER: &str = "https://idp.example.com/realms/acme";
const README_RESOURCE: &str = "https://sqlgate.example.com/mcp";

/// The TOML block of the README's OAuth section.
fn readme_oauth_block() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let section = readme
        .split("## OAuth 2.1 access tokens (JWT)")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's OAuth section");
    let blocks: Vec<&str> = section
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    let [config] = blocks[..] else {
        panic!("one TOML block in the OAuth section, not {}", blocks.len())
    };
    config.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_configuration_serves_each_customer_its_invoices() {
    let readme = readme_oauth_block();
    assert!(readme.contains(README_ISSUER) && readme.contains(README_RESOURCE));
    let Some(db) = chinook_url("the README's OAuth configuration") else {
        return;
    };
    let issuer = Issuer::start(&[keys::EC_JWK]).await;
    let config = readme
        .replace(README_ISSUER, &issuer.url)
        .lines()
        .map(|l| {
            if l.starts_with("database_url") {
                format!("database_url = \"{db}\"")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, url) = start(dir.path(), &config);
    let _server = Server(child);
    let token = |sub: &str, extra: serde_json::Value| {
        let mut claims = issuer.claims(sub, "sql:read", extra);
        claims["aud"] = json!(README_RESOURCE);
        sign(&claims, "ec-1", Algorithm::ES256)
    };

    let agent = http_client(
        &url,
        &token("c42", json!({"azp": "support-portal", "customer_id": 42})),
    )
    .await;
    let out = query_ok(&agent, "SELECT DISTINCT customer_id FROM invoice").await;
    assert_eq!(out["rows"], json!([{"customer_id": 42}]), "{out}");
    let r = call(
        &agent,
        "run_query",
        json!({"sql": "SELECT * FROM invoice_line"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true), "only customer and invoice");
    let _ = agent.cancel().await;

    let staff = http_client(&url, &token("s1", json!({"groups": ["sqlgate-staff"]}))).await;
    let out = query_ok(
        &staff,
        "SELECT count(DISTINCT customer_id) AS n FROM invoice",
    )
    .await;
    assert!(
        out["rows"][0]["n"].as_i64().unwrap_or_default() > 1,
        "{out}"
    );
    let r = call(
        &staff,
        "run_query",
        json!({"sql": "SELECT email FROM customer"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true), "staff see no email");
    let _ = staff.cancel().await;
}
