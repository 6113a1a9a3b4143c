//! HTTPS and mutual TLS: the real binary serving the demo database with a certificate made by
//! the test's own CA ([`certs`]). A client certificate selects its principal (by common name,
//! by URI subjectAltName), each tenant reads only its rows and the audit says `mtls` with the
//! certificate's subject; a session is its certificate's, not its principal's ([`sessions`]);
//! an untrusted certificate, or none, is refused in the handshake; the
//! certificate is reloaded on SIGHUP ([`reload`]); wrong settings are refused at start
//! ([`settings`]); the README's configuration and its nginx block work as written
//! ([`readme`]).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
// Shared with the principals tests, of which this target uses a part.
#[allow(dead_code)]
#[path = "../principals/fixture.rs"]
mod fixture;
#[allow(dead_code)]
#[path = "../../bench/plain_client.rs"]
mod plain_client;

mod certs;
mod readme;
mod reload;
mod sessions;
mod settings;

use std::path::Path;

use serde_json::Value;

use certs::{Ca, Leaf};
use plain_client::PlainHttp;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Two principals chosen by client certificate, each with its tenant's orders.
const MTLS_PRINCIPALS: &str = r#"
[[principals]]
name = "tenant-1"
client_cert = { cn = "agent-a" }
vars = { tenant = 1 }
policy = { rows = { orders = "customer_id = :tenant" } }

[[principals]]
name = "tenant-2"
client_cert = { san = "spiffe://acme/tenant/2" }
vars = { tenant = 2 }
policy = { rows = { orders = "customer_id = :tenant" } }
"#;

/// The server's PKI in `dir`: the CA, its certificate (`server.pem` / `.key`) and `ca.pem`.
fn server_pki(dir: &Path) -> Ca {
    let ca = Ca::new("sqlgate test CA");
    ca.server().write(dir, "server");
    std::fs::write(dir.join("ca.pem"), &ca.pem).expect("write ca");
    ca
}

/// The config: the demo over HTTPS with client certificates from `ca.pem`, the audit in `dir`.
fn config(dir: &Path, extra: &str, principals: &str) -> String {
    format!(
        "demo = true\naudit_file = \"{}\"\ntls_cert_file = \"server.pem\"\ntls_key_file = \"server.key\"\ntls_client_ca_file = \"ca.pem\"\n{extra}\n{principals}",
        dir.join("audit.jsonl").display()
    )
}

/// A served config: the server (stopped when dropped) and its URL.
fn serve(dir: &Path, text: &str) -> (Server, String) {
    let path = fixture::write_config(dir, text);
    let (child, url) = fixture::start_http(&path, &[], &[]);
    assert!(url.starts_with("https://"), "{url}");
    (Server(child), url)
}

pub use fixture::Server;

/// An HTTPS client trusting `ca_pem` only, presenting `identity` if given.
fn https(ca_pem: &str, identity: Option<&Leaf>) -> reqwest::Client {
    let mut b = reqwest::Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(ca_pem.as_bytes()).expect("ca"));
    if let Some(leaf) = identity {
        b = b.identity(leaf.identity());
    }
    b.build().expect("client")
}

/// An HTTPS client trusting `ca_pem` only, sending `token` as its bearer token.
fn https_with_token(ca_pem: &str, token: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .use_rustls_tls()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(ca_pem.as_bytes()).expect("ca"))
        .default_headers(
            [(
                reqwest::header::AUTHORIZATION,
                format!("Bearer {token}").parse().expect("header"),
            )]
            .into_iter()
            .collect(),
        )
        .build()
        .expect("client")
}

/// The `customer_id` of every order the session sees.
async fn order_customers(session: &mut PlainHttp) -> Vec<i64> {
    let response = session
        .run_query_response("SELECT id, customer_id FROM orders ORDER BY id")
        .await
        .expect("run_query");
    let result = &response["result"];
    assert_ne!(result["isError"], true, "{response}");
    result["structuredContent"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["customer_id"].as_i64().expect("customer_id"))
        .collect()
}

