//! Published queries and prompts on the demo database (SQLite: `:name` bound by rusqlite).

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sqlgate::{Policy, VarValue, Vars};
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::config::published::resolve_published;
use sqlgate_mcp::config::FileConfig;
use sqlgate_mcp::gate::{Engine, EngineConfig};

use crate::common::query_ok;
use crate::fixture::{client_for, exercise, rows};

const CONFIG: &str = r#"
[[queries]]
name = "customers_in_city"
description = "Customers of one city, from an id on."
sql = "SELECT id, name, city FROM customers WHERE city = :city AND id >= :min_id ORDER BY id"
max_rows = 3
[queries.params]
city = { type = "string", description = "The city, e.g. Lisbon" }
min_id = { type = "integer", description = "The first customer id" }

[[prompts]]
name = "city_report"
description = "Report on the customers of one city"
text = "Summarise the customers of {city}, newest first."
arguments = [{ name = "city", description = "The city", required = true }]
"#;

async fn demo(policy: Policy, vars: Vars) -> Engine {
    let backend = Arc::new(demo_backend(false).expect("demo"));
    let config = EngineConfig::read_only(policy, Duration::from_secs(5));
    Engine::with_vars(backend, config, None, vars)
        .await
        .expect("engine")
}

#[tokio::test]
async fn a_published_query_is_a_typed_read_only_tool() {
    let client = client_for(demo(demo_policy(), Vars::new()).await, CONFIG).await;
    let n = query_ok(
        &client,
        "SELECT count(*) AS n FROM customers WHERE city = 'Lisbon'",
    )
    .await;
    let n = n["rows"][0]["n"].as_u64().unwrap_or(0) as usize;
    assert!(n > 0);
    exercise(
        &client,
        "customers_in_city",
        ("city", "Lisbon"),
        n.min(3),
        "SELECT count(*) AS n FROM customers",
    )
    .await;
    // The query's own row cap: the result says it was cut.
    let r = crate::common::call(
        &client,
        "customers_in_city",
        json!({"city": "Lisbon", "min_id": 0}),
    )
    .await;
    let out = crate::common::structured(&r);
    assert_eq!(out["truncated"], n > 3, "{out}");
    // The server's instructions point the model at the published query by name.
    let instructions = client
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    assert!(
        instructions.contains("Published queries") && instructions.contains("customers_in_city"),
        "{instructions}"
    );
}

#[tokio::test]
async fn row_filters_apply_to_published_queries() {
    let policy = Policy {
        rows: Some(toml::from_str("customers = \"id <= :last\"").expect("rows")),
        ..demo_policy()
    };
    let vars: Vars = [("last".to_string(), VarValue::Int(4))]
        .into_iter()
        .collect();
    let client = client_for(demo(policy, vars).await, CONFIG).await;
    for city in [
        "Lisbon", "Oslo", "Nairobi", "Osaka", "Toronto", "Lyon", "Pune", "Denver",
    ] {
        for row in rows(
            &client,
            "customers_in_city",
            json!({"city": city, "min_id": 0}),
        )
        .await
        {
            assert!(row["id"].as_i64().is_some_and(|id| id <= 4), "{row}");
        }
    }
}

#[tokio::test]
async fn prompts_are_listed_and_filled() {
    let client = client_for(demo(demo_policy(), Vars::new()).await, CONFIG).await;
    let prompts = client.list_all_prompts().await.expect("prompts/list");
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["sqlgate_guide", "city_report"]);
    let get = |name: &str, args: serde_json::Value| {
        let mut p = rmcp::model::GetPromptRequestParams::new(name);
        if let serde_json::Value::Object(m) = args {
            p.arguments = Some(m);
        }
        client.get_prompt(p)
    };
    let r = get("city_report", json!({"city": "Oslo"}))
        .await
        .expect("get");
    let text = serde_json::to_string(&r.messages).unwrap();
    assert!(
        text.contains("Summarise the customers of Oslo, newest first."),
        "{text}"
    );
    assert!(
        get("city_report", json!({})).await.is_err(),
        "a required argument"
    );
    assert!(get("nope", json!({})).await.is_err());
    let guide = get("sqlgate_guide", json!({})).await.expect("guide");
    let text = serde_json::to_string(&guide.messages).unwrap();
    for needle in ["customers", "order_lines", "customers_in_city", "run_query"] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
}

