//! Results keep their meaning under a PostgreSQL row filter (issue 29): a whole-row reference to
//! a filtered table is an object keyed by the table's column names, as under PostgreSQL's
//! row-level security (the filter goes in place, so the row keeps its table's type), and a
//! system column of a filtered table is refused before it runs.

use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};

use crate::common::{call, query_ok, structured};

#[tokio::test]
async fn whole_rows_and_system_columns_of_a_filtered_table() {
    let Some(url) = crate::common::chinook_url("the row-filter results test") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("sqlgate.toml");
    let text = format!(
        "database_url = \"{url}\"\nvars = {{ tenant = 3 }}\n[policy]\ndialect = \"postgres\"\n\
         max_rows = 100\nrows = {{ invoice = \"customer_id = :tenant\" }}\n"
    );
    std::fs::write(&config, text).expect("write config");
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp")).configure(|c| {
        c.arg("serve").arg("--config").arg(&config);
        c.stderr(std::process::Stdio::null());
    });
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("client");

    let out = query_ok(
        &client,
        "SELECT i FROM invoice i ORDER BY i.invoice_id LIMIT 2",
    )
    .await;
    let rows = out["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "{out}");
    for row in rows {
        let record = row["i"]
            .as_object()
            .unwrap_or_else(|| panic!("not an object: {row}"));
        assert!(record["invoice_id"].is_i64(), "{row}");
        assert_eq!(
            record["customer_id"], 3,
            "the filter holds inside the record: {row}"
        );
        assert!(
            record["invoice_date"]
                .as_str()
                .is_some_and(|d| d.contains('T')),
            "{row}"
        );
        assert!(record["total"].is_number(), "{row}");
        assert_eq!(record.len(), 9, "every column of invoice: {row}");
    }

    for sql in [
        "SELECT * FROM invoice WHERE ctid = '(0,1)'",
        "SELECT ctid, xmin, invoice_id FROM invoice",
    ] {
        let r = call(&client, "run_query", json!({ "sql": sql })).await;
        let out: Value = structured(&r);
        assert_eq!(r.is_error, Some(true), "{sql}: {out}");
        assert_ne!(out["stage"], "execute", "refused before it runs: {out}");
        assert_eq!(out["code"], "unknown_column", "{sql}: {out}");
    }
    let _ = client.cancel().await;
}
