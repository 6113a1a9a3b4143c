//! Published queries on DuckDB's Chinook (cargo feature `duckdb`): `:name` written `$n` and
//! bound by position. Compiled and run only with the feature (the coordinator's build).

use std::time::Duration;

use sqlgate::{Dialect, Policy};
use sqlgate_mcp::backend::duckdb::{DuckdbBackend, DuckdbOptions};
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::gate::{Engine, EngineConfig};

use crate::common::query_ok;
use crate::fixture::{client_for, exercise};

const CONFIG: &str = r#"
[[queries]]
name = "customers_in_country"
description = "Customers of one country, from an id on."
sql = "SELECT customer_id, first_name, country FROM customer WHERE country = :country AND customer_id >= :min_id ORDER BY customer_id"
[queries.params]
country = { type = "string" }
min_id = { type = "integer" }
"#;

#[tokio::test]
async fn published_queries_bind_on_duckdb() {
    let sqlite = crate::common::chinook_fixture("Chinook_Sqlite.sqlite");
    let dir = tempfile::tempdir().unwrap();
    let (path, conn) = crate::common::chinook_duckdb::build(dir.path(), &sqlite).unwrap();
    drop(conn);
    let backend = DuckdbBackend::open(&path, &DuckdbOptions::default()).expect("open read-only");
    let policy = Policy {
        max_rows: Some(100),
        ..Policy::for_dialect(Dialect::Duckdb)
    };
    let config = EngineConfig::read_only(policy, Duration::from_secs(10));
    let engine = Engine::new(Backend::Duckdb(backend), config)
        .await
        .expect("engine");
    let client = client_for(engine, CONFIG).await;
    let n = query_ok(
        &client,
        "SELECT count(*) AS n FROM customer WHERE country = 'Brazil'",
    )
    .await;
    assert_eq!(n["rows"][0]["n"].as_u64(), Some(5));
    exercise(
        &client,
        "customers_in_country",
        ("country", "Brazil"),
        5,
        "SELECT count(*) AS n FROM genre",
    )
    .await;
}
