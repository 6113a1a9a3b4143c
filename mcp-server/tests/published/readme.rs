//! The README's "Published queries and prompts" configuration, served on the demo database.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::gate::{Engine, EngineConfig};

use crate::fixture::{client_for, rows};

fn readme_block() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let section = readme
        .split("## Published queries and prompts")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's published queries section");
    let block = section
        .split("```toml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a TOML block");
    block.to_string()
}

#[tokio::test]
async fn the_readme_configuration_serves() {
    let config = readme_block();
    let backend = Arc::new(demo_backend(false).expect("demo"));
    let engine = Engine::with_vars(
        backend,
        EngineConfig::read_only(demo_policy(), std::time::Duration::from_secs(5)),
        None,
        sqlgate::Vars::new(),
    )
    .await
    .expect("engine");
    let client = client_for(engine, &config).await;
    let got = rows(
        &client,
        "customers_in_city",
        json!({"city": "Lisbon", "min_id": 1}),
    )
    .await;
    assert!(!got.is_empty());
    assert!(got.iter().all(|r| r["city"] == "Lisbon"), "{got:?}");
    let mut p = rmcp::model::GetPromptRequestParams::new("city_report");
    p.arguments = json!({"city": "Oslo"}).as_object().cloned();
    let r = client.get_prompt(p).await.expect("prompt");
    let text = serde_json::to_string(&r.messages).unwrap_or_default();
    assert!(text.contains("Summarise the customers of Oslo"), "{text}");
}