fn audit_records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("tool").is_some())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_client_certificate_reads_its_tenant_and_the_audit_says_mtls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = server_pki(dir.path());
    let (_server, url) = serve(dir.path(), &config(dir.path(), "", MTLS_PRINCIPALS));

    // Tenant 1 by common name, tenant 2 by URI subjectAltName (its common name matches nothing).
    let a = ca.client("agent-a", "Acme", None);
    let b = ca.client("agent-b", "Acme", Some("spiffe://acme/tenant/2"));
    for (leaf, tenant) in [(&a, 1), (&b, 2)] {
        let mut session = PlainHttp::connect_using(https(&ca.pem, Some(leaf)), &url)
            .await
            .expect("session");
        let customers = order_customers(&mut session).await;
        assert!(!customers.is_empty(), "tenant {tenant} sees its orders");
        assert!(
            customers.iter().all(|c| *c == tenant),
            "tenant {tenant} saw {customers:?}"
        );
    }

    // Sessions alternating the two certificates, concurrently, never cross.
    let mut tasks = Vec::new();
    for i in 0..20 {
        let (leaf, tenant) = if i % 2 == 0 { (&a, 1) } else { (&b, 2) };
        let client = https(&ca.pem, Some(leaf));
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let mut s = PlainHttp::connect_using(client, &url)
                .await
                .expect("session");
            let customers = order_customers(&mut s).await;
            assert!(customers.iter().all(|c| *c == tenant), "{customers:?}");
        }));
    }
    for t in tasks {
        t.await.expect("session task");
    }

    let records = audit_records(dir.path());
    let calls: Vec<&Value> = records
        .iter()
        .filter(|r| r["tool"] == "run_query")
        .collect();
    assert_eq!(calls.len(), 22, "{records:?}");
    for r in calls {
        assert_eq!(r["auth"], "mtls", "{r}");
        let subject = r["auth_subject"].as_str().expect("auth_subject");
        let issuer = r["auth_issuer"].as_str().expect("auth_issuer");
        assert_eq!(issuer, "CN=sqlgate test CA", "{r}");
        match r["principal"].as_str() {
            Some("tenant-1") => assert_eq!(subject, "CN=agent-a,O=Acme"),
            Some("tenant-2") => assert_eq!(subject, "CN=agent-b,O=Acme"),
            other => panic!("principal {other:?} in {r}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_or_missing_certificates_are_refused_in_the_handshake() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = server_pki(dir.path());
    let (_server, url) = serve(dir.path(), &config(dir.path(), "", MTLS_PRINCIPALS));

    // Same names, another CA: refused before any HTTP is read.
    let rogue = Ca::new("sqlgate test CA").client("agent-a", "Acme", None);
    let err = PlainHttp::connect_using(https(&ca.pem, Some(&rogue)), &url)
        .await
        .err()
        .expect("an untrusted certificate is refused");
    assert!(is_connection_error(&err), "{err:?}");
    // No certificate at all: refused too (client certificates are required by default).
    let err = PlainHttp::connect_using(https(&ca.pem, None), &url)
        .await
        .err()
        .expect("a client without a certificate is refused");
    assert!(is_connection_error(&err), "{err:?}");
    // Plain HTTP on the TLS port gets no HTTP answer.
    let plain = url.replacen("https://", "http://", 1);
    assert!(reqwest::Client::new().post(&plain).send().await.is_err());

    // A certificate the CA signed that names no principal: 403, saying which certificate.
    let stranger = ca.client("agent-z", "Elsewhere", None);
    let response = post_initialize(&https(&ca.pem, Some(&stranger)), &url).await;
    assert_eq!(response.status(), 403);
    let body: Value = response.json().await.expect("json");
    let why = body["error_description"].as_str().unwrap_or_default();
    assert!(why.contains("CN=agent-z,O=Elsewhere"), "{body}");

    // The server still serves a trusted client.
    let a = ca.client("agent-a", "Acme", None);
    let mut s = PlainHttp::connect_using(https(&ca.pem, Some(&a)), &url)
        .await
        .expect("session");
    assert!(order_customers(&mut s).await.iter().all(|c| *c == 1));
    assert!(
        audit_records(dir.path())
            .iter()
            .all(|r| r["principal"] == "tenant-1"),
        "only the trusted client reached a tool"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optional_client_certificates_let_a_token_in_and_still_refuse_an_untrusted_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = server_pki(dir.path());
    let principals = format!(
        "{MTLS_PRINCIPALS}\n[[principals]]\nname = \"acme\"\ntoken_env = \"SQLGATE_TEST_ACME\"\nvars = {{ tenant = 3 }}\npolicy = {{ rows = {{ orders = \"customer_id = :tenant\" }} }}\n"
    );
    let text = config(dir.path(), "tls_client_auth = \"optional\"", &principals);
    let (_server, url) = serve(dir.path(), &text);

    // No certificate, the static token: served as `acme`.
    let http = https_with_token(&ca.pem, fixture::ACME_TOKEN);
    let mut s = PlainHttp::connect_using(http, &url).await.expect("session");
    assert!(order_customers(&mut s).await.iter().all(|c| *c == 3));
    // No certificate and no token: 401, as any HTTP server of this kind.
    let response = post_initialize(&https(&ca.pem, None), &url).await;
    assert_eq!(response.status(), 401);
    // An untrusted certificate is still refused in the handshake.
    let rogue = Ca::new("rogue").client("agent-a", "Acme", None);
    let err = PlainHttp::connect_using(https(&ca.pem, Some(&rogue)), &url)
        .await
        .err()
        .expect("refused");
    assert!(is_connection_error(&err), "{err:?}");
    // A trusted certificate still selects its principal.
    let a = ca.client("agent-a", "Acme", None);
    let mut s = PlainHttp::connect_using(https(&ca.pem, Some(&a)), &url)
        .await
        .expect("session");
    assert!(order_customers(&mut s).await.iter().all(|c| *c == 1));
}

/// POSTs an `initialize` request; returns the response (whatever its status).
async fn post_initialize(http: &reqwest::Client, url: &str) -> reqwest::Response {
    http.post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(fixture::initialize_body().to_string())
        .send()
        .await
        .expect("an HTTP answer")
}

/// Whether the error is the connection's (the TLS handshake's), not an HTTP status.
fn is_connection_error(err: &Error) -> bool {
    match err.downcast_ref::<reqwest::Error>() {
        Some(e) => e.status().is_none() && (e.is_connect() || e.is_request()),
        None => false,
    }
}
