//! `serve` refuses to start (exit 2) when the guard refuses a published query under a principal
//! who sees it, naming the query, the principal and the refusal.

use std::process::{Command, Stdio};

fn serve_with(config: &str, flags: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("sqlgate.toml");
    std::fs::write(&path, config).expect("write config");
    let out = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .args(["serve", "--config"])
        .arg(&path)
        .args(flags)
        .stdin(Stdio::null())
        .output()
        .expect("run sqlgate-mcp");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const QUERY: &str = r#"
[[queries]]
name = "customer_by_city"
description = "Customers of one city."
sql = "SELECT id, name, email FROM customers WHERE city = :city"
params = { city = { type = "string" } }
"#;

#[test]
fn a_refused_query_stops_the_start() {
    // The demo policy protects customers.email.
    let (code, stderr) = serve_with(&format!("demo = true\n{QUERY}"), &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("published query `customer_by_city` is refused")
            && stderr.contains("email"),
        "{stderr}"
    );
}

#[test]
fn a_principal_who_cannot_see_the_column_stops_the_start() {
    let config = format!(
        r#"demo = true
[policy]
dialect = "sqlite"

[[principals]]
name = "support"
token_env = "SQLGATE_TEST_UNUSED_TOKEN"
policy = {{ columns = {{ deny = ["customers.email"] }} }}
{QUERY}"#
    );
    let (code, stderr) = serve_with(&config, &["--principal", "support"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("customer_by_city") && stderr.contains("principal support"),
        "{stderr}"
    );
}

#[test]
fn an_invalid_name_is_a_usage_error() {
    let config = "demo = true\n[[queries]]\nname = \"list_tables\"\ndescription = \"d\"\nsql = \"SELECT 1\"\n";
    let (code, stderr) = serve_with(config, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("already a tool"), "{stderr}");
}
