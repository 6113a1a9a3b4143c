//! The schema tools with meaning, through rmcp's client on the embedded demo database (SQLite):
//! `list_schemas`, `list_tables {schema}` and `describe_table` under an annotated policy
//! (descriptions merged with comments, synonyms, PII categories masked or blocked, relationships
//! declared and read from the database, a row-filtered table), and a principal's layer that hides
//! a table from all three.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use sqlgate::{Policy, PolicyLayer, Vars};
use sqlgate_mcp::app::demo::demo_backend;
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, serve_in_process, structured};

/// The demo's tables annotated: customers described, their e-mail blocked and phone masked by
/// category, orders row-filtered, the order line's key to its order declared.
const POLICY: &str = r#"{
  "dialect": "sqlite",
  "max_rows": 100,
  "columns": { "deny": ["customers.created_at"] },
  "rows": { "orders": "customer_id = :tenant" },
  "annotations": {
    "tables": {
      "customers": {
        "display_name": "Customer",
        "description": "A person who buys products.",
        "synonyms": ["client", "buyer"],
        "columns": {
          "email": { "pii": "EMAIL_ADDRESS", "description": "Where receipts go.", "synonyms": ["mail"] },
          "phone": { "pii": "PHONE_NUMBER" },
          "name": { "pii": "PERSON", "display_name": "Full name" }
        }
      },
      "orders": { "description": "One purchase." }
    },
    "relationships": [
      { "from": "order_lines.order_id", "to": "orders.id", "cardinality": "many_to_one",
        "description": "The order a line belongs to." }
    ]
  },
  "pii": { "block": ["EMAIL_ADDRESS"], "mask": { "PHONE_NUMBER": "partial" } }
}"#;

/// A server for `policy`, narrowed by `layer` when given, with `tenant = 1`.
async fn client(layer: Option<&str>) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let mut policy = Policy::from_json(POLICY).expect("policy");
    if let Some(layer) = layer {
        let layer: PolicyLayer = serde_json::from_str(layer).expect("layer");
        policy = policy.narrowed_by(&layer).expect("narrowed");
    }
    let backend = Arc::new(demo_backend(false).expect("demo"));
    let config = EngineConfig::read_only(policy, Duration::from_secs(5));
    let vars = Vars::new().with("tenant", 1);
    let engine = Engine::with_vars(backend, config, Some("acme".into()), vars)
        .await
        .expect("engine");
    serve_in_process(SqlGateServer::new(Arc::new(engine), Audit::stderr())).await
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn column<'a>(table: &'a Value, name: &str) -> &'a Value {
    table["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no column {name} in {table}"))
}

