//! The attacks: the PostgreSQL vectors of the core suite's files, and [`EXTRA_ATTACKS`] aimed at
//! the objects of the scratch database and at the server's files and settings.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Attacks aimed at the objects of [`crate::scratch_database::SETUP`] and at the server's files and
/// settings.
const EXTRA_ATTACKS: &[&str] = &[
    "SELECT wipe()",
    "SELECT * FROM users, wipe()",
    "SELECT public.wipe()",
    "CALL cleanup()",
    "SELECT my_schema.my_func(1)",
    "SELECT setval('users_id_seq', 1000)",
    "SELECT nextval('t_id_seq')",
    "SELECT nextval(pg_get_serial_sequence('users', 'id'))",
    "SELECT lo_unlink(oid) FROM pg_largeobject_metadata",
    "SELECT lo_create(0)",
    "SELECT lo_from_bytea(0, '\\x00')",
    "SELECT lo_export(lo_import('/etc/hostname'), '/tmp/sqlgate-pwned-lo')",
    "SELECT pg_file_write('/tmp/sqlgate-pwned-fw', 'x', false)",
    "COPY users TO '/tmp/sqlgate-pwned-copy.csv'",
    "COPY (SELECT * FROM users) TO '/tmp/sqlgate-pwned-query.csv'",
    "COPY users TO PROGRAM 'touch /tmp/sqlgate-pwned-program'",
    "SELECT 1; COPY users TO '/tmp/sqlgate-pwned-stacked'",
    "ALTER SYSTEM SET work_mem = '77MB'",
    "SELECT pg_reload_conf()",
    "ALTER ROLE CURRENT_USER SET work_mem = '77MB'",
    "ALTER DATABASE CURRENT SET work_mem = '77MB'",
    "ALTER ROLE CURRENT_USER NOSUPERUSER",
    "CREATE ROLE sqlgate_pwned SUPERUSER LOGIN",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT set_config('work_mem', '77MB', false)",
    "REFRESH MATERIALIZED VIEW t_count",
    "CREATE TEMP TABLE sqlgate_pwned AS SELECT 1",
    "SELECT * INTO sqlgate_pwned FROM users",
    "SELECT * FROM users FOR UPDATE",
    "WITH x AS (UPDATE users SET admin = true RETURNING 1) SELECT count(*) FROM x",
    "SELECT query_to_xml('UPDATE users SET admin = true RETURNING 1', true, true, '')",
    "SELECT dblink_exec('dbname=postgres', 'CREATE ROLE sqlgate_pwned SUPERUSER')",
    "SELECT pg_stat_reset()",
    "SELECT pg_logical_emit_message(true, 'x', 'y')",
    "SELECT pg_create_restore_point('sqlgate')",
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
    "SELECT pg_advisory_lock(1)",
    "SELECT txid_current()",
    "DO $$ BEGIN DELETE FROM users; END $$",
    "SELECT 1; DROP TABLE users",
    "COMMIT; DROP TABLE users",
    "EXPLAIN ANALYZE DELETE FROM users",
    "SELECT name, (SELECT wipe()) FROM users",
    "SELECT * FROM users WHERE id = (SELECT setval('users_id_seq', 1))",
];

/// One statement to send, and where it comes from.
pub struct Attack {
    pub sql: String,
    pub source: &'static str,
    /// The suite expects a refusal under the default policy (so: before the database).
    pub expect_refused: bool,
}

impl Attack {
    /// [`EXTRA_ATTACKS`], each expected refused.
    pub fn extra() -> impl Iterator<Item = Attack> {
        EXTRA_ATTACKS.iter().map(|s| Attack {
            sql: s.to_string(),
            source: "extra",
            expect_refused: true,
        })
    }
}

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

/// The PostgreSQL vectors of one file; every line must parse.
pub fn postgres_vectors(file: &'static str, all_are_attacks: bool) -> Vec<Attack> {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{file}:{}: not JSON: {e}", i + 1));
        if v["dialect"].as_str() != Some("postgres") {
            continue;
        }
        let sql = v["sql"]
            .as_str()
            .unwrap_or_else(|| panic!("{file}:{}: no `sql`", i + 1));
        let expected_refused = v["expect"]["allowed"].as_bool() == Some(false);
        // Vectors with their own policy may be allowed under the server's default one.
        let own_policy = v.get("policy").is_some();
        if all_are_attacks && !own_policy {
            assert!(
                expected_refused,
                "{file}:{}: an attack the suite allows",
                i + 1
            );
        }
        out.push(Attack {
            sql: sql.to_string(),
            source: file,
            expect_refused: expected_refused && !own_policy && all_are_attacks,
        });
    }
    out
}

/// The PostgreSQL rows of `mutations.jsonl` (`"entry": "mutation"`), as attacks on run_query too.
pub fn postgres_mutation_vectors() -> Vec<Attack> {
    let mut out = postgres_vectors("mutations.jsonl", false);
    for a in out.iter_mut() {
        a.source = "mutations.jsonl";
    }
    out
}
