//! The README's "HTTPS and mutual TLS" configuration served on Chinook (PostgreSQL) with the
//! test's certificates in place of its paths, and its nginx block in front of a server on
//! loopback ("Behind a reverse proxy").

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::certs::Ca;
use crate::common::chinook_url;
use crate::fixture::readme_blocks;
use crate::plain_client::PlainHttp;
use crate::{fixture, https, https_with_token, Server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_mtls_configuration_serves_each_certificate_its_principal() {
    let [config] = &readme_blocks("## HTTPS and mutual TLS", "toml")[..] else {
        panic!("one TOML block in the README's TLS section")
    };
    let Some(db) = chinook_url("the README's mutual TLS configuration") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let agents = Ca::new("agents CA");
    let servers = Ca::new("server CA");
    servers.server().write(d, "server");
    std::fs::write(d.join("agents-ca.pem"), &agents.pem).expect("write");
    let config = config
        .replace("/etc/sqlgate/", &format!("{}/", d.display()))
        .lines()
        .map(|l| match l.starts_with("database_url") {
            true => format!("database_url = \"{db}\""),
            false => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = fixture::write_config(d, &config);
    let (child, url) = fixture::start_http(&path, &[], &[]);
    let _server = Server(child);

    let tenant = agents.client(
        "agent-7",
        "Acme",
        Some("spiffe://acme.example/agents/tenant-7"),
    );
    let mut s = PlainHttp::connect_using(https(&servers.pem, Some(&tenant)), &url)
        .await
        .expect("session");
    let r = s
        .run_query_response("SELECT DISTINCT customer_id FROM invoice")
        .await
        .expect("run_query");
    assert_eq!(
        r["result"]["structuredContent"]["rows"],
        serde_json::json!([{"customer_id": 7}]),
        "{r}"
    );
    let r = s
        .run_query_response("SELECT email FROM customer")
        .await
        .expect("run_query");
    assert_eq!(r["result"]["isError"], true, "tenant-7 reads invoices only");

    let reporting = agents.client("reporting-agent", "Acme", None);
    let mut s = PlainHttp::connect_using(https(&servers.pem, Some(&reporting)), &url)
        .await
        .expect("session");
    let n = s
        .run_query("SELECT DISTINCT customer_id FROM invoice")
        .await
        .expect("run_query");
    assert!(n > 1, "reporting reads every customer's invoices");
    let r = s
        .run_query_response("SELECT email FROM customer")
        .await
        .expect("run_query");
    assert_eq!(r["result"]["isError"], true, "and no email");
    // Same common name, another organization: the whole subject must match too.
    let other = agents.client("reporting-agent", "Elsewhere", None);
    assert!(
        PlainHttp::connect_using(https(&servers.pem, Some(&other)), &url)
            .await
            .is_err()
    );
}

/// nginx from PATH or /usr/sbin; `None` (and the test skips, unless in CI) without it.
fn nginx() -> Option<String> {
    let found = ["nginx", "/usr/sbin/nginx"].into_iter().find(|n| {
        Command::new(n)
            .arg("-v")
            .stderr(Stdio::null())
            .status()
            .is_ok()
    });
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "nginx is missing: .ci/run installs nginx-light"
        );
        eprintln!("SKIPPED the README's reverse proxy: no nginx on this machine");
    }
    found.map(str::to_string)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_nginx_block_proxies_streamable_http() {
    let [block] = &readme_blocks("### Behind a reverse proxy", "nginx")[..] else {
        panic!("one nginx block in the README's proxy section")
    };
    let Some(nginx) = nginx() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let ca = Ca::new("proxy CA");
    let (cert, key) = ca.server().write(d, "proxy");

    // sqlgate on loopback, with a token.
    let path = fixture::write_config(d, "demo = true\nauth_token_env = \"SQLGATE_TEST_ACME\"\n");
    let (child, upstream) = fixture::start_http(&path, &[], &[]);
    let _server = Server(child);
    let upstream = upstream
        .trim_end_matches("/mcp")
        .trim_start_matches("http://")
        .to_string();

    let port = free_port();
    let server_block = block
        .replace("listen 443 ssl;", &format!("listen 127.0.0.1:{port} ssl;"))
        .replace(
            "/etc/ssl/sqlgate.example.com.pem",
            &cert.display().to_string(),
        )
        .replace(
            "/etc/ssl/sqlgate.example.com.key",
            &key.display().to_string(),
        )
        .replace("127.0.0.1:8765", &upstream);
    let conf = format!(
        "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\nevents {{}}\nhttp {{\naccess_log off;\nclient_body_temp_path {d}/body;\nproxy_temp_path {d}/proxy;\n{server_block}\n}}\n",
        d = d.display()
    );
    std::fs::write(d.join("nginx.conf"), conf).expect("write nginx.conf");
    let proxy = Command::new(&nginx)
        .args(["-p", &d.display().to_string(), "-c"])
        .arg(d.join("nginx.conf"))
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx");
    let _proxy = Server(proxy);

    let url = format!("https://127.0.0.1:{port}/mcp");
    let client = || https_with_token(&ca.pem, fixture::ACME_TOKEN);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut session = loop {
        match PlainHttp::connect_using(client(), &url).await {
            Ok(s) => break s,
            Err(e) => {
                let log = std::fs::read_to_string(d.join("error.log")).unwrap_or_default();
                assert!(
                    Instant::now() < deadline,
                    "no session through nginx: {e}\n{log}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    // Answers come back as server-sent events through the proxy.
    for _ in 0..3 {
        let n = session
            .run_query("SELECT id FROM orders")
            .await
            .expect("run_query through nginx");
        assert!(n > 0);
    }
}
