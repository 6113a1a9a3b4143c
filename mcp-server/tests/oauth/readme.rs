//! The README's OAuth configurations ("OAuth 2.1 access tokens (JWT)", and those for Keycloak
//! and Auth0), served on Chinook (PostgreSQL) with the stand-in issuer in place of the
//! README's, signing tokens shaped as each provider's: a customer agent's token sees its
//! customer's invoices only; a staff token sees every customer's, and no email.

use jsonwebtoken::Algorithm;
use serde_json::json;

use crate::common::{call, chinook_url, query_ok};
use crate::fixture::{http_client, readme_blocks};
use crate::issuer::{sign, Issuer};
use crate::{keys, start, Server};

const README_ISSUER: &str = "https://idp.example.com/realms/acme";
const README_RESOURCE: &str = "https://sqlgate.example.com/mcp";

/// The one TOML block of the README's section `heading`.
fn readme_config(heading: &str) -> String {
    let blocks = readme_blocks(heading, "toml");
    let [config] = &blocks[..] else {
        panic!("one TOML block under `{heading}`, not {}", blocks.len())
    };
    config.clone()
}

/// `config` with the stand-in issuer for `readme_issuer` and `db` for its database.
fn served_as(config: &str, readme_issuer: &str, issuer: &Issuer, db: &str) -> String {
    config
        .replace(readme_issuer, &issuer.url)
        .lines()
        .map(|l| {
            if l.starts_with("database_url") {
                format!("database_url = \"{db}\"")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The distinct `customer_id` of the invoices `token` sees.
async fn invoice_customers(url: &str, token: &str) -> serde_json::Value {
    let agent = http_client(url, token).await;
    let out = query_ok(&agent, "SELECT DISTINCT customer_id FROM invoice").await;
    let _ = agent.cancel().await;
    out["rows"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_keycloak_and_auth0_configurations_serve_tokens_shaped_as_theirs() {
    let keycloak = readme_config("### Keycloak");
    let auth0 = readme_config("### Auth0");
    let Some(db) = chinook_url("the README's Keycloak and Auth0 configurations") else {
        return;
    };
    let issuer = Issuer::start(&[keys::RSA_JWK]).await;
    let cases = [
        (
            keycloak,
            "https://keycloak.example.com/realms/acme",
            // Keycloak: the client in `azp`, the mapper's claim, `scope` with the client scopes.
            json!({"azp": "support-agent", "org_id": 12, "typ": "Bearer"}),
        ),
        (
            auth0,
            "https://acme.us.auth0.com/",
            // Auth0: a client-credentials grant, the Action's namespaced claim.
            json!({"gty": "client-credentials", "azp": "m2m-app", "https://sqlgate.example.com/org_id": 12}),
        ),
    ];
    for (config, readme_issuer, shape) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let (child, url) = start(dir.path(), &served_as(&config, readme_issuer, &issuer, &db));
        let _server = Server(child);
        let mut claims = issuer.claims("agent", "openid sql:read", shape.clone());
        claims["aud"] = json!(README_RESOURCE);
        let token = sign(&claims, "rsa-1", Algorithm::RS256);
        assert_eq!(
            invoice_customers(&url, &token).await,
            json!([{"customer_id": 12}]),
            "{readme_issuer}"
        );
        // The same token for another tenant sees that tenant only.
        let mut other = claims.clone();
        for key in ["org_id", "https://sqlgate.example.com/org_id"] {
            if other.get(key).is_some() {
                other[key] = json!(13);
            }
        }
        let token = sign(&other, "rsa-1", Algorithm::RS256);
        assert_eq!(
            invoice_customers(&url, &token).await,
            json!([{"customer_id": 13}]),
            "{readme_issuer}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_configuration_serves_each_customer_its_invoices() {
    let readme = readme_config("## OAuth 2.1 access tokens (JWT)");
    assert!(readme.contains(README_ISSUER) && readme.contains(README_RESOURCE));
    let Some(db) = chinook_url("the README's OAuth configuration") else {
        return;
    };
    let issuer = Issuer::start(&[keys::EC_JWK]).await;
    let config = served_as(&readme, README_ISSUER, &issuer, &db);
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