#[tokio::test]
async fn describe_table_merges_annotations_and_marks_pii() {
    let client = client(None).await;
    let r = call(&client, "describe_table", json!({"table": "customers"})).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let t = structured(&r);
    assert_eq!(t["display_name"], "Customer");
    assert_eq!(t["description"], "A person who buys products.");
    assert_eq!(t["synonyms"], json!(["client", "buyer"]));
    assert_eq!(t["row_filtered"], false);

    let email = column(&t, "email");
    assert_eq!(email["pii"], "EMAIL_ADDRESS");
    assert_eq!(
        (&email["blocked"], &email["protected"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(email["mask"], Value::Null);
    assert_eq!(email["description"], "Where receipts go.");
    assert_eq!(email["synonyms"], json!(["mail"]));
    let phone = column(&t, "phone");
    assert_eq!(phone["pii"], "PHONE_NUMBER");
    assert_eq!(phone["mask"], "partial");
    assert_eq!(
        (&phone["blocked"], &phone["protected"]),
        (&json!(false), &json!(false))
    );
    let name = column(&t, "name");
    assert_eq!(
        (&name["pii"], &name["display_name"]),
        (&json!("PERSON"), &json!("Full name"))
    );
    assert_eq!(
        (&name["mask"], &name["blocked"]),
        (&Value::Null, &json!(false))
    );
    let created = column(&t, "created_at");
    assert_eq!(
        (&created["protected"], &created["blocked"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(column(&t, "id")["primary_key_ordinal"], 1);
    assert_eq!(name["primary_key_ordinal"], Value::Null);

    let shown = text(&r);
    assert!(shown.contains("[pii: EMAIL_ADDRESS] [blocked"), "{shown}");
    assert!(
        shown.contains("[pii: PHONE_NUMBER] [masked (partial)"),
        "{shown}"
    );
    assert!(
        shown.contains("\"Customer\": A person who buys products. [also: client, buyer]"),
        "{shown}"
    );
}

#[tokio::test]
async fn relationships_merge_the_policy_and_the_foreign_keys() {
    let client = client(None).await;
    let lines = structured(&call(&client, "describe_table", json!({"table": "order_lines"})).await);
    assert_eq!(lines["primary_key"], json!(["order_id", "line_no"]));
    assert_eq!(column(&lines, "line_no")["primary_key_ordinal"], 2);
    let rels = lines["relationships"].as_array().expect("relationships");
    // The declared relationship replaces the foreign key on the same columns.
    let to_orders: Vec<&Value> = rels
        .iter()
        .filter(|r| r["other_table"] == "orders")
        .collect();
    assert_eq!(to_orders.len(), 1, "{rels:?}");
    assert_eq!(to_orders[0]["source"], "policy");
    assert_eq!(to_orders[0]["direction"], "outgoing");
    assert_eq!(to_orders[0]["cardinality"], "many_to_one");
    assert_eq!(to_orders[0]["description"], "The order a line belongs to.");
    let to_products = rels
        .iter()
        .find(|r| r["other_table"] == "products")
        .expect("products");
    assert_eq!(to_products["source"], "database");
    assert_eq!(to_products["columns"], json!(["product_id"]));
    assert_eq!(to_products["other_columns"], json!(["id"]));

    let orders = structured(&call(&client, "describe_table", json!({"table": "orders"})).await);
    assert_eq!(orders["row_filtered"], true);
    assert_eq!(orders["description"], "One purchase.");
    let rels = orders["relationships"].as_array().expect("relationships");
    let from_lines = rels
        .iter()
        .find(|r| r["other_table"] == "order_lines")
        .expect("lines");
    assert_eq!(
        (
            &from_lines["direction"],
            &from_lines["cardinality"],
            &from_lines["source"]
        ),
        (&json!("incoming"), &json!("one_to_many"), &json!("policy"))
    );
    let to_customers = rels
        .iter()
        .find(|r| r["other_table"] == "customers")
        .expect("customers");
    assert_eq!(
        (&to_customers["direction"], &to_customers["cardinality"]),
        (&json!("outgoing"), &json!("many_to_one"))
    );
}

#[tokio::test]
async fn list_tables_and_list_schemas_show_meaning_and_filters() {
    let client = client(None).await;
    let r = call(&client, "list_tables", json!({})).await;
    let tables = structured(&r)["tables"].as_array().expect("tables").clone();
    let customers = tables
        .iter()
        .find(|t| t["name"] == "customers")
        .expect("customers");
    assert_eq!(customers["synonyms"], json!(["client", "buyer"]));
    assert_eq!(customers["description"], "A person who buys products.");
    let orders = tables
        .iter()
        .find(|t| t["name"] == "orders")
        .expect("orders");
    assert_eq!(
        (&orders["row_filtered"], &customers["row_filtered"]),
        (&json!(true), &json!(false))
    );
    assert!(text(&r).contains("orders (table, ~"), "{}", text(&r));
    assert!(text(&r).contains("row-filtered)"), "{}", text(&r));

    let schemas = structured(&call(&client, "list_schemas", json!({})).await);
    assert_eq!(
        schemas,
        json!({"schemas": [{"name": null, "table_count": 4}]})
    );
    // SQLite has no schemas: naming one lists nothing.
    let none = structured(&call(&client, "list_tables", json!({"schema": "sales"})).await);
    assert_eq!(none["tables"], json!([]));
}

#[tokio::test]
async fn a_principal_does_not_see_the_tables_its_layer_denies() {
    let client = client(Some(
        r#"{"tables": {"deny": ["products"]}, "pii": {"block": ["PHONE_NUMBER"]}}"#,
    ))
    .await;
    let tables = structured(&call(&client, "list_tables", json!({})).await);
    let names: Vec<&str> = tables["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["customers", "order_lines", "orders"]);
    let schemas = structured(&call(&client, "list_schemas", json!({})).await);
    assert_eq!(schemas["schemas"][0]["table_count"], 3);
    let r = call(&client, "describe_table", json!({"table": "products"})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(structured(&r)["code"], "table_not_allowed");
    let lines = structured(&call(&client, "describe_table", json!({"table": "order_lines"})).await);
    assert!(!lines.to_string().contains("products"), "{lines}");
    // The layer blocks the category the base only masks: blocked wins.
    let customers =
        structured(&call(&client, "describe_table", json!({"table": "customers"})).await);
    let phone = column(&customers, "phone");
    assert_eq!(
        (&phone["blocked"], &phone["protected"], &phone["mask"]),
        (&json!(true), &json!(true), &Value::Null)
    );
}
