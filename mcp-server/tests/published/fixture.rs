//! What the engines' tests share: a server over an engine with the queries and prompts of a
//! settings file, and the calls every engine must answer alike.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use rmcp::service::{Peer, RunningService};
use rmcp::RoleClient;
use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::config::published::resolve_published;
use sqlgate_mcp::config::FileConfig;
use sqlgate_mcp::gate::Engine;
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, serve_in_process, structured};

/// `engine` publishing the `[[queries]]` and `[[prompts]]` of `config` (TOML), checked as
/// `serve` checks them; served to an in-process rmcp client.
pub async fn client_for(mut engine: Engine, config: &str) -> RunningService<RoleClient, ()> {
    let file: FileConfig = toml::from_str(config).expect("settings parse");
    let published = resolve_published(&file).expect("published queries are valid");
    engine.set_published(Arc::new(published));
    engine
        .check_published(&sqlgate::Vars::new())
        .expect("the guard approves them");
    serve_in_process(SqlGateServer::new(Arc::new(engine), Audit::stderr())).await
}

/// The published tool `name` as listed.
pub async fn listed(client: &Peer<RoleClient>, name: &str) -> rmcp::model::Tool {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} is listed"))
}

/// A call that must succeed: its rows.
pub async fn rows(client: &Peer<RoleClient>, tool: &str, args: Value) -> Vec<Value> {
    let r = call(client, tool, args.clone()).await;
    let out = structured(&r);
    assert_ne!(r.is_error, Some(true), "{tool} {args}: {out}");
    out["rows"].as_array().cloned().unwrap_or_default()
}

/// A call that must fail: its structured error.
pub async fn refused(client: &Peer<RoleClient>, tool: &str, args: Value) -> Value {
    let r: CallToolResult = call(client, tool, args.clone()).await;
    assert_eq!(r.is_error, Some(true), "{tool} {args} must fail");
    structured(&r)
}

/// The checks every engine answers alike, for a query `tool` with a string parameter `text`
/// (a value that selects `expected` rows) and an integer parameter `min_id`; `count_sql` counts
/// a table an injection would drop.
pub async fn exercise(
    client: &Peer<RoleClient>,
    tool: &str,
    text: (&str, &str),
    expected: usize,
    count_sql: &str,
) {
    let (param, value) = text;
    // Listed with a typed schema and the read-only hint.
    let t = listed(client, tool).await;
    let schema = serde_json::to_value(&*t.input_schema).unwrap();
    assert_eq!(schema["properties"][param]["type"], "string", "{schema}");
    assert_eq!(
        schema["properties"]["min_id"]["type"], "integer",
        "{schema}"
    );
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        t.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    assert!(t.output_schema.is_some());

    let got = rows(client, tool, json!({ param: value, "min_id": 0 })).await;
    assert_eq!(got.len(), expected, "{got:?}");
    // The values never reach the SQL text: the executed SQL keeps the placeholders.
    let r = call(client, tool, json!({ param: value, "min_id": 0 })).await;
    let executed = structured(&r)["executed_sql"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(executed.contains(&format!(":{param}")), "{executed}");
    assert!(!executed.contains(value), "{executed}");

    // Bad types and shapes: a structured bad_request naming the parameter.
    for (args, needle) in [
        (json!({ param: value, "min_id": "1" }), "min_id"),
        (json!({ param: value, "min_id": 1.5 }), "min_id"),
        (json!({ param: 42, "min_id": 1 }), param),
        (json!({ param: value }), "min_id"),
        (
            json!({ param: value, "min_id": 1, "sql": "DROP TABLE x" }),
            "sql",
        ),
    ] {
        let e = refused(client, tool, args.clone()).await;
        assert_eq!(e["code"], "bad_request", "{args}: {e}");
        assert!(
            e["message"].as_str().unwrap_or_default().contains(needle),
            "{e}"
        );
        assert!(
            e["hint"]
                .as_str()
                .unwrap_or_default()
                .contains("min_id: integer"),
            "{e}"
        );
    }

    // Injection in a value stays a value: no row matches it, and nothing changed.
    let before = crate::common::query_ok(client, count_sql).await["rows"].clone();
    for attack in [
        format!("{value}' OR '1'='1"),
        format!("{value}'; DROP TABLE x; --"),
        "' UNION SELECT 1, 2, 3 --".to_string(),
    ] {
        let got = rows(client, tool, json!({ param: attack, "min_id": 0 })).await;
        assert!(got.is_empty(), "{attack}: {got:?}");
    }
    let after = crate::common::query_ok(client, count_sql).await["rows"].clone();
    assert_eq!(before, after);
}
