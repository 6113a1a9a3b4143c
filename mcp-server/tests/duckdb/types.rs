//! Every DuckDB type rendered to JSON, at the top level and nested, TIMETZ and the extension types
//! exactly as DuckDB prints them.

use std::time::Duration;

use rmcp::service::Peer;
use rmcp::RoleClient;
use serde_json::{json, Value};

use crate::common::query_ok;
use crate::fixture::{client_on, duckdb_policy, fixture};

/// The type of each column of a `run_query` result, as DuckDB names it.
fn column_types(out: &Value) -> Vec<&str> {
    out["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_renders_to_json() {
    let f = fixture();
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
    let types = column_types(&out);
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
    let types = column_types(&out);
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

/// Each TIMETZ as DuckDB casts it to text: the rendering must be that text.
async fn timetz_is_duckdbs_own_text(client: &Peer<RoleClient>) {
    let out = query_ok(
        client,
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
}

/// TIME WITH TIME ZONE keeps its offset (positive, negative, zero, with minutes and seconds) and
/// its fraction, as DuckDB's own text; TIMETZ, BIT, UUID, HUGEINT, UHUGEINT, BOOLEAN, DECIMAL and
/// INTERVAL render the same inside a LIST, a STRUCT and a MAP as at the top level; BIGNUM as an
/// integer (its digits beyond 2^53). The backend reads Arrow with `arrow_lossless_conversion`, where DuckDB sends these as
/// extension types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timetz_and_extension_types_render_exactly() {
    let f = fixture();
    let client = client_on(&f.db, duckdb_policy(10), Duration::from_secs(10)).await;

    timetz_is_duckdbs_own_text(&client).await;

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
    let types = column_types(&out);
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
