//! DuckDB backend (cargo feature `duckdb`), through the MCP tools: Chinook copied into a DuckDB
//! file in a temporary folder (read from the corpus's SQLite file with rusqlite: DuckDB's sqlite
//! extension would need a download), plus a table of every DuckDB type and the tables the vectors
//! name. The corpus comes from `$SQLGATE_CORPUS` or `../shared/corpus`; without it the tests are
//! skipped with a message, except under `CI=true`, where its absence is a failure.
#![cfg(feature = "duckdb")]
// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use sqlgate::{Dialect, Policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::duckdb::{DuckdbBackend, DuckdbOptions};
use sqlgate_mcp::backend::{Backend, DbErrorCode, QueryLimits};
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

mod common;
use common::{call, query_ok, serve_in_process, structured};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Chinook's SQLite file, or `None` (skip) outside CI when the corpus is absent.
fn chinook_sqlite() -> Option<PathBuf> {
    let corpus = std::env::var_os("SQLGATE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/corpus"));
    let file = corpus.join("chinook/Chinook_Sqlite.sqlite");
    if file.is_file() {
        return Some(file);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} not found, and CI=true requires the DuckDB tests",
            file.display()
        );
    }
    eprintln!(
        "skipped: {} not found (set SQLGATE_CORPUS for the DuckDB tests)",
        file.display()
    );
    None
}

/// Every DuckDB type the brief lists, one row of values and one of NULLs.
const ALL_TYPES: &str = r#"
CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE all_types (
  i8 TINYINT, i16 SMALLINT, i32 INTEGER, i64 BIGINT, i64_big BIGINT,
  u8 UTINYINT, u64 UBIGINT, i128 HUGEINT, i128_small HUGEINT, u128 UHUGEINT,
  dec DECIMAL(18, 3), dec38 DECIMAL(38, 10), f32 REAL, f64 DOUBLE, nan DOUBLE,
  d DATE, t TIME, ts TIMESTAMP, tstz TIMESTAMPTZ, iv INTERVAL, id UUID, b BLOB,
  l INTEGER[], a INTEGER[3], s STRUCT(x INTEGER, y VARCHAR), m MAP(VARCHAR, INTEGER),
  ls STRUCT(k VARCHAR)[], e mood, ok BOOLEAN, txt VARCHAR
);
INSERT INTO all_types VALUES (
  -8, -16, -32, 9007199254740992, 9007199254740993,
  200, 18446744073709551615, 170141183460469231731687303715884105727, -7, 123456789012345678901234567890,
  12345.678, 1234567890123456789012345678.0123456789, 1.5, 2.25, 'NaN',
  DATE '2024-02-29', TIME '13:14:15.123456', TIMESTAMP '2024-02-29 13:14:15.5',
  TIMESTAMPTZ '2024-02-29 13:14:15+00', INTERVAL '1 year 2 months 3 days 04:05:06',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x00\xFFabc'::BLOB,
  [1, 2, NULL], [1, 2, 3], {'x': 1, 'y': 'why'}, MAP {'k': 1, 'j': 2},
  [{'k': 'a'}, {'k': 'b'}], 'happy', true, 'text'
);
INSERT INTO all_types (i8) VALUES (NULL);
CREATE TABLE more_types (
  k INTEGER, iv INTERVAL, tz TIMETZ, bits BIT, u UNION(num INTEGER, str VARCHAR, l INTEGER[])
);
INSERT INTO more_types VALUES
  (1, INTERVAL '1 year 2 months 3 days 04:05:06.5', TIMETZ '13:14:15.25+05:30', '101'::BIT,
   union_value(num := 7)),
  (2, -INTERVAL '1 year 2 months 3 days 04:05:06.5', TIMETZ '01:02:03-08:00',
   '10000000011'::BIT, union_value(str := 'seven')),
  (3, INTERVAL 1 MONTH - INTERVAL 1 DAY + INTERVAL '0.25 seconds', TIMETZ '23:59:59+00',
   '0'::BIT, union_value(l := [1, NULL])),
  (4, INTERVAL '-0.5 seconds', TIMETZ '00:00:00-15:59', '11111111'::BIT, NULL),
  (5, INTERVAL '0 seconds', NULL, NULL, NULL),
  (6, NULL, NULL, NULL, NULL);
