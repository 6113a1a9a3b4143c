//! TLS settings that cannot work are refused at start (exit 2), naming the setting.

use crate::certs::Ca;
use crate::fixture::{refuse, write_config};
use crate::{server_pki, MTLS_PRINCIPALS};

/// `serve --config` on `text` (in a folder holding the test PKI) with `args`: exit 2 and every
/// one of `says` on stderr.
fn refused(text: &str, args: &[&str], says: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    server_pki(dir.path());
    Ca::new("other").server().write(dir.path(), "other");
    std::fs::write(dir.path().join("garbage.pem"), "not a certificate\n").expect("write");
    let path = write_config(dir.path(), text);
    let mut all = vec!["--config", path.to_str().expect("utf-8 path")];
    all.extend_from_slice(args);
    let out = refuse(&all);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
    for s in says {
        assert!(stderr.contains(s), "{text}: expected `{s}` in: {stderr}");
    }
}

const HTTP: &[&str] = &["--http", "127.0.0.1:0"];

#[test]
fn settings_that_cannot_work_are_refused_at_start() {
    let tls = "demo = true\ntls_cert_file = \"server.pem\"\ntls_key_file = \"server.key\"\n";
    let mtls = format!("{tls}tls_client_ca_file = \"ca.pem\"\n");
    // A principal chosen by certificate without mutual TLS.
    refused(
        &format!("demo = true\n{MTLS_PRINCIPALS}"),
        HTTP,
        &["tenant-1", "client_cert", "tls_client_ca_file"],
    );
    refused(
        &format!("{tls}{MTLS_PRINCIPALS}"),
        HTTP,
        &["client_cert", "tls_client_ca_file"],
    );
    // Half a pair, a key of another certificate, a file that is no certificate.
    refused(
        "demo = true\ntls_cert_file = \"server.pem\"\n",
        HTTP,
        &["tls_cert_file needs tls_key_file"],
    );
    refused(
        "demo = true\ntls_cert_file = \"server.pem\"\ntls_key_file = \"other.key\"\n",
        HTTP,
        &["other.key", "server.pem"],
    );
    refused(
        "demo = true\ntls_cert_file = \"garbage.pem\"\ntls_key_file = \"server.key\"\n",
        HTTP,
        &["tls_cert_file", "garbage.pem"],
    );
    refused(
        &format!("{tls}tls_client_ca_file = \"missing.pem\"\n"),
        HTTP,
        &["tls_client_ca_file", "missing.pem"],
    );
    // TLS is for HTTP; client settings need a CA; a certificate rule must name something.
    refused(tls, &[], &["--http"]);
    refused(
        &format!("{tls}tls_client_auth = \"optional\"\n"),
        HTTP,
        &["tls_client_auth and tls_client_crl_file need tls_client_ca_file"],
    );
    refused(
        &format!("{mtls}[[principals]]\nname = \"x\"\nclient_cert = {{}}\n"),
        HTTP,
        &["client_cert", "cn", "san", "subject"],
    );
    refused(
        &format!("{mtls}[[principals]]\nname = \"x\"\nclient_cert = {{ cn = \"a\" }}\ntoken_env = \"SQLGATE_TEST_ACME\"\n"),
        HTTP,
        &["give one of"],
    );
}
