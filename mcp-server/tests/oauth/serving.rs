//! Verified tokens served: the claims choose the principal and bind its tenant, the scopes
//! choose whether `run_mutation` exists, and the audit names the token's issuer, subject and
//! client, never the token.

use jsonwebtoken::Algorithm;
use serde_json::{json, Value};

use crate::common::{call, structured};
use crate::fixture::{http_client, order_customers};
use crate::issuer::{sign, Issuer};
use crate::{keys, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_token_sees_its_tenant_and_the_audit_names_it() {
    let issuer = Issuer::start(&[keys::RSA_JWK, keys::EC_JWK, keys::ED_JWK]).await;
    let (_server, url, dir) = serve(&issuer);
    let audit = dir.path().join("audit.jsonl");

    // The same principal, two tenants, three signature algorithms.
    let mut tokens = Vec::new();
    for (tenant, kid, alg) in [
        (1, "rsa-1", Algorithm::RS256),
        (2, "ec-1", Algorithm::ES256),
        (1, "ed-1", Algorithm::EdDSA),
    ] {
        let claims = issuer.claims(
            &format!("user-{tenant}-{kid}"),
            "sql:read",
            json!({"org_role": "analyst", "org_id": tenant}),
        );
        let token = sign(&claims, kid, alg);
        let client = http_client(&url, &token).await;
        let customers = order_customers(&client).await;
        assert!(!customers.is_empty(), "tenant {tenant} sees its orders");
        assert!(
            customers.iter().all(|c| *c == tenant),
            "tenant {tenant} saw {customers:?}"
        );
        // The filter is in the SQL that ran, bound to the claim's value.
        let r = call(
            &client,
            "run_query",
            json!({"sql": "SELECT count(*) AS n FROM orders WHERE customer_id <> 0"}),
        )
        .await;
        let executed = structured(&r)["executed_sql"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            executed.contains(&format!("customer_id = {tenant}")),
            "{executed}"
        );
        tokens.push(token);
        let _ = client.cancel().await;
    }

    // A support token: another principal, every customer's orders, no products.
    let claims = issuer.claims(
        "agent-7",
        "sql:read",
        json!({"roles": ["staff", "support"]}),
    );
    let client = http_client(&url, &sign(&claims, "rsa-1", Algorithm::RS256)).await;
    let customers = order_customers(&client).await;
    assert!(
        customers.iter().any(|c| *c != customers[0]),
        "support sees every tenant"
    );
    let r = call(
        &client,
        "run_query",
        json!({"sql": "SELECT id FROM products"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    let _ = client.cancel().await;

    check_audit(&audit, &issuer.url, &tokens);
}

/// Every record of `audit` names how the caller authenticated and its token's issuer, subject
/// and client; each principal's calls are there; no token is.
fn check_audit(audit: &std::path::Path, issuer: &str, tokens: &[String]) {
    let log = std::fs::read_to_string(audit).expect("audit file");
    let records: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("tool").is_some())
        .collect();
    assert!(!records.is_empty());
    for r in &records {
        assert_eq!(r["auth"], "jwt", "{r}");
        assert_eq!(r["auth_issuer"], issuer, "{r}");
        assert_eq!(r["auth_client_id"], "test-agent", "{r}");
        assert!(r["auth_subject"].as_str().is_some(), "{r}");
    }
    for (principal, subject) in [("analyst", "user-2-ec-1"), ("support", "agent-7")] {
        assert!(
            records
                .iter()
                .any(|r| r["principal"] == principal && r["auth_subject"] == subject),
            "no record of {principal} / {subject}"
        );
    }
    for token in tokens {
        assert!(!log.contains(token.as_str()), "a token in the audit log");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_write_scope_decides_whether_run_mutation_exists() {
    let issuer = Issuer::start(&[keys::RSA_JWK]).await;
    let (_server, url, _dir) = serve(&issuer);
    let update = json!({"sql": "UPDATE orders SET status = 'cancelled' WHERE id = 7"});

    let reader = issuer.claims("r", "sql:read", json!({"roles": "support"}));
    let client = http_client(&url, &sign(&reader, "rsa-1", Algorithm::RS256)).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().all(|t| t.name != "run_mutation"), "{tools:?}");
    assert!(tools.iter().any(|t| t.name == "run_query"));
    let r = call(&client, "run_mutation", update.clone()).await;
    assert_eq!(r.is_error, Some(true));
    let out = structured(&r);
    assert_eq!(out["code"], "insufficient_scope", "{out}");
    assert!(
        out["message"]
            .as_str()
            .unwrap_or_default()
            .contains("sql:write"),
        "{out}"
    );
    let _ = client.cancel().await;

    let writer = issuer.claims("w", "sql:read sql:write", json!({"roles": "support"}));
    let client = http_client(&url, &sign(&writer, "rsa-1", Algorithm::RS256)).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "run_mutation"));
    let r = call(&client, "run_mutation", update).await;
    assert_ne!(r.is_error, Some(true), "{:?}", structured(&r));
    assert_eq!(structured(&r)["affected_rows"], 1);
    let _ = client.cancel().await;
}
