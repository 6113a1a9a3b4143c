//! The verdict: what the guard answers for one payload, in the one JSON shape every layer shares.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::class::QueryClass;
use crate::error::{ErrorCode, GuardError, Stage};
use crate::stable_names::stable_names;

/// What happened to the row cap on the outermost query.
#[derive(Serialize, Deserialize, JsonSchema, strum::IntoStaticStr, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitAction {
    /// No limit was present; the cap was added.
    Injected,
    /// A larger literal limit (or `LIMIT ALL`) was lowered to the cap.
    Clamped,
    /// A literal limit at or below the cap was kept as written.
    Kept,
    /// No cap applies (the policy has none).
    None,
}

stable_names!(LimitAction, "Every action.");

/// The row cap as applied to an approved query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LimitInfo {
    /// What the guard did.
    pub action: LimitAction,
    /// The limit in force in `sql` (`None` when there is none).
    pub value: Option<u64>,
    /// The literal limit the caller wrote, if any.
    pub original: Option<u64>,
}

/// An approved query: run `sql`, never the text that was submitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Approved {
    /// SQL regenerated from the checked tree, row cap applied. Execute this.
    pub sql: String,
    /// Class of the statement (always `select` for an approved query).
    pub query_class: QueryClass,
    /// Number of statements in the payload (always 1 when approved).
    pub statement_count: usize,
    /// Tables the query reads, as written (normalised to the dialect's folding), sorted.
    pub tables: Vec<String>,
    /// Columns the query reads, `table.column`, when a catalog resolved them; sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    /// Functions the query calls (lower-cased, schema-qualified when written so), sorted.
    pub functions: Vec<String>,
    /// What the row cap did.
    pub limit: LimitInfo,
    /// Row filters applied (the policy's table names), sorted; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row_filters: Vec<String>,
    /// Placeholders in `sql` (`?`, `$1`, `:name`), in the order they appear: values the caller
    /// must bind when it executes `sql`; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<String>,
}

/// An approved mutation (from [`crate::Guard::check_mutation`]): run `sql`, never the text that
/// was submitted. Nothing was capped: a front end bounds the rows it changes by previewing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovedMutation {
    /// SQL regenerated from the checked tree. Execute this.
    pub sql: String,
    /// `mutation_create` (INSERT, UPDATE, MERGE without DELETE) or `mutation_delete`.
    pub query_class: QueryClass,
    /// The table the statement modifies (normalised to the dialect's folding, or the catalog's
    /// `schema.table`).
    pub target: String,
    /// Tables the statement reads besides modifying the target (FROM / USING, sub-queries, the
    /// SELECT of an INSERT, a MERGE source), sorted.
    pub tables_read: Vec<String>,
    /// Columns of the target the statement writes (folded), sorted; `["*"]` for an INSERT
    /// without a column list when no catalog names the table's columns.
    pub columns_written: Vec<String>,
    /// Functions the statement calls (lower-cased), sorted.
    pub functions: Vec<String>,
    /// True when the rows touched are restricted by a condition: UPDATE / DELETE with WHERE, and
    /// every MERGE (its ON). False for INSERT and for an unbounded UPDATE / DELETE.
    pub has_where: bool,
    /// Row filters applied, to the target and to the tables read (the policy's table names),
    /// sorted; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row_filters: Vec<String>,
    /// Placeholders in `sql` (`?`, `$1`, `:name`), in the order they appear: values the caller
    /// must bind when it executes `sql`; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<String>,
    /// The SELECT of the rows the statement touches, built from the checked tree (its row
    /// filters included): an UPDATE's or DELETE's tables under its WHERE, ORDER BY and LIMIT (with
    /// `FOR UPDATE` in MySQL), an INSERT ... SELECT's SELECT. A front end that previews the
    /// mutation reads them before it runs and again at commit, to see that it touches the same
    /// rows. `None` for INSERT ... VALUES, MERGE, and the dialects no backend serves. Not part of
    /// the verdict's JSON.
    #[serde(skip)]
    pub touched_rows: Option<String>,
}

impl Approved {
    /// For a caller that binds no values (an agent's tool call, a command line): the approved
    /// query if it holds no placeholder, else its refusal (`unbound_parameter`). An engine
    /// given a placeholder and no value reads NULL or fails, so the answer would not be the
    /// question's.
    pub fn without_parameters(self) -> Result<Approved, Rejection> {
        refuse_unbound(&self.parameters, self.query_class, self.statement_count)?;
        Ok(self)
    }
}

impl ApprovedMutation {
    /// For a caller that binds no values: the approved mutation if it holds no placeholder,
    /// else its refusal (`unbound_parameter`), as [`Approved::without_parameters`].
    pub fn without_parameters(self) -> Result<ApprovedMutation, Rejection> {
        refuse_unbound(&self.parameters, self.query_class, 1)?;
        Ok(self)
    }
}

/// The refusal of a statement of `query_class` holding `parameters` when nothing binds them;
/// `Ok` when there are none.
fn refuse_unbound(
    parameters: &[String],
    query_class: QueryClass,
    statement_count: usize,
) -> Result<(), Rejection> {
    let Some(first) = parameters.first() else {
        return Ok(());
    };
    let listed = parameters
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let error = GuardError::new(
        ErrorCode::UnboundParameter,
        Stage::Validate,
        format!("the SQL has a placeholder ({listed}) and nothing here binds a value to it"),
    )
    .with_hint(format!(
        "write the value into the SQL as a literal in place of `{first}` (a string in single quotes, a number as is)"
    ));
    Err(Rejection {
        query_class,
        statement_count,
        error,
    })
}