CREATE TABLE tz_nested (
  k INTEGER, tz TIMETZ, lt TIMETZ[], lb BIT[],
  s STRUCT(t TIMETZ, b BIT, u UUID, h HUGEINT, uh UHUGEINT, ok BOOLEAN, d DECIMAL(9, 2), iv INTERVAL),
  m MAP(VARCHAR, BIT), lok BOOLEAN[], big VARINT
);
INSERT INTO tz_nested VALUES
  (1, '12:34:56+02:00', ['12:34:56.789-05:30', NULL, '00:00:00+00'], ['101', NULL, '0'],
   {'t': '23:59:59.000001+15:59:59', 'b': '1000000000000001',
    'u': 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'h': -170141183460469231731687303715884105728,
    'uh': 340282366920938463463374607431768211455, 'ok': false, 'd': -1234567.89,
    'iv': INTERVAL '-1 day 00:00:00.000001'},
   MAP {'x': '11'::BIT, 'y': NULL}, [true, false, NULL], '-123456789012345678901234567890'),
  (2, '12:34:56.789-05:30', [], [], NULL, NULL, [], '0'),
  (3, '00:00:00.5+00', NULL, NULL,
   {'t': NULL, 'b': NULL, 'u': NULL, 'h': NULL, 'uh': NULL, 'ok': NULL, 'd': NULL, 'iv': NULL},
   MAP {}, NULL, '9007199254740993'),
  (4, '24:00:00-15:59:59', ['23:59:59.999999-00:00:01'], ['11111111'],
   {'t': '01:02:03.04-00:30', 'b': '0', 'u': '00000000-0000-0000-0000-000000000000', 'h': 7,
    'uh': 0, 'ok': true, 'd': 0.5, 'iv': INTERVAL '0 seconds'},
   MAP {'z': '0101'::BIT}, [true], '-1'),
  (5, '12:00:00-00:30', NULL, NULL, NULL, NULL, NULL, NULL),
  (6, '12:00:00.000010+00:00:30', NULL, NULL, NULL, NULL, NULL, NULL),
  (7, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE t (a INTEGER);
INSERT INTO t SELECT range FROM range(10);
CREATE TABLE u (b INTEGER);
INSERT INTO u SELECT range FROM range(5);
"#;

/// Chinook (`common::chinook_duckdb`) and the extra tables in `dir/chinook.duckdb`.
fn build_database(dir: &Path, sqlite: &Path) -> PathBuf {
    let (path, dst) = common::chinook_duckdb::build(dir, sqlite).expect("Chinook in DuckDB");
    dst.execute_batch(ALL_TYPES).unwrap();
    dst.execute_batch(
        "CREATE VIEW invoice_total AS SELECT invoice_id, total FROM invoice; CHECKPOINT",
    )
    .unwrap();
    drop(dst);
    path
}

struct Fixture {
    dir: tempfile::TempDir,
    db: PathBuf,
}

fn fixture() -> Option<Fixture> {
    let sqlite = chinook_sqlite()?;
    let dir = tempfile::tempdir().unwrap();
    let db = build_database(dir.path(), &sqlite);
    Some(Fixture { dir, db })
}

/// An MCP client of an in-process server on the DuckDB file `db` (stderr audit).
async fn client_on(
    db: &Path,
    policy: Policy,
    timeout: Duration,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    serve_in_process(SqlGateServer::new(
        engine(db, policy, timeout).await,
        Audit::stderr(),
    ))
    .await
}

async fn engine(db: &Path, policy: Policy, timeout: Duration) -> Arc<Engine> {
    let backend = DuckdbBackend::open(db, &DuckdbOptions::default()).expect("open read-only");
    let engine = Engine::new(
        Backend::Duckdb(backend),
        EngineConfig::read_only(policy, timeout),
    )
    .await
    .expect("engine");
    Arc::new(engine)
}

fn duckdb_policy(max_rows: u64) -> Policy {
    Policy {
        max_rows: Some(max_rows),
        ..Policy::for_dialect(Dialect::Duckdb)
    }
}

fn sha256(path: &Path) -> String {
    sqlgate_mcp::audit::chain::sha256_hex(&std::fs::read(path).unwrap())
}

fn is_refused(r: &CallToolResult) -> bool {
    r.is_error == Some(true) && structured(r)["stage"] != "execute"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_on_chinook() {
    let Some(f) = fixture() else { return };
    let client = client_on(&f.db, duckdb_policy(50), Duration::from_secs(1)).await;

    let r = call(&client, "server_info", json!({})).await;
    assert_eq!(structured(&r)["database"], "duckdb");
    assert_eq!(structured(&r)["dialect"], "duckdb");

    let r = call(&client, "list_tables", json!({})).await;
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

    let r = call(&client, "describe_table", json!({"table": "album"})).await;
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
    let r = call(&client, "describe_table", json!({"table": "artist"})).await;
    let refs = structured(&r)["referenced_by"].clone();
    assert!(
        refs.as_array()
            .unwrap()
            .iter()
            .any(|x| x["table"] == "album"),
        "{refs}"
    );
    let r = call(
        &client,
        "describe_table",
        json!({"table": "playlist_track"}),
    )
    .await;
    assert_eq!(
        structured(&r)["primary_key"],
        json!(["playlist_id", "track_id"])
    );

    // The row cap: 50 of 3503 tracks, and the guard's LIMIT asks for one more.
    let out = query_ok(&client, "SELECT name FROM track ORDER BY track_id").await;
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
        &client,
        "run_query",
        json!({"sql": "SELECT count(*) AS n FROM invoice_line"}),
    )
    .await;
    assert_eq!(structured(&r)["rows"][0]["n"], 2240);
    assert_eq!(structured(&r)["truncated"], false);

    // A cross join of 8715^3 rows runs far beyond the 1s timeout and is interrupted.
    let started = std::time::Instant::now();
    let r = call(
        &client,
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
        &client,
        "run_query",
        json!({"sql": "SELECT count(*) AS n FROM artist"}),
    )
    .await;
    assert_eq!(structured(&r)["rows"][0]["n"], 275);
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_renders_to_json() {
    let Some(f) = fixture() else { return };
    let client = client_on(&f.db, duckdb_policy(10), Duration::from_secs(10)).await;
    let out = query_ok(&client, "SELECT * FROM all_types ORDER BY i8 NULLS LAST").await;
    let row = &out["rows"][0];
    let expect = json!({
        "i8": -8, "i16": -16, "i32": -32, "i64": 9007199254740992_i64, "i64_big": "9007199254740993",
        "u8": 200, "u64": "18446744073709551615",
        "i128": "170141183460469231731687303715884105727", "i128_small": -7,
        "u128": "123456789012345678901234567890",
        "dec": "12345.678", "dec38": "1234567890123456789012345678.0123456789",
        "f32": 1.5, "f64": 2.25, "nan": "NaN",
        "d": "2024-02-29", "t": "13:14:15.123456", "ts": "2024-02-29T13:14:15.500",
        "id": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "b": "AP9hYmM=",
        "l": [1, 2, null], "a": [1, 2, 3], "s": {"x": 1, "y": "why"}, "m": {"k": 1, "j": 2},
        "ls": [{"k": "a"}, {"k": "b"}], "e": "happy", "ok": true, "txt": "text"
    });
    for (k, v) in expect.as_object().unwrap() {
        assert_eq!(&row[k], v, "column {k}: {row}");
    }
    // Time zones and intervals are strings naming the instant and the parts (ISO 8601).
    assert_eq!(row["tstz"], "2024-02-29T13:14:15Z");
    assert_eq!(row["iv"], "P1Y2M3DT4H5M6S");
    // Column types are DuckDB's names.
    let types: Vec<&str> = out["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    for t in [
        "HUGEINT",
        "UHUGEINT",
        "DECIMAL(18,3)",
        "UUID",
        "INTEGER[3]",
        "MAP(VARCHAR, INTEGER)",
        "TIMESTAMP WITH TIME ZONE",
    ] {
        assert!(types.contains(&t), "{t} not in {types:?}");
    }
    // The row of NULLs: every column is null.
    let nulls = out["rows"][1].as_object().unwrap();
    assert_eq!(nulls.len(), types.len());
    assert!(nulls.values().all(Value::is_null), "{nulls:?}");

    // Intervals as ISO 8601 durations (each part keeps its sign) and BIT strings as PostgreSQL's
    // render; a UNION as an object naming its member; NULL as null; TIMETZ as DuckDB's own text,
    // its offset included.
    let out = query_ok(&client, "SELECT * FROM more_types ORDER BY k").await;
    assert_eq!(
        out["rows"],
        json!([
            {"k": 1, "iv": "P1Y2M3DT4H5M6.5S", "tz": "13:14:15.25+05:30", "bits": "101",
             "u": {"num": 7}},
            {"k": 2, "iv": "P-1Y-2M-3DT-4H-5M-6.5S", "tz": "01:02:03-08",
             "bits": "10000000011", "u": {"str": "seven"}},
            {"k": 3, "iv": "P1M-1DT0.25S", "tz": "23:59:59+00", "bits": "0",
             "u": {"l": [1, null]}},
            {"k": 4, "iv": "PT-0.5S", "tz": "00:00:00-15:59", "bits": "11111111", "u": null},
            {"k": 5, "iv": "PT0S", "tz": null, "bits": null, "u": null},
            {"k": 6, "iv": null, "tz": null, "bits": null, "u": null}
        ])
    );
    let types: Vec<&str> = out["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "INTEGER",
            "INTERVAL",
            "TIME WITH TIME ZONE",
            "BIT",
            "UNION(num INTEGER, str VARCHAR, l INTEGER[])"
        ]
    );
    client.cancel().await.ok();
}

/// TIME WITH TIME ZONE keeps its offset (positive, negative, zero, with minutes and seconds) and
/// its fraction, as DuckDB's own text; TIMETZ, BIT, UUID, HUGEINT, UHUGEINT, BOOLEAN, DECIMAL and
/// INTERVAL render the same inside a LIST, a STRUCT and a MAP as at the top level; BIGNUM as an
/// integer (its digits beyond 2^53). The backend reads Arrow with `arrow_lossless_conversion`, where DuckDB sends these as
/// extension types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timetz_and_extension_types_render_exactly() {
    let Some(f) = fixture() else { return };
    let client = client_on(&f.db, duckdb_policy(10), Duration::from_secs(10)).await;

    // Each TIMETZ as DuckDB casts it to text: the rendering must be that text.
    let out = query_ok(
        &client,
        "SELECT k, tz, tz::VARCHAR AS tz_text, lt, lt::VARCHAR[] AS lt_text, \
                        struct_extract(s, 't')::VARCHAR AS st_text, s FROM tz_nested ORDER BY k",
    )
    .await;
    let rows = out["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7, "{out}");
    for row in rows {
        assert_eq!(row["tz"], row["tz_text"], "{row}");
        assert_eq!(row["lt"], row["lt_text"], "{row}");
        assert_eq!(row["s"]["t"], row["st_text"], "{row}");
    }
    let tz: Vec<&Value> = rows.iter().map(|r| &r["tz"]).collect();
    assert_eq!(
        tz,
        [
            &json!("12:34:56+02"),
            &json!("12:34:56.789-05:30"),
            &json!("00:00:00.5+00"),
            &json!("24:00:00-15:59:59"),
            &json!("12:00:00-00:30"),
            &json!("12:00:00.00001+00:00:30"),
            &Value::Null,
        ]
    );

    let out = query_ok(&client, "SELECT * FROM tz_nested ORDER BY k").await;
    assert_eq!(
        out["rows"],
        json!([
            {"k": 1, "tz": "12:34:56+02",
             "lt": ["12:34:56.789-05:30", null, "00:00:00+00"], "lb": ["101", null, "0"],
             "s": {"t": "23:59:59.000001+15:59:59", "b": "1000000000000001",
                   "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                   "h": "-170141183460469231731687303715884105728",
                   "uh": "340282366920938463463374607431768211455", "ok": false,
                   "d": "-1234567.89", "iv": "P-1DT0.000001S"},
             "m": {"x": "11", "y": null}, "lok": [true, false, null],
             "big": "-123456789012345678901234567890"},
            {"k": 2, "tz": "12:34:56.789-05:30", "lt": [], "lb": [], "s": null, "m": null,
             "lok": [], "big": 0},
            {"k": 3, "tz": "00:00:00.5+00", "lt": null, "lb": null,
             "s": {"t": null, "b": null, "u": null, "h": null, "uh": null, "ok": null,
                   "d": null, "iv": null},
             "m": {}, "lok": null, "big": "9007199254740993"},
            {"k": 4, "tz": "24:00:00-15:59:59", "lt": ["23:59:59.999999-00:00:01"],
             "lb": ["11111111"],
             "s": {"t": "01:02:03.04-00:30", "b": "0",
                   "u": "00000000-0000-0000-0000-000000000000", "h": 7, "uh": 0, "ok": true,
                   "d": "0.50", "iv": "PT0S"},
             "m": {"z": "0101"}, "lok": [true], "big": -1},
            {"k": 5, "tz": "12:00:00-00:30", "lt": null, "lb": null, "s": null, "m": null,
             "lok": null, "big": null},
            {"k": 6, "tz": "12:00:00.00001+00:00:30", "lt": null, "lb": null, "s": null,
             "m": null, "lok": null, "big": null},
            {"k": 7, "tz": null, "lt": null, "lb": null, "s": null, "m": null, "lok": null,
             "big": null}
        ])
    );
    let types: Vec<&str> = out["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types[1], "TIME WITH TIME ZONE");
    assert_eq!(types[2], "TIME WITH TIME ZONE[]");

    // BIT, UUID and HUGEINT inside a LIST, as DuckDB prints them.
    let out = query_ok(
        &client,
        "SELECT ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID, NULL] AS u, \
                        [1::HUGEINT, 9007199254740993::HUGEINT] AS h, \
                        [18446744073709551616::UHUGEINT] AS uh, ['1'::BIT] AS b",
    )
    .await;
    assert_eq!(
        out["rows"][0],
        json!({"u": ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", null],
               "h": [1, "9007199254740993"], "uh": ["18446744073709551616"], "b": ["1"]})
    );
    client.cancel().await.ok();
}

/// The DuckDB rows of `tests/vectors/*.jsonl`: (name, sql, policy, expected refused).
fn duckdb_vectors() -> Vec<(String, String, Policy, bool)> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join("tests/vectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for file in files {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["dialect"] != "duckdb" {
                continue;
            }
            let mut policy = v.get("policy").cloned().unwrap_or_else(|| json!({}));
            policy["dialect"] = json!("duckdb");
            let policy: Policy = serde_json::from_value(policy).unwrap();
            out.push((
                v["name"].as_str().unwrap_or_default().to_string(),
                v["sql"].as_str().unwrap().to_string(),
                policy,
                v["expect"]["allowed"] == false,
            ));
        }
    }
    out
}

