//! What the principals tests share: the binary, two principals' configuration and tokens, `serve`
//! run to be refused or to serve over HTTP, and clients and queries of a served principal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::common::{call, structured};

pub const BIN: &str = env!("CARGO_BIN_EXE_sqlgate-mcp");
pub const ACME_TOKEN: &str = "acme-token-9f1c2b";
pub const GLOBEX_TOKEN: &str = "globex-token-77ad01";

/// Two principals on the demo database: `acme` sees the orders of customer 1, `globex` those of
/// customer 2 and not `products`, with a lower row cap.
pub const TWO_PRINCIPALS: &str = r#"
demo = true

[[principals]]
name = "acme"
token_env = "SQLGATE_TEST_ACME"
vars = { tenant = 1 }
policy = { rows = { orders = "customer_id = :tenant" } }

[[principals]]
name = "globex"
token_env = "SQLGATE_TEST_GLOBEX"
vars = { tenant = 2 }
policy = { max_rows = 2, tables = { deny = ["products"] }, rows = { orders = "customer_id = :tenant" } }
"#;

/// Writes `text` to `dir/sqlgate.toml`; returns its path.
pub fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("sqlgate.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Runs `serve` with `args`, the two tokens in the environment, and no stdin; for start-up
/// refusals, which exit before serving.
pub fn refuse(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("serve")
        .args(args)
        .env("SQLGATE_TEST_ACME", ACME_TOKEN)
        .env("SQLGATE_TEST_GLOBEX", GLOBEX_TOKEN)
        .env_remove("SQLGATE_DATABASE_URL")
        .stdin(Stdio::null())
        .output()
        .expect("run sqlgate-mcp")
}

/// The config `TWO_PRINCIPALS` with `from` replaced by `to`, refused at start: exit 2 and a
/// message on stderr containing every string of `says`, and no Rust type's name.
pub fn refused_config(from: &str, to: &str, extra_args: &[&str], says: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = TWO_PRINCIPALS.replacen(from, to, 1);
    assert_ne!(text, TWO_PRINCIPALS, "`{from}` is not in the config");
    let path = write_config(dir.path(), &text);
    let mut args = vec!["--config", path.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra_args);
    let out = refuse(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{to}: {stderr}");
    for s in says {
        assert!(stderr.contains(s), "{to}: expected `{s}` in: {stderr}");
    }
    assert!(
        !stderr.contains(ACME_TOKEN) && !stderr.contains(GLOBEX_TOKEN),
        "a token in a message: {stderr}"
    );
    // What a field takes, in the user's words: never serde's name of a Rust type.
    assert!(!stderr.contains("untagged enum"), "{to}: {stderr}");
}

/// `--http` on a free loopback port.
pub const HTTP: &[&str] = &["--http", "127.0.0.1:0"];

/// The customer ids of every order the session sees.
pub async fn order_customers(client: &rmcp::service::Peer<rmcp::RoleClient>) -> Vec<i64> {
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT id, customer_id FROM orders ORDER BY id"}),
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    structured(&r)["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row["customer_id"].as_i64().expect("customer_id"))
        .collect()
}

/// Starts `serve --config CONFIG --http 127.0.0.1:0 ARGS` with the two tokens set; returns the
/// child and the endpoint.
pub fn start_http(
    config: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(BIN)
        .arg("serve")
        .arg("--config")
        .arg(config)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .env("SQLGATE_TEST_ACME", ACME_TOKEN)
        .env("SQLGATE_TEST_GLOBEX", GLOBEX_TOKEN)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut url = None;
    for line in lines.by_ref() {
        let line = line.expect("stderr line");
        if let Some(rest) = line.split("listening on ").nth(1) {
            url = Some(rest.trim().to_string());
            break;
        }
    }
    // Keep draining stderr so that the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, url.expect("the server reported its address"))
}

/// An MCP client over HTTP sending `token` as its bearer token.
pub async fn http_client(
    url: &str,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string()).auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("client")
}

/// A JSON-RPC `initialize` request.
pub fn initialize_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

/// Stops the server when the test ends, however it ends.
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The fenced `lang` blocks of the server README's section `heading`, up to its next heading of
/// any level.
pub fn readme_blocks(heading: &str, lang: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let section = readme
        .split(&format!("\n{heading}\n"))
        .nth(1)
        .and_then(|s| s.split("\n#").next())
        .unwrap_or_else(|| panic!("no `{heading}` in the README"));
    section
        .split(&format!("```{lang}\n"))
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .map(str::to_string)
        .collect()
}
