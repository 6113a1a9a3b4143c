//! The backend's typed error: a stable code, the database's message (never the connection
//! string), its SQLSTATE and a hint as data. The tools layer turns it into a tool error.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Stable database error codes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum DbErrorCode {
    /// The statement ran over the timeout and was cancelled.
    QueryTimeout,
    /// The database could not be reached (retryable).
    DatabaseUnavailable,
    /// The database refused or failed the statement.
    DatabaseError,
    /// `--require-read-only-role`: the database role can write, so the server does not start.
    RoleNotReadOnly,
    /// The planner's estimate of the approved read is over `--max-cost` or
    /// `--max-estimated-rows`; nothing ran.
    TooExpensive,
    /// The engine stopped the statement at one of the server's resource bounds (a value or row
    /// too long, the engine's memory or temporary-file bound); retryable when the bound is
    /// shared with other queries (SQLite's heap, DuckDB's memory).
    ResourceLimit,
}

impl DbErrorCode {
    /// Every code.
    pub const ALL: &'static [DbErrorCode] = <DbErrorCode as strum::VariantArray>::VARIANTS;

    /// The stable snake_case string (the serde name).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A database error, safe to show (never contains the connection string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    /// Stable code.
    pub code: DbErrorCode,
    /// Message from the database (or ours).
    pub message: String,
    /// SQLSTATE, when the database sent one.
    pub sqlstate: Option<String>,
    /// True when the same call may succeed later.
    pub retryable: bool,
    /// What the caller can do about it, when the backend knows (`too_expensive`).
    pub hint: Option<String>,
}

impl DbError {
    /// A read refused by the cost cap: `why` it is over, and `advice` for the agent.
    pub fn too_expensive(why: String, advice: String) -> Self {
        DbError {
            hint: Some(advice),
            ..DbError::new(DbErrorCode::TooExpensive, format!("not run: {why}"))
        }
    }

    /// The engine's refusal at a resource bound: `what` ran over, in the engine's `message`.
    pub fn resource_limit(what: &str, message: impl std::fmt::Display, retryable: bool) -> Self {
        DbError {
            retryable,
            ..DbError::new(
                DbErrorCode::ResourceLimit,
                format!("the query ran over the server's bound on {what}: {message}"),
            )
        }
    }

    /// A new error; `database_unavailable` is retryable.
    pub fn new(code: DbErrorCode, message: impl Into<String>) -> Self {
        DbError {
            code,
            message: message.into(),
            sqlstate: None,
            retryable: code == DbErrorCode::DatabaseUnavailable,
            hint: None,
        }
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for DbError {}

/// Why a database could not be served: the database failed, or the settings do not fit the
/// engine (or the build). Its text is what `serve` prints before it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectError {
    /// The database refused the connection or could not be reached.
    Database(DbError),
    /// The settings ask for what this engine, build or role cannot do (DuckDB in a write mode, a
    /// build without DuckDB, a write mode whose tables the role may not write), or the demo's
    /// temporary database could not be made.
    Setup(String),
}

impl From<DbError> for ConnectError {
    fn from(e: DbError) -> Self {
        ConnectError::Database(e)
    }
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Database(e) => e.fmt(f),
            ConnectError::Setup(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ConnectError {}