/// Settings of the served database, read through a connection of its own.
fn locked_settings(e: &Engine) -> Vec<String> {
    let Backend::Duckdb(b) = e.backend() else {
        panic!("not DuckDB")
    };
    [
        "access_mode",
        "enable_external_access",
        "lock_configuration",
        "autoload_known_extensions",
        "threads",
        "arrow_lossless_conversion",
    ]
    .iter()
    .map(|s| format!("{s}={}", b.setting(s).unwrap()))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attacks_are_refused_and_change_nothing() {
    let Some(f) = fixture() else { return };
    // A secret outside the database's folder, which every file-reading attack aims at.
    let secret_dir = tempfile::tempdir().unwrap();
    let secret = secret_dir.path().join("secret.csv");
    let secret_text = "sqlgate-duckdb-secret-5f1c";
    std::fs::write(&secret, format!("k\n{secret_text}\n")).unwrap();
    let s = secret.display().to_string();
    let before = sha256(&f.db);

    let vectors = duckdb_vectors();
    assert!(
        vectors.iter().filter(|v| v.3).count() >= 100,
        "{} vectors",
        vectors.len()
    );
    let mut policies: Vec<Policy> = Vec::new();
    for v in &vectors {
        if !policies.contains(&v.2) {
            policies.push(v.2.clone());
        }
    }
    let extra = [
        format!("SELECT * FROM read_text('{s}')"),
        format!("SELECT * FROM read_csv('{s}')"),
        format!("SELECT * FROM '{s}'"),
        format!("SELECT * FROM \"{s}\""),
        format!("ATTACH '{s}' AS x"),
        format!("COPY (SELECT 1) TO '{}/out.csv'", f.dir.path().display()),
        "SET enable_external_access = true".to_string(),
        "SET lock_configuration = false".to_string(),
        // Would drop TIMETZ offsets from the results again.
        "SET arrow_lossless_conversion = false".to_string(),
        "PRAGMA enable_external_access".to_string(),
        "INSERT INTO t VALUES (1)".to_string(),
        "CREATE TABLE pwned (a INTEGER)".to_string(),
        "CHECKPOINT".to_string(),
    ];
    let expected = locked_settings(
        &*engine(
            &f.db,
            Policy::for_dialect(Dialect::Duckdb),
            Duration::from_secs(5),
        )
        .await,
    );
    assert!(
        expected.contains(&"access_mode=read_only".to_string()),
        "{expected:?}"
    );
    assert!(
        expected.contains(&"enable_external_access=false".to_string()),
        "{expected:?}"
    );
    assert!(
        expected.contains(&"lock_configuration=true".to_string()),
        "{expected:?}"
    );
    assert!(
        expected.contains(&"arrow_lossless_conversion=true".to_string()),
        "{expected:?}"
    );

    let mut ran = 0;
    for policy in policies {
        let e = engine(&f.db, policy.clone(), Duration::from_secs(5)).await;
        let client = serve_in_process(SqlGateServer::new(e.clone(), Audit::stderr())).await;
        let mine = vectors.iter().filter(|v| v.2 == policy);
        let extras = extra.iter().map(|sql| ("extra", sql, true));
        for (name, sql, refused) in mine.map(|v| (v.0.as_str(), &v.1, v.3)).chain(extras) {
            let r = call(&client, "run_query", json!({ "sql": sql })).await;
            let text = serde_json::to_string(&r).unwrap();
            assert!(
                !text.contains(secret_text),
                "{name}: the secret leaked: {text}"
            );
            if refused {
                assert!(is_refused(&r), "{name}: `{sql}` was not refused: {text}");
            } else {
                ran += 1;
            }
        }
        // Under the guard, DuckDB itself: the same reads and writes fail on the backend.
        // CHECKPOINT succeeds as a no-op on a read-only database (the checksum below shows it).
        for sql in extra.iter().filter(|s| *s != "CHECKPOINT") {
            let limits = QueryLimits {
                max_rows: Some(10),
                max_bytes: 1 << 20,
                timeout: Duration::from_secs(5),
            };
            let r = e.backend().execute(sql, limits).await;
            let err = r.expect_err(sql);
            assert_eq!(err.code, DbErrorCode::DatabaseError, "{sql}: {err}");
            assert!(!err.message.contains(secret_text), "{sql}: {err}");
        }
        assert_eq!(locked_settings(&e), expected);
        client.cancel().await.ok();
    }
    assert!(ran >= 20, "only {ran} approved vectors ran");
    assert!(!f.dir.path().join("out.csv").exists());
    assert_eq!(sha256(&f.db), before, "the database file changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_refuses_write_modes_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.duckdb");
    duckdb::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE t (a INTEGER)")
        .unwrap();
    let url = format!("duckdb:{}", db.display());
    let connect = |extra: &[&str]| {
        let mut args = vec!["sqlgate-mcp", "serve", "--database-url", url.as_str()];
        args.extend_from_slice(extra);
        let cli = sqlgate_mcp::app::cli::Cli::try_parse_from(args).unwrap();
        let sqlgate_mcp::app::cli::Command::Serve(a) = cli.command else {
            panic!("serve")
        };
        sqlgate_mcp::config::resolve_serve(&a).unwrap()
    };
    let cfg = connect(&["--mode", "safe"]);
    let err = sqlgate_mcp::app::serve::connect(&cfg).await.err().unwrap();
    assert!(err.contains("read-only"), "{err}");

    let cfg = connect(&["--duckdb-threads", "1", "--duckdb-max-memory", "256MB"]);
    let (backend, policy) = sqlgate_mcp::app::serve::connect(&cfg).await.unwrap();
    assert_eq!(policy.dialect, Dialect::Duckdb);
    let Backend::Duckdb(b) = &backend else {
        panic!("not DuckDB")
    };
    assert_eq!(b.setting("threads").unwrap(), "1");
    assert!(
        b.setting("max_memory").unwrap().contains("MiB"),
        "{:?}",
        b.setting("max_memory")
    );
    let limits = QueryLimits {
        max_rows: None,
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(5),
    };
    let r = backend.execute("SET threads = 8", limits).await;
    assert!(r.is_err(), "the configuration is locked");

    // The README's client configuration, on this file.
    let readme = std::fs::read_to_string(repo_root().join("mcp-server/README.md")).unwrap();
    let (_, after) = readme
        .split_once("DuckDB (a build with the `duckdb` feature")
        .expect("README's DuckDB client configuration");
    let block = after
        .split("```json")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let config: Value = serde_json::from_str(block).unwrap();
    let mut args: Vec<String> = vec!["sqlgate-mcp".into()];
    for a in config["mcpServers"]["sqlgate-duckdb"]["args"]
        .as_array()
        .unwrap()
    {
        let a = a.as_str().unwrap();
        args.push(if a.starts_with("duckdb:") {
            url.clone()
        } else {
            a.to_string()
        });
    }
    assert!(args.contains(&url), "{args:?}");
    let cli = sqlgate_mcp::app::cli::Cli::try_parse_from(&args).unwrap();
    let sqlgate_mcp::app::cli::Command::Serve(a) = cli.command else {
        panic!("serve")
    };
    let cfg = sqlgate_mcp::config::resolve_serve(&a).unwrap();
    let (backend, _) = sqlgate_mcp::app::serve::connect(&cfg).await.unwrap();
    let Backend::Duckdb(b) = &backend else {
        panic!("not DuckDB")
    };
    assert_eq!(b.setting("threads").unwrap(), "2");

    let missing = dir.path().join("missing.duckdb");
    let err = DuckdbBackend::open(&missing, &DuckdbOptions::default())
        .err()
        .unwrap();
    assert_eq!(err.code, DbErrorCode::DatabaseUnavailable);
    assert!(!missing.exists(), "opening must not create the file");
}

/// DuckDB's planner estimate (`EXPLAIN (FORMAT json)`): a cross product of Chinook's two largest
/// tables is refused under a row cap before it runs, with a hint naming them; a joined query
/// passes; `validate_query` reports the estimate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cost_cap_refuses_a_cross_product_before_it_runs() {
    use sqlgate_mcp::backend::cost::CostCap;
    let Some(f) = fixture() else { return };
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
