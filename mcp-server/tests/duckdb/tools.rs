//! The MCP tools on Chinook in DuckDB: the catalog, the row cap, the timeout; and the cost cap
//! from DuckDB's planner estimate.

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::Peer;
use rmcp::RoleClient;
use serde_json::json;
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::duckdb::{DuckdbBackend, DuckdbOptions};
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, query_ok, serve_in_process, structured};
use crate::fixture::{client_on, duckdb_policy, fixture};

/// `server_info`, `list_tables` and `describe_table` on Chinook.
async fn catalog_tools(client: &Peer<RoleClient>) {
    let r = call(client, "server_info", json!({})).await;
    assert_eq!(structured(&r)["database"], "duckdb");
    assert_eq!(structured(&r)["dialect"], "duckdb");

    let r = call(client, "list_tables", json!({})).await;
    let tables = structured(&r)["tables"].clone();
    let find = |name: &str| {
        tables
            .as_array()
            .and_then(|a| a.iter().find(|t| t["name"] == name).cloned())
            .unwrap_or_else(|| panic!("{name} not listed: {tables}"))
    };
    assert_eq!(find("artist")["estimated_rows"], 275);
    assert_eq!(find("artist")["kind"], "table");
    assert_eq!(find("invoice_total")["kind"], "view");

    let r = call(client, "describe_table", json!({"table": "album"})).await;
    let d = structured(&r);
    assert_eq!(d["schema"], "main", "{d}");
    assert_eq!(d["primary_key"], json!(["album_id"]));
    assert_eq!(
        d["foreign_keys"],
        json!([{"columns": ["artist_id"], "referenced_schema": "main",
                "referenced_table": "artist", "referenced_columns": ["artist_id"]}])
    );
    let title = d["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "title")
        .unwrap();
    assert_eq!(title["type"], "VARCHAR");
    assert_eq!(title["nullable"], false);
    let r = call(client, "describe_table", json!({"table": "artist"})).await;
    let refs = structured(&r)["referenced_by"].clone();
    assert!(
        refs.as_array()
            .unwrap()
            .iter()
            .any(|x| x["table"] == "album"),
        "{refs}"
    );
    let r = call(client, "describe_table", json!({"table": "playlist_track"})).await;
    assert_eq!(
        structured(&r)["primary_key"],
        json!(["playlist_id", "track_id"])
    );
}

/// The row cap (50 of 3503 tracks), and a query past the 1 s timeout interrupted.
async fn row_cap_and_timeout(client: &Peer<RoleClient>) {
    // The row cap: 50 of 3503 tracks, and the guard's LIMIT asks for one more.
    let out = query_ok(client, "SELECT name FROM track ORDER BY track_id").await;
    assert_eq!(out["row_count"], 50);
    assert_eq!(out["truncated"], true);
    assert_eq!(
        out["rows"][0]["name"],
        "For Those About To Rock (We Salute You)"
    );
    assert!(
        out["executed_sql"].as_str().unwrap().ends_with("LIMIT 51"),
        "{out}"
    );
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT count(*) AS n FROM invoice_line"}),
    )
    .await;
    assert_eq!(structured(&r)["rows"][0]["n"], 2240);
    assert_eq!(structured(&r)["truncated"], false);

    // A cross join of 8715^3 rows runs far beyond the 1s timeout and is interrupted.
    let started = std::time::Instant::now();
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT sum(a.track_id * b.track_id - c.track_id) AS s FROM playlist_track a, playlist_track b, playlist_track c"}),
    )
    .await;
    let e = structured(&r);
    assert_eq!(r.is_error, Some(true), "{e}");
    assert_eq!(e["code"], "query_timeout", "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // The server goes on after an interrupt.
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT count(*) AS n FROM artist"}),
    )
    .await;
    assert_eq!(structured(&r)["rows"][0]["n"], 275);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_on_chinook() {
    let f = fixture();
    let client = client_on(&f.db, duckdb_policy(50), Duration::from_secs(1)).await;
    catalog_tools(&client).await;
    row_cap_and_timeout(&client).await;
    client.cancel().await.ok();
}

/// DuckDB's planner estimate (`EXPLAIN (FORMAT json)`): a cross product of Chinook's two largest
/// tables is refused under a row cap before it runs, with a hint naming them; a joined query
/// passes; `validate_query` reports the estimate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cost_cap_refuses_a_cross_product_before_it_runs() {
    use sqlgate_mcp::backend::cost::CostCap;
    let f = fixture();
    let backend = DuckdbBackend::open(&f.db, &DuckdbOptions::default()).expect("open read-only");
    let mut e = Engine::new(
        Backend::Duckdb(backend),
        EngineConfig::read_only(duckdb_policy(100), Duration::from_secs(10)),
    )
    .await
    .expect("engine");
    e.set_cost_cap(CostCap {
        max_cost: None,
        max_estimated_rows: Some(1_000_000),
    });
    let (r, _) = e
        .run_query("SELECT * FROM playlist_track, track LIMIT 100")
        .await;
    let err = r.expect_err("refused");
    assert_eq!(err.code.as_str(), "too_expensive", "{err:?}");
    let hint = err.hint.unwrap_or_default();
    assert!(
        hint.contains("playlist_track and track without a join condition"),
        "{hint}"
    );
    let joined = "SELECT t.name, count(*) AS n FROM playlist_track pt \
                  JOIN track t ON t.track_id = pt.track_id GROUP BY t.name";
    let (r, _) = e.run_query(joined).await;
    assert!(r.is_ok(), "a joined query passes: {r:?}");
    let server = SqlGateServer::new(Arc::new(e), Audit::stderr());
    let client = serve_in_process(server).await;
    let r = call(&client, "validate_query", json!({"sql": joined})).await;
    let estimate = &structured(&r)["estimate"];
    assert!(estimate["rows"].as_f64().is_some_and(|n| n >= 1.0), "{r:?}");
    assert!(estimate["over_cap"].is_null(), "{r:?}");
}
