//! Every tool and error path, through any connected client: the checks each transport runs.

use rmcp::service::{Peer, RunningService};
use rmcp::RoleClient;
use serde_json::json;

use crate::common::{call, structured};

/// Every tool and error path, through any connected client.
pub async fn exercise(client: &RunningService<RoleClient, ()>) {
    tools_are_read_only(client).await;
    list_and_describe(client).await;
    unknown_names_hint_where_to_look(client).await;
    validate_reports_the_cap(client).await;
    run_query_results_and_row_cap(client).await;
    refusals_carry_their_code(client).await;
}

/// The four read tools are listed with an output schema and read-only annotations.
async fn tools_are_read_only(client: &Peer<RoleClient>) {
    let tools = client.list_all_tools().await.expect("list tools");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    for n in [
        "list_tables",
        "describe_table",
        "validate_query",
        "run_query",
    ] {
        let t = tools
            .iter()
            .find(|t| t.name == n)
            .unwrap_or_else(|| panic!("{n} in {names:?}"));
        assert!(t.output_schema.is_some(), "{n} has an output schema");
        let a = t.annotations.clone().expect("annotations");
        assert_eq!(a.read_only_hint, Some(true));
        assert_eq!(a.destructive_hint, Some(false));
        assert_eq!(a.idempotent_hint, Some(true));
        assert_eq!(a.open_world_hint, Some(false));
    }
}

/// `list_tables` and `describe_table` on the demo's tables.
async fn list_and_describe(client: &Peer<RoleClient>) {
    let r = call(client, "list_tables", json!({})).await;
    assert_ne!(r.is_error, Some(true));
    let tables = structured(&r)["tables"].clone();
    let listed: Vec<&str> = tables
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        listed,
        vec!["customers", "order_lines", "orders", "products"]
    );

    let r = call(client, "describe_table", json!({"table": "customers"})).await;
    let d = structured(&r);
    let email = d["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .find(|c| c["name"] == "email")
        .cloned();
    assert_eq!(email.expect("email column")["protected"], true);
    assert_eq!(d["primary_key"], json!(["id"]));
    assert!(d["referenced_by"].as_array().is_some_and(|a| !a.is_empty()));
    let r = call(client, "describe_table", json!({"table": "order_lines"})).await;
    assert_eq!(
        structured(&r)["foreign_keys"].as_array().map(Vec::len),
        Some(2)
    );
}

/// Unknown and malformed names: their codes, and hints naming the tool that shows what exists.
async fn unknown_names_hint_where_to_look(client: &Peer<RoleClient>) {
    let r = call(client, "describe_table", json!({"table": "custmers"})).await;
    assert_eq!(r.is_error, Some(true));
    let e = structured(&r);
    assert_eq!(e["code"], "unknown_table");
    assert!(e["hint"].as_str().is_some_and(|h| h.contains("customers")));
    // The guard checked an internal `SELECT 1 FROM ...`: no position in it is shown.
    assert!(e["location"].is_null(), "{e}");
    // Hints of unknown names end by naming the tool that shows what exists (the server adds it).
    let r = call(client, "describe_table", json!({"table": "zzqqxx"})).await;
    let e = structured(&r);
    assert_eq!(e["code"], "unknown_table");
    assert!(
        e["hint"]
            .as_str()
            .is_some_and(|h| h.contains("list_tables")),
        "{e}"
    );
    let unknown_column = json!({"sql": "SELECT zzqqxx FROM customers"});
    let r = call(client, "run_query", unknown_column.clone()).await;
    let e = structured(&r);
    assert_eq!(e["code"], "unknown_column");
    assert!(
        e["hint"]
            .as_str()
            .is_some_and(|h| h.contains("describe_table")),
        "{e}"
    );
    let r = call(client, "validate_query", unknown_column).await;
    let e = structured(&r)["error"].clone();
    assert_eq!(e["code"], "unknown_column");
    assert!(
        e["hint"]
            .as_str()
            .is_some_and(|h| h.contains("describe_table")),
        "{e}"
    );
    let r = call(
        client,
        "describe_table",
        json!({"table": "x; DROP TABLE orders"}),
    )
    .await;
    assert_eq!(structured(&r)["code"], "bad_request");
    let r = call(client, "describe_table", json!({"table": "sqlite_master"})).await;
    assert_eq!(r.is_error, Some(true));
}

