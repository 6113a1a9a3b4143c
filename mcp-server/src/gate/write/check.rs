//! The first step of a write: core's `check_mutation` of each statement (bound to the engine's
//! variables, without parameters), and the SELECT of the rows each touches (core builds it from
//! the checked tree: `ApprovedMutation::touched_rows`).

use sqlgate::{ApprovedMutation, QueryClass};

use crate::backend::MutationSql;
use crate::gate::error::{GateError, Refused};
use crate::gate::Engine;

/// The most statements one write takes.
pub const MAX_STATEMENTS: usize = 100;

/// The statements as run: approved SQL, and the SELECT of the rows each touches.
pub(super) struct Checked {
    /// Each statement as core approved it.
    pub(super) approved: Vec<ApprovedMutation>,
    /// The SELECT of the rows each touches.
    pub(super) touched: Vec<Option<String>>,
}

impl Checked {
    /// The statements as the backend runs them.
    pub(super) fn batch(&self) -> Vec<MutationSql<'_>> {
        self.approved
            .iter()
            .zip(&self.touched)
            .map(|(a, t)| MutationSql {
                sql: &a.sql,
                touched: t.as_deref(),
            })
            .collect()
    }

    /// The approved SQL, one statement per line.
    pub(super) fn sql(&self) -> String {
        let sql: Vec<&str> = self.approved.iter().map(|a| a.sql.as_str()).collect();
        sql.join(";\n")
    }

    /// The most privileged class of the statements.
    pub(super) fn class(&self) -> QueryClass {
        let delete = self
            .approved
            .iter()
            .any(|a| a.query_class == QueryClass::MutationDelete);
        match (delete, self.approved.first()) {
            (true, _) => QueryClass::MutationDelete,
            (false, Some(a)) => a.query_class,
            (false, None) => QueryClass::MutationCreate,
        }
    }
}

impl Engine {
    /// Core's mutation check of each statement; a refusal names the statement of a batch, and
    /// its hint the tool that helps.
    pub(super) fn check_all(
        &self,
        statements: &[String],
    ) -> Result<Checked, (Option<QueryClass>, GateError)> {
        if statements.is_empty() || statements.len() > MAX_STATEMENTS {
            return Err((
                None,
                GateError::bad_request(
                    format!(
                        "{} statements: a batch takes 1 to {MAX_STATEMENTS}",
                        statements.len()
                    ),
                    Some("send each mutation as one string of `statements`"),
                ),
            ));
        }
        let mut checked = Checked {
            approved: Vec::new(),
            touched: Vec::new(),
        };
        for (i, sql) in statements.iter().enumerate() {
            let approved = self
                .guard()
                .check_mutation_with(sql, self.vars())
                .and_then(ApprovedMutation::without_parameters)
                .map_err(|mut r| {
                    if statements.len() > 1 {
                        let n = statements.len();
                        r.error.message =
                            format!("statement {} of {n}: {}", i + 1, r.error.message);
                    }
                    (
                        Some(r.query_class),
                        GateError::Refused {
                            rejection: r,
                            during: Refused::Write,
                        },
                    )
                })?;
            checked.touched.push(approved.touched_rows.clone());
            checked.approved.push(approved);
        }
        Ok(checked)
    }
}