#[tokio::test]
async fn the_guard_checks_each_query_under_the_policy() {
    let refused_query = r#"
[[queries]]
name = "customer_emails"
description = "E-mail of one customer."
sql = "SELECT email FROM customers WHERE id = :id"
[queries.params]
id = { type = "integer" }
"#;
    let file: FileConfig = toml::from_str(refused_query).unwrap();
    let mut engine = demo(demo_policy(), Vars::new()).await;
    engine.set_published(Arc::new(resolve_published(&file).unwrap()));
    let e = engine
        .check_published(&Vars::new())
        .expect_err("email is protected");
    assert!(e.contains("customer_emails") && e.contains("email"), "{e}");

    // Undeclared and unused parameters are refused before anything runs.
    for (sql, needle) in [
        (
            "SELECT id FROM customers WHERE id = :id AND city = :city",
            ":city",
        ),
        ("SELECT id FROM customers", ":id"),
        (
            "SELECT id FROM customers WHERE id = :id OR id = ?",
            "positional placeholder `?`",
        ),
    ] {
        let text = format!(
            "[[queries]]\nname = \"q\"\ndescription = \"d\"\nsql = \"{sql}\"\n[queries.params]\nid = {{ type = \"integer\" }}\n"
        );
        let file: FileConfig = toml::from_str(&text).unwrap();
        engine.set_published(Arc::new(resolve_published(&file).unwrap()));
        let e = engine.check_published(&Vars::new()).expect_err(sql);
        assert!(e.contains("`q`") && e.contains(needle), "{e}");
    }
}

#[tokio::test]
async fn names_and_principals_are_checked_before_anything_connects() {
    for (text, needle) in [
        ("name = \"run_query\"", "already a tool"),
        ("name = \"has space\"", "letters"),
        (
            "name = \"q\"\nprincipals = [\"alice\"]",
            "no principal `alice`",
        ),
        ("name = \"q\"\nmax_rows = 0", "max_rows"),
    ] {
        let toml_text = format!("[[queries]]\n{text}\ndescription = \"d\"\nsql = \"SELECT 1\"\n");
        let file: FileConfig = toml::from_str(&toml_text).unwrap();
        let e = resolve_published(&file).expect_err(text).0;
        assert!(e.contains(needle), "{text}: {e}");
    }
    let bad_type = "[[queries]]\nname = \"q\"\ndescription = \"d\"\nsql = \"SELECT :a\"\nparams = { a = { type = \"date\" } }\n";
    assert!(toml::from_str::<FileConfig>(bad_type).is_err());
}

#[tokio::test]
async fn variables_from_claims_are_stood_for_at_start() {
    // A row filter whose variable a caller's token binds: no value at start but a sample of its
    // type, so the query is checked under the filter.
    let policy = Policy {
        rows: Some(toml::from_str("customers = \"id <= :last\"").expect("rows")),
        ..demo_policy()
    };
    let mut engine = demo(policy, Vars::new()).await;
    let file: FileConfig = toml::from_str(CONFIG).unwrap();
    engine.set_published(Arc::new(resolve_published(&file).unwrap()));
    let e = engine
        .check_published(&Vars::new())
        .expect_err("no value for :last");
    assert!(e.contains("customers_in_city") && e.contains("last"), "{e}");
    let sample: Vars = [("last".to_string(), VarValue::Int(0))]
        .into_iter()
        .collect();
    engine
        .check_published(&sample)
        .expect("checked under the filter");
}
