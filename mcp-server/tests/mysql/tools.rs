//! The MCP tools on Chinook, every MySQL type rendered, and the cost cap.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mysql_async::prelude::Queryable;
use serde_json::json;
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::mysql::MysqlBackend;
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, serve_in_process, structured};
use crate::server::{admin, chinook_url, engine, with_database};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_on_chinook() {
    let Some(url) = chinook_url() else { return };
    let e = Arc::new(engine(&url, 50, Duration::from_secs(10)).await);
    assert!(
        !e.backend().role_warnings().is_empty(),
        "a user with every privilege must be reported"
    );
    let refused = MysqlBackend::connect(&url, 1, true).await;
    let err = refused
        .err()
        .expect("--require-read-only-role refuses this user");
    assert_eq!(err.code.as_str(), "role_not_read_only");
    let client = serve_in_process(SqlGateServer::new(e.clone(), Audit::stderr())).await;

    let tables = structured(&call(&client, "list_tables", json!({})).await);
    let names: Vec<&str> = tables["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"Album") && names.contains(&"Track"),
        "{names:?}"
    );
    let album = structured(&call(&client, "describe_table", json!({"table": "Album"})).await);
    assert_eq!(album["primary_key"], json!(["AlbumId"]));
    assert_eq!(
        album["foreign_keys"][0]["referenced_table"], "Artist",
        "{album}"
    );
    let artist = structured(&call(&client, "describe_table", json!({"table": "Artist"})).await);
    assert_eq!(artist["referenced_by"][0]["table"], "Album", "{artist}");

    let r = structured(
        &call(
            &client,
            "run_query",
            json!({"sql": "SELECT Name, UnitPrice FROM Track ORDER BY TrackId"}),
        )
        .await,
    );
    assert_eq!(r["row_count"], 50);
    assert_eq!(r["truncated"], true);
    assert!(r["executed_sql"]
        .as_str()
        .is_some_and(|s| s.ends_with("LIMIT 51")));
    assert_eq!(r["rows"][0]["UnitPrice"], "0.99", "DECIMAL is exact: {r}");
    let refused =
        structured(&call(&client, "run_query", json!({"sql": "DELETE FROM Album"})).await);
    assert_eq!(refused["code"], "statement_not_allowed");
    let info = structured(&call(&client, "server_info", json!({})).await);
    assert_eq!(info["database"], "mariadb");
    assert_eq!(info["dialect"], "mysql");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_renders() {
    let Some(url) = chinook_url() else { return };
    let mut direct = admin(&url).await;
    direct
        .query_drop(
            "CREATE DATABASE IF NOT EXISTS sqlgate_types; USE sqlgate_types; \
             DROP TABLE IF EXISTS every_type; \
             CREATE TABLE every_type (
               ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT, ubi BIGINT UNSIGNED,
               de DECIMAL(30,10), f FLOAT, d DOUBLE, b BIT(10), y YEAR, dt DATE,
               dtt DATETIME(6), ts TIMESTAMP NULL, tm TIME(3), ch CHAR(3), vc VARCHAR(20),
               tx TEXT, bl BLOB, vb VARBINARY(8), j JSON, e ENUM('a','b'), s SET('x','y'),
               g GEOMETRY, n INT);
             INSERT INTO every_type VALUES (-128, -32768, -8388608, -2147483648,
               -9223372036854775808, 18446744073709551615, 12345678901234567890.0123456789,
               1.5, 2.25, b'1010101010', 2024, '2024-02-29', '2024-02-29 13:14:15.123456',
               '2024-02-29 13:14:15', '-838:59:58.5', 'abc', 'héllo', 'text', x'00ff10',
               x'cafe', '{\"a\": [1, 2]}', 'b', 'x,y', POINT(1, 2), NULL);",
        )
        .await
        .expect("create the table");
    let e = engine(
        &with_database(&url, "sqlgate_types"),
        10,
        Duration::from_secs(10),
    )
    .await;
    let (r, _) = e.run_query("SELECT * FROM every_type").await;
    let out = r.expect("every type renders");
    let row = &out.rows[0];
    let expected = json!({
        "ti": -128, "si": -32768, "mi": -8388608, "i": -2147483648_i64,
        "bi": "-9223372036854775808", "ubi": "18446744073709551615",
        "de": "12345678901234567890.0123456789", "f": 1.5, "d": 2.25, "b": 682, "y": 2024,
        "dt": "2024-02-29", "dtt": "2024-02-29 13:14:15.123456", "ts": "2024-02-29 13:14:15",
        "tm": "-838:59:58.500000", "ch": "abc", "vc": "héllo", "tx": "text", "bl": "AP8Q",
        "vb": "yv4=", "j": {"a": [1, 2]}, "e": "b", "s": "x,y", "n": null
    });
    for (key, want) in expected.as_object().expect("object") {
        assert_eq!(&row[key], want, "column {key}: {row:?}");
    }
    assert!(
        row["g"].as_str().is_some_and(|g| g.starts_with("wkb:")),
        "{row:?}"
    );
    let types: BTreeMap<&str, &str> = out
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.data_type.as_str()))
        .collect();
    assert_eq!(types["ubi"], "bigint unsigned");
    assert_eq!(types["de"], "decimal");
    direct
        .query_drop("DROP DATABASE sqlgate_types")
        .await
        .expect("drop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cost_cap_refuses_a_cross_join_before_it_runs() {
    use sqlgate_mcp::backend::cost::CostCap;
    let Some(url) = chinook_url() else { return };
    let mut e = engine(&url, 100, Duration::from_secs(10)).await;
    e.set_cost_cap(CostCap {
        max_cost: None,
        max_estimated_rows: Some(1_000_000),
    });
    let (r, _) = e
        .run_query("SELECT * FROM PlaylistTrack, Track LIMIT 100")
        .await;
    let err = r.expect_err("refused");
    assert_eq!(err.code.as_str(), "too_expensive", "{err:?}");
    let hint = err.hint.unwrap_or_default();
    assert!(hint.contains("without a join condition"), "{hint}");
    let (r, _) = e
        .run_query(
            "SELECT t.Name, COUNT(*) AS n FROM PlaylistTrack pt JOIN Track t ON t.TrackId = pt.TrackId GROUP BY t.Name",
        )
        .await;
    assert!(r.is_ok(), "a joined query passes: {r:?}");
}
