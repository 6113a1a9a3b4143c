//! Published queries on PostgreSQL's Chinook (`SQLGATE_CHINOOK_URL`): `:name` written `$n`,
//! each declared with its value's type and bound over the extended protocol.

use serde_json::json;

use crate::common::{chinook_url, pg_engine, postgres_policy, query_ok};
use crate::fixture::{client_for, exercise, rows};

const CONFIG: &str = r#"
[[queries]]
name = "customers_in_country"
description = "Customers of one country, from an id on."
sql = "SELECT customer_id, first_name, country FROM customer WHERE country = :country AND customer_id >= :min_id ORDER BY customer_id"
[queries.params]
country = { type = "string" }
min_id = { type = "integer" }

[[queries]]
name = "tracks_longer_than"
description = "Tracks longer than some minutes, a cast and a repeated parameter."
sql = "SELECT track_id, name FROM track WHERE milliseconds > :minutes * 60000 AND milliseconds::numeric < :minutes * 60000 + 1000 AND :flag"
max_rows = 5
[queries.params]
minutes = { type = "number" }
flag = { type = "boolean" }
"#;

#[tokio::test]
async fn published_queries_bind_on_postgres() {
    let Some(url) = chinook_url("published queries") else {
        return;
    };
    let engine = pg_engine(
        &url,
        2,
        std::time::Duration::from_secs(10),
        postgres_policy(100),
    )
    .await;
    let client = client_for(engine, CONFIG).await;
    let n = query_ok(
        &client,
        "SELECT count(*) AS n FROM customer WHERE country = 'Brazil'",
    )
    .await;
    let n = n["rows"][0]["n"].as_u64().unwrap_or(0) as usize;
    assert_eq!(n, 5);
    exercise(
        &client,
        "customers_in_country",
        ("country", "Brazil"),
        n,
        "SELECT count(*) AS n FROM genre",
    )
    .await;
    let got = rows(
        &client,
        "tracks_longer_than",
        json!({"minutes": 5, "flag": true}),
    )
    .await;
    assert!(!got.is_empty() && got.len() <= 5, "{got:?}");
    let none = rows(
        &client,
        "tracks_longer_than",
        json!({"minutes": 5, "flag": false}),
    )
    .await;
    assert!(none.is_empty());
}
