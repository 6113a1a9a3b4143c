//! The database the DuckDB tests share: Chinook copied from the repository's SQLite file, plus
//! [`ALL_TYPES`] and a view, in a temporary folder; engines and clients on it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sqlgate::{Dialect, Policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::duckdb::{DuckdbBackend, DuckdbOptions};
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{self, serve_in_process};

/// The workspace's root folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
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

/// The database file `db` in its temporary folder `dir`.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
}

/// A fresh copy of the database, built from the repository's Chinook SQLite file.
pub fn fixture() -> Fixture {
    let sqlite = common::chinook_fixture("Chinook_Sqlite.sqlite");
    let dir = tempfile::tempdir().unwrap();
    let db = build_database(dir.path(), &sqlite);
    Fixture { dir, db }
}

/// An MCP client of an in-process server on the DuckDB file `db` (stderr audit).
pub async fn client_on(
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

/// A read-only engine on the DuckDB file `db`.
pub async fn engine(db: &Path, policy: Policy, timeout: Duration) -> Arc<Engine> {
    let backend = DuckdbBackend::open(db, &DuckdbOptions::default()).expect("open read-only");
    let engine = Engine::new(
        Backend::Duckdb(backend),
        EngineConfig::read_only(policy, timeout),
    )
    .await
    .expect("engine");
    Arc::new(engine)
}

/// DuckDB's default policy with a row cap.
pub fn duckdb_policy(max_rows: u64) -> Policy {
    Policy {
        max_rows: Some(max_rows),
        ..Policy::for_dialect(Dialect::Duckdb)
    }
}