/// `validate_query` reports the real row cap and the class of a refused statement.
async fn validate_reports_the_cap(client: &Peer<RoleClient>) {
    let r = call(
        client,
        "validate_query",
        json!({"sql": "SELECT name FROM products"}),
    )
    .await;
    let v = structured(&r);
    assert_eq!(v["allowed"], true);
    // validate_query reports the real cap; only execution fetches one row more.
    assert_eq!(v["sql"], "SELECT name FROM products LIMIT 100");
    assert_eq!(v["limit"]["value"], 100);
    let r = call(
        client,
        "validate_query",
        json!({"sql": "DELETE FROM orders"}),
    )
    .await;
    let v = structured(&r);
    assert_eq!(v["allowed"], false);
    assert_eq!(v["query_class"], "mutation_delete");
}

/// `run_query`: rows, columns and text; the row cap and a caller's own LIMIT; duplicate names.
async fn run_query_results_and_row_cap(client: &Peer<RoleClient>) {
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT id, name, price_cents FROM products ORDER BY id"}),
    )
    .await;
    assert_ne!(r.is_error, Some(true));
    let out = structured(&r);
    assert_eq!(out["row_count"], 24);
    assert_eq!(out["truncated"], false);
    assert_eq!(out["rows"][0]["name"], "Espresso beans 1kg");
    assert_eq!(out["columns"][2]["name"], "price_cents");
    assert_eq!(out["query_class"], "select");
    assert!(r
        .content
        .first()
        .and_then(|c| c.as_text())
        .is_some_and(|t| t.text.contains("Espresso")));

    // Row cap: 100 returned, truncated.
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT order_id, line_no FROM order_lines"}),
    )
    .await;
    let out = structured(&r);
    assert_eq!(out["row_count"], 100);
    assert_eq!(out["truncated"], true);
    // executed_sql is what ran: the cap plus the one row that detects truncation.
    assert_eq!(
        out["executed_sql"],
        "SELECT order_id, line_no FROM order_lines LIMIT 101"
    );
    // A caller's own LIMIT at the cap is kept: exactly 100 rows, not truncated.
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT order_id, line_no FROM order_lines LIMIT 100"}),
    )
    .await;
    let out = structured(&r);
    assert_eq!(out["row_count"], 100);
    assert_eq!(out["truncated"], false);

    // Duplicate column names are disambiguated.
    let r = call(client, "run_query", json!({"sql": "SELECT o.id, c.id FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id LIMIT 1"})).await;
    let row = structured(&r)["rows"][0].clone();
    assert!(
        row.get("id").is_some() && row.get("id_2").is_some(),
        "{row}"
    );
}

/// Refusals and database errors carry their code, stage, retryability and message.
async fn refusals_carry_their_code(client: &Peer<RoleClient>) {
    for (sql, code) in [
        ("SELECT 1; DROP TABLE orders", "multiple_statements"),
        ("SELECT name, phone FROM customers", "column_not_allowed"),
        ("SELECT load_extension('x')", "function_not_allowed"),
        ("UPDATE orders SET status = 'x'", "statement_not_allowed"),
        ("SELECT * FROM custmers", "unknown_table"),
        ("", "empty"),
    ] {
        let r = call(client, "run_query", json!({ "sql": sql })).await;
        assert_eq!(r.is_error, Some(true), "{sql}");
        let e = structured(&r);
        assert_eq!(e["code"], code, "{sql}: {e}");
        assert!(
            e.get("stage").is_some() && e.get("retryable").is_some() && e.get("message").is_some()
        );
    }
    // A database error (not a guard refusal) carries database_error.
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT no_such_column FROM products"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    let code = structured(&r)["code"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        code == "unknown_column" || code == "database_error",
        "{code}"
    );
}
