//! What an attack could change: the database's fingerprint (every relation's rows, the catalogs'
//! state) and the state of the files the attacks aim at.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

use crate::attacks::Attack;
use crate::scratch_database::connect;

/// Absolute paths named in the attacks, plus every `/tmp/sqlgate-pwned*` entry.
pub fn watched_paths(attacks: &[Attack]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for a in attacks {
        for (i, part) in a.sql.split('\'').enumerate() {
            if i % 2 == 1 && part.starts_with('/') && !part.contains(char::is_whitespace) {
                paths.push(PathBuf::from(part));
            }
        }
    }
    for p in ["/tmp/sqlgate-pwned", "/tmp/sqlgate-pwned-program"] {
        paths.push(PathBuf::from(p));
    }
    paths.sort();
    paths.dedup();
    paths
}

/// Each watched path's size and mtime (`None`: absent).
pub type FileState = BTreeMap<PathBuf, Option<(u64, SystemTime)>>;

/// Size and mtime of each path (`None`: absent). Directories (`pg_ls_dir('/')`) count by
/// existence only: other processes add entries to them.
pub fn file_state(paths: &[PathBuf]) -> FileState {
    let mut state: FileState = BTreeMap::new();
    for p in paths {
        let meta = std::fs::symlink_metadata(p).ok();
        state.insert(
            p.clone(),
            meta.map(|m| {
                if m.is_dir() {
                    (0, SystemTime::UNIX_EPOCH)
                } else {
                    (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH))
                }
            }),
        );
    }
    if let Ok(entries) = std::fs::read_dir("/tmp") {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("sqlgate-pwned") {
                let m = e.metadata().ok();
                state.insert(
                    e.path(),
                    m.map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH))),
                );
            }
        }
    }
    state
}

/// What an attack could change, as text, one entry per aspect.
pub async fn fingerprint(url: &str) -> BTreeMap<String, String> {
    let client = connect(url).await;
    let mut fp = relation_rows(&client).await;
    for (what, q) in CATALOG_ASPECTS {
        let row = client
            .query_one(*q, &[])
            .await
            .unwrap_or_else(|e| panic!("fingerprint {what}: {e:?}"));
        fp.insert(
            what.to_string(),
            row.get::<_, Option<String>>(0).unwrap_or_default(),
        );
    }
    fp
}

/// Row count and checksum of the rows of every table, view and materialized view; a sequence's
/// state.
async fn relation_rows(client: &tokio_postgres::Client) -> BTreeMap<String, String> {
    let mut fp = BTreeMap::new();
    let relations = client
        .query(
            "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relkind = 'S' FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p','v','m','S','f') \
             AND n.nspname NOT IN ('pg_catalog','information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' \
             AND n.nspname NOT LIKE 'pg\\_temp%' ORDER BY 1",
            &[],
        )
        .await
        .expect("relations");
    for r in relations {
        let name: String = r.get(0);
        let sequence: bool = r.get(1);
        // Row count and checksum of the rows; a sequence's state.
        let sql = if sequence {
            format!("SELECT concat_ws(':', last_value, log_cnt, is_called) FROM {name}")
        } else {
            format!(
                "SELECT count(*)::text || ':' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '') FROM {name} x"
            )
        };
        let row = client
            .query_one(&sql, &[])
            .await
            .unwrap_or_else(|e| panic!("checksum of {name}: {e:?}"));
        fp.insert(format!("rows {name}"), row.get::<_, String>(0));
    }
    fp
}

/// The catalogs' state, one query per aspect, each returning one text.
const CATALOG_ASPECTS: &[(&str, &str)] = &[
    (
        "sequences",
        "SELECT string_agg(schemaname || '.' || sequencename || '=' || coalesce(last_value::text, 'null'), ',' ORDER BY schemaname, sequencename) FROM pg_sequences",
    ),
    (
        "user-settable settings",
        "SELECT string_agg(name || '=' || coalesce(setting, '') || ':' || source, ',' ORDER BY name) FROM pg_settings WHERE context IN ('user', 'superuser')",
    ),
    (
        "configuration files (ALTER SYSTEM)",
        "SELECT string_agg(coalesce(sourcefile, '') || ':' || name || '=' || coalesce(setting, ''), ',' ORDER BY sourcefile, seqno) FROM pg_file_settings",
    ),
    (
        "role and database settings",
        "SELECT string_agg(setdatabase::text || '/' || setrole::text || '=' || array_to_string(setconfig, ';'), ',' ORDER BY setdatabase, setrole) FROM pg_db_role_setting",
    ),
    (
        "large objects",
        "SELECT count(*)::text || ':' || coalesce(string_agg(oid::text, ',' ORDER BY oid), '') FROM pg_largeobject_metadata",
    ),
    (
        "roles",
        "SELECT string_agg(concat_ws(':', rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconnlimit, md5(coalesce(rolpassword, '')), rolvaliduntil), ',' ORDER BY rolname) FROM pg_authid",
    ),
    (
        "role memberships",
        "SELECT coalesce(string_agg(roleid::regrole::text || '>' || member::regrole::text, ',' ORDER BY roleid, member), '') FROM pg_auth_members",
    ),
    (
        "privileges and comments",
        "SELECT string_agg(c.oid::regclass::text || ':' || coalesce(c.relacl::text, '') || ':' || coalesce(obj_description(c.oid, 'pg_class'), ''), ',' ORDER BY c.oid) \
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'",
    ),
    (
        "schemas",
        "SELECT string_agg(nspname || ':' || coalesce(nspacl::text, ''), ',' ORDER BY nspname) FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_temp%' AND nspname NOT LIKE 'pg\\_toast\\_temp%'",
    ),
    (
        "functions",
        "SELECT count(*)::text || ':' || md5(string_agg(p.oid::regprocedure::text || coalesce(p.proacl::text, ''), ',' ORDER BY p.oid)) FROM pg_proc p",
    ),
    (
        "triggers, rules, policies",
        "SELECT (SELECT count(*) FROM pg_trigger)::text || ':' || (SELECT count(*) FROM pg_rewrite)::text || ':' || (SELECT count(*) FROM pg_policy)::text",
    ),
    (
        "extensions",
        "SELECT string_agg(extname || ' ' || extversion, ',' ORDER BY extname) FROM pg_extension",
    ),
    (
        "databases",
        "SELECT string_agg(datname || ':' || datallowconn::text || ':' || coalesce(datacl::text, ''), ',' ORDER BY datname) FROM pg_database WHERE datname NOT LIKE 'sqlgate\\_safety\\_%' OR datname = current_database()",
    ),
];

/// The aspects of `after` that differ from `before` or are new, each as `key: before -> after`
/// or `new: key`.
pub fn changes(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    before
        .iter()
        .filter(|(k, v)| after.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}: {v} -> {:?}", after.get(k)))
        .chain(
            after
                .keys()
                .filter(|k| !before.contains_key(*k))
                .map(|k| format!("new: {k}")),
        )
        .collect()
}