/// A refusal: the class the payload really is and why it may not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{error}")]
pub struct Rejection {
    /// Most privileged class among the payload's statements (`unknown` when it did not parse).
    pub query_class: QueryClass,
    /// Number of statements found (0 when the text did not get that far).
    pub statement_count: usize,
    /// Why it was refused.
    pub error: GuardError,
}

/// Declares a verdict type, the JSON shape of one entry point's answer: `allowed`, `sql`,
/// `query_class`, `statement_count`, the entry point's own fields (each present when allowed
/// only), `row_filters` and `error`, in this order (the JSON's); with the verdict of a refusal,
/// the JSON Schema and `to_json`. Both verdicts are declared by it, so that what they share is
/// written once.
macro_rules! verdict_type {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(#[$allowed_meta:meta])*
            allowed,
            $($(#[$field_meta:meta])* $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        pub struct $name {
            $(#[$allowed_meta])*
            pub allowed: bool,
            /// The SQL to execute (allowed only).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub sql: Option<String>,
            /// Most privileged class among the payload's statements.
            pub query_class: QueryClass,
            /// Number of statements in the payload.
            pub statement_count: usize,
            $(
                $(#[$field_meta])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$ty>,
            )*
            /// Row filters applied (allowed only, when any was).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub row_filters: Option<Vec<String>>,
            /// Why the payload was refused (refused only).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub error: Option<GuardError>,
        }

        impl $name {
            /// The JSON Schema of this verdict (the shape `to_json` writes).
            pub fn json_schema() -> serde_json::Value {
                schema_of::<$name>()
            }

            /// The verdict as a JSON string (ARCHITECTURE.md, "Verdict contract").
            pub fn to_json(&self) -> String {
                json_of(self)
            }

            /// The verdict of a refusal: its class, statement count and error, nothing else.
            fn refused(r: Rejection) -> Self {
                $name {
                    allowed: false,
                    sql: None,
                    query_class: r.query_class,
                    statement_count: r.statement_count,
                    $($field: None,)*
                    row_filters: None,
                    error: Some(r.error),
                }
            }
        }
    };
}

verdict_type! {
    /// The verdict in its JSON shape (ARCHITECTURE.md, "Verdict contract"): `allowed` plus either the approved fields or `error`.
    pub struct Verdict {
        /// True when the payload may run (as `sql`).
        allowed,
        /// Tables read (allowed only).
        tables: Vec<String>,
        /// Columns read, when a catalog resolved them (allowed only).
        columns: Vec<String>,
        /// Functions called (allowed only).
        functions: Vec<String>,
        /// Row cap outcome (allowed only).
        limit: LimitInfo,
    }
}

verdict_type! {
    /// The verdict of [`crate::Guard::check_mutation`] in its JSON shape: `allowed` plus either the
    /// approved mutation's fields or `error`.
    pub struct MutationVerdict {
        /// True when the mutation may run (as `sql`).
        allowed,
        /// The table modified (allowed only).
        target: String,
        /// Tables read (allowed only).
        tables_read: Vec<String>,
        /// Columns written (allowed only).
        columns_written: Vec<String>,
        /// Functions called (allowed only).
        functions: Vec<String>,
        /// Whether a condition restricts the rows touched (allowed only).
        has_where: bool,
    }
}

impl From<Result<ApprovedMutation, Rejection>> for MutationVerdict {
    fn from(result: Result<ApprovedMutation, Rejection>) -> Self {
        match result {
            Ok(a) => MutationVerdict {
                allowed: true,
                sql: Some(a.sql),
                query_class: a.query_class,
                statement_count: 1,
                target: Some(a.target),
                tables_read: Some(a.tables_read),
                columns_written: Some(a.columns_written),
                functions: Some(a.functions),
                has_where: Some(a.has_where),
                row_filters: non_empty(a.row_filters),
                error: None,
            },
            Err(r) => MutationVerdict::refused(r),
        }
    }
}

impl From<Result<Approved, Rejection>> for Verdict {
    fn from(result: Result<Approved, Rejection>) -> Self {
        match result {
            Ok(a) => Verdict {
                allowed: true,
                sql: Some(a.sql),
                query_class: a.query_class,
                statement_count: a.statement_count,
                tables: Some(a.tables),
                columns: non_empty(a.columns),
                functions: Some(a.functions),
                limit: Some(a.limit),
                row_filters: non_empty(a.row_filters),
                error: None,
            },
            Err(r) => Verdict::refused(r),
        }
    }
}

/// `None` for an empty list: the JSON leaves the field out.
fn non_empty(list: Vec<String>) -> Option<Vec<String>> {
    (!list.is_empty()).then_some(list)
}

/// The JSON Schema of `T`.
fn schema_of<T: schemars::JsonSchema>() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default()
}

/// `value` as a JSON string. Serialising plain owned data into a String cannot fail.
fn json_of<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| String::from("{}"))
}
