//! Query classes: what kind of statement a payload really is, looking inside nested statements.
//!
//! [`statement`] classes a parsed statement; [`unparsed`] classes text that does not parse, from
//! its keywords. Neither knows the guard: `crate::guard::classify` puts them together for
//! [`crate::classify`].

mod statement;
mod unparsed;

pub(crate) use statement::statement_class;
pub(crate) use unparsed::class_of_unparsed;

use crate::stable_names::stable_names;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Statement class, in privilege order: `select < session < mutation_create < mutation_delete <
/// ddl < admin < unknown`. A payload's class is the most privileged class among its statements.
#[derive(Serialize, Deserialize, JsonSchema, strum::IntoStaticStr, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QueryClass {
    /// SELECT, VALUES, TABLE, read-only WITH, EXPLAIN (no ANALYZE) of those.
    Select,
    /// SET, SHOW, USE, transaction control, PREPARE, cursors, LISTEN ...
    Session,
    /// INSERT, UPDATE, MERGE, REPLACE, COPY FROM, LOAD DATA.
    MutationCreate,
    /// DELETE, TRUNCATE, MERGE with a DELETE action.
    MutationDelete,
    /// CREATE, ALTER, DROP, RENAME, COMMENT ON, SELECT INTO, CREATE TABLE AS.
    Ddl,
    /// GRANT, REVOKE, roles, COPY TO / PROGRAM, VACUUM, CALL, DO, EXECUTE, LOCK, PRAGMA, ATTACH ...
    Admin,
    /// Anything not recognised (including text that does not parse).
    Unknown,
}

stable_names!(QueryClass, "Every class, in privilege order.");
