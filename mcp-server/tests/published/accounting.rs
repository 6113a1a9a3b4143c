//! A published query is counted and audited as `run_query` is: the principal's row quota, and
//! one audit record naming the tool, the query's text and what ran, never the values.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sqlgate::Vars;
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::config::published::resolve_published;
use sqlgate_mcp::config::FileConfig;
use sqlgate_mcp::gate::quota::QuotaLimits;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, serve_in_process, structured};

const CONFIG: &str = r#"
[[queries]]
name = "customers_in_city"
description = "Customers of one city."
sql = "SELECT id, name FROM customers WHERE city = :city"
[queries.params]
city = { type = "string" }
"#;

async fn engine(quota: QuotaLimits) -> Engine {
    let backend = Arc::new(demo_backend(false).expect("demo"));
    let config = EngineConfig::read_only(demo_policy(), Duration::from_secs(5));
    let mut engine = Engine::with_vars(backend, config, None, Vars::new())
        .await
        .expect("engine");
    let file: FileConfig = toml::from_str(CONFIG).unwrap();
    engine.set_published(Arc::new(resolve_published(&file).unwrap()));
    engine.set_quota(quota);
    engine
}

#[tokio::test]
async fn rows_count_against_the_quota() {
    let quota = QuotaLimits {
        rows_per_hour: Some(1),
        ..QuotaLimits::default()
    };
    let server = SqlGateServer::new(Arc::new(engine(quota).await), Audit::stderr());
    let client = serve_in_process(server).await;
    let first = call(&client, "customers_in_city", json!({"city": "Lisbon"})).await;
    assert_ne!(first.is_error, Some(true), "{}", structured(&first));
    let second = call(&client, "customers_in_city", json!({"city": "Lisbon"})).await;
    assert_eq!(second.is_error, Some(true));
    assert_eq!(structured(&second)["code"], "quota_exceeded");
}

#[tokio::test]
async fn audited_without_the_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let audit = Audit::file(&path).expect("audit file");
    let server = SqlGateServer::new(Arc::new(engine(QuotaLimits::default()).await), audit);
    let client = serve_in_process(server).await;
    let value = "Nowhere-7f3a9c";
    let r = call(&client, "customers_in_city", json!({"city": value})).await;
    assert_ne!(r.is_error, Some(true));
    drop(client);
    let text = std::fs::read_to_string(&path).unwrap();
    let record = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|r| r["tool"] == "customers_in_city")
        .unwrap_or_else(|| panic!("no record of the call:\n{text}"));
    assert_eq!(record["decision"], "allow");
    assert_eq!(
        record["sql"],
        "SELECT id, name FROM customers WHERE city = :city"
    );
    assert!(record["executed_sql"].as_str().unwrap().contains(":city"));
    assert!(!text.contains(value), "{text}");
}
