//! Published queries on MariaDB's Chinook (`SQLGATE_MARIADB_CHINOOK_URL`): `:name` bound by the
//! driver's named parameters over the binary protocol.

use std::time::Duration;

use sqlgate::{Dialect, Policy};
use sqlgate_mcp::backend::mysql::MysqlBackend;
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::gate::{Engine, EngineConfig};

use crate::common::{query_ok, server_url};
use crate::fixture::{client_for, exercise};

const CONFIG: &str = r#"
[[queries]]
name = "customers_in_country"
description = "Customers of one country, from an id on."
sql = "SELECT CustomerId, FirstName, Country FROM Customer WHERE Country = :country AND CustomerId >= :min_id ORDER BY CustomerId"
[queries.params]
country = { type = "string" }
min_id = { type = "integer" }
"#;

#[tokio::test]
async fn published_queries_bind_on_mariadb() {
    let Some(url) = server_url(
        "SQLGATE_MARIADB_CHINOOK_URL",
        "MariaDB",
        "published queries",
    ) else {
        return;
    };
    let backend = MysqlBackend::connect(&url, 2, false)
        .await
        .expect("connect");
    let policy = Policy {
        max_rows: Some(100),
        ..Policy::for_dialect(Dialect::Mysql)
    };
    let config = EngineConfig::read_only(policy, Duration::from_secs(10));
    let engine = Engine::new(Backend::Mysql(backend), config)
        .await
        .expect("engine");
    let client = client_for(engine, CONFIG).await;
    let n = query_ok(
        &client,
        "SELECT count(*) AS n FROM Customer WHERE Country = 'Brazil'",
    )
    .await;
    let n = n["rows"][0]["n"].as_u64().unwrap_or(0) as usize;
    assert_eq!(n, 5);
    exercise(
        &client,
        "customers_in_country",
        ("country", "Brazil"),
        n,
        "SELECT count(*) AS n FROM Genre",
    )
    .await;
}
