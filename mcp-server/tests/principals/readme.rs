//! The README's principals configuration ("Principals (several API keys)").

use std::path::Path;

use serde_json::json;

use crate::common::{self, call, structured};
use crate::fixture::{http_client, start_http, write_config};

/// The two TOML blocks of the README's principals section: the server's configuration and
/// `globex.toml`, the policy file of one of its principals.
fn readme_principals_blocks() -> (String, String) {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let section = readme
        .split("## Principals (several API keys)")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's principals section");
    let blocks: Vec<&str> = section
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    let [config, globex] = blocks[..] else {
        panic!(
            "two TOML blocks in the principals section, not {}",
            blocks.len()
        )
    };
    (config.to_string(), globex.to_string())
}

/// Each principal's policy of `config` (policy files in `dir`) narrows the server's and has every
/// variable its row filters name.
fn policies_narrow_the_server(config: &str, dir: &Path) {
    use sqlgate_mcp::config::file::literal_vars;
    use sqlgate_mcp::config::{load_policy_layer, FileConfig, Principal};
    use sqlgate_mcp::transport::identify::Credential;
    let file: FileConfig = toml::from_str(config).expect("the README's config parses");
    let server = sqlgate::Policy {
        dialect: sqlgate::Dialect::Postgres,
        ..file.policy.clone().expect("[policy]")
    };
    assert_eq!(file.principals.len(), 2);
    for p in &file.principals {
        let layer = match (&p.policy, &p.policy_file) {
            (Some(l), None) => l.clone(),
            (None, Some(f)) => load_policy_layer(&dir.join(f)).expect("layer file"),
            other => panic!("{other:?}"),
        };
        let principal = Principal {
            name: p.name.clone(),
            credential: Credential::None,
            vars: literal_vars(&p.vars),
            layer: Some(layer),
            mode: p.mode.unwrap_or_default(),
            quota: p.quota.unwrap_or_default(),
        };
        let policy = sqlgate_mcp::app::preflight::principal_policy(&server, &principal)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(policy.rows.is_some() && policy.max_rows <= server.max_rows);
    }
}

/// Over the server at `endpoint`, each README key sees its tenant's invoices and customer row
/// only, and only acme-support is refused customer emails.
async fn each_key_sees_its_tenant(endpoint: &str) {
    for (token, tenant) in [("readme-acme-token", 42), ("readme-globex-token", 12)] {
        let client = http_client(endpoint, token).await;
        let r = call(
            &client,
            "run_query",
            json!({"sql": "SELECT invoice_id, customer_id FROM invoice"}),
        )
        .await;
        let rows = structured(&r)["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(!rows.is_empty(), "{r:?}");
        assert!(rows.iter().all(|row| row["customer_id"] == tenant), "{r:?}");
        let r = call(
            &client,
            "run_query",
            json!({"sql": "SELECT email FROM customer"}),
        )
        .await;
        assert_eq!(r.is_error, Some(tenant == 42), "{r:?}");
        // customer is filtered too: each key sees its own customer row only.
        let r = call(
            &client,
            "run_query",
            json!({"sql": "SELECT customer_id FROM customer"}),
        )
        .await;
        let rows = structured(&r)["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(rows.len(), 1, "{r:?}");
        assert_eq!(rows[0]["customer_id"], tenant, "{r:?}");
        client.cancel().await.expect("stop");
    }
}

/// The README's principals configuration ("Principals (several API keys)"): its policies narrow
/// the server's and have every variable; on PostgreSQL, served as written, each key sees its
/// tenant's invoices only, and only acme-support is refused customer emails.
#[tokio::test]
async fn the_readme_principals_config() {
    let (config, globex) = readme_principals_blocks();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("globex.toml"), globex).expect("write");
    policies_narrow_the_server(&config, dir.path());

    let Some(url) = common::chinook_url("the README's principals config") else {
        return;
    };
    let text = config.replacen("postgres://sqlgate_reader@localhost:5432/chinook", &url, 1);
    assert_ne!(text, config, "the README's database_url");
    let path = write_config(dir.path(), &text);
    let (mut child, endpoint) = start_http(
        &path,
        &[],
        &[
            ("SQLGATE_TOKEN_ACME", "readme-acme-token"),
            ("SQLGATE_TOKEN_GLOBEX", "readme-globex-token"),
        ],
    );
    each_key_sees_its_tenant(&endpoint).await;
    let _ = child.kill();
    let _ = child.wait();
}
