//! SIGHUP reloads the server's certificate (renewal without a restart; a broken replacement
//! keeps the one in force) and the client CA's revocation list (a revoked client certificate is
//! refused from then on).

use std::time::{Duration, Instant};

use crate::certs::Ca;
use crate::plain_client::PlainHttp;
use crate::{config, https, serve, server_pki, MTLS_PRINCIPALS};

fn hang_up(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-HUP", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_reloads_the_certificate_and_a_broken_one_keeps_the_old() {
    let dir = tempfile::tempdir().expect("tempdir");
    // `ca.pem` signs the clients; the server's own certificate comes from another CA each time.
    let clients = server_pki(dir.path());
    let first = Ca::new("server CA 1");
    first.server().write(dir.path(), "server");
    let (server, url) = serve(dir.path(), &config(dir.path(), "", MTLS_PRINCIPALS));
    let agent = clients.client("agent-a", "Acme", None);
    let connect = |server_ca: &str| PlainHttp::connect_using(https(server_ca, Some(&agent)), &url);

    connect(&first.pem)
        .await
        .expect("the first certificate is served");
    let second = Ca::new("server CA 2");
    assert!(connect(&second.pem).await.is_err(), "not yet renewed");

    second.server().write(dir.path(), "server");
    hang_up(server.0.id());
    let deadline = Instant::now() + Duration::from_secs(10);
    while connect(&second.pem).await.is_err() {
        assert!(
            Instant::now() < deadline,
            "the renewed certificate was not served after SIGHUP"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        connect(&first.pem).await.is_err(),
        "the old certificate is gone"
    );

    // A key that is not the certificate's: the reload fails, the renewed one stays in force.
    let other = second.server();
    std::fs::write(dir.path().join("server.key"), other.key).expect("write key");
    std::fs::write(dir.path().join("server.pem"), first.server().cert).expect("write cert");
    hang_up(server.0.id());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut s = connect(&second.pem)
        .await
        .expect("still served after a failed reload");
    assert!(s.run_query("SELECT 1 AS one").await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_client_certificate_is_refused_once_its_crl_is_loaded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let agents = server_pki(dir.path());
    let servers = Ca::new("server CA");
    servers.server().write(dir.path(), "server");
    let a = agents.client("agent-a", "Acme", None);
    let b = agents.client("agent-b", "Acme", Some("spiffe://acme/tenant/2"));
    let crl = dir.path().join("agents.crl");
    std::fs::write(&crl, agents.crl(&[], 1)).expect("crl");
    let extra = format!("tls_client_crl_file = \"{}\"", crl.display());
    let (server, url) = serve(dir.path(), &config(dir.path(), &extra, MTLS_PRINCIPALS));
    let connect = |leaf| PlainHttp::connect_using(https(&servers.pem, Some(leaf)), &url);
    connect(&a).await.expect("not revoked yet");

    // The CA revokes agent-a; the server reads the new list on SIGHUP.
    std::fs::write(&crl, agents.crl(&[a.serial], 2)).expect("crl");
    hang_up(server.0.id());
    let deadline = Instant::now() + Duration::from_secs(10);
    while connect(&a).await.is_ok() {
        assert!(
            Instant::now() < deadline,
            "agent-a still served after its revocation"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut s = connect(&b).await.expect("agent-b is not revoked");
    assert!(s.run_query("SELECT 1 AS one").await.is_ok());
}
