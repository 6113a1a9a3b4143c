//! The read entry's own step: a query validated and capped (or an EXPLAIN of one), every other
//! statement refused with its class named, and the row filters applied to what the query reads.

use sqlparser::ast::{Statement, UtilityOption};

use super::{location_of, Guard};
use crate::class::QueryClass;
use crate::error::{ErrorCode, GuardError, Stage};
use crate::limit;
use crate::rows::{rewrite_reads, Form, Vars};
use crate::validate::{analyze, statement_keyword};
use crate::verdict::{LimitAction, LimitInfo};

impl Guard {
    /// Validates one statement and applies the row cap to it.
    pub(super) fn check_statement(
        &self,
        statement: &mut Statement,
        class: QueryClass,
        max_rows: Option<u64>,
    ) -> Result<(crate::validate::Analysis, LimitInfo), GuardError> {
        let ctx = self.context();
        if let Statement::Query(query) = statement {
            let analysis = analyze(query, &ctx)?;
            crate::mask::apply(query, &analysis.masked, self.policy.dialect)?;
            let limit = limit::apply(query, max_rows, self.policy.dialect)?;
            return Ok((analysis, limit));
        }
        // Everything below refuses or is EXPLAIN: rare enough to compute the span up front
        // (it walks the whole tree, a cost the common path does not pay).
        let location = location_of(statement);
        match statement {
            Statement::Explain {
                analyze: explain_analyze,
                statement: inner,
                options,
                ..
            } => {
                let analyzes = *explain_analyze || options.as_deref().is_some_and(has_analyze);
                if analyzes {
                    return Err(GuardError::new(
                        ErrorCode::ExplainAnalyze,
                        Stage::Validate,
                        "EXPLAIN ANALYZE executes the statement",
                    )
                    .with_hint("use EXPLAIN without ANALYZE, or run the query itself")
                    .at(location));
                }
                if !self.policy.allow_explain {
                    return Err(GuardError::new(
                        ErrorCode::StatementNotAllowed,
                        Stage::Validate,
                        "EXPLAIN is not allowed by the policy",
                    )
                    .with_hint("run the query itself, without EXPLAIN")
                    .at(location));
                }
                let Statement::Query(query) = inner.as_mut() else {
                    return Err(not_allowed(class, inner, location));
                };
                let analysis = analyze(query, &ctx)?;
                crate::mask::apply(query, &analysis.masked, self.policy.dialect)?;
                let limit = LimitInfo {
                    action: LimitAction::None,
                    value: None,
                    original: None,
                };
                Ok((analysis, limit))
            }
            other => Err(not_allowed(class, other, location)),
        }
    }

    /// Applies the row filters to the references `analysis` found in `tree` (the tree it
    /// walked, unmoved since), as text where it can: the read's tree is only printed after
    /// this. `Some` when it changed the tree.
    pub(super) fn filter_rows(
        &self,
        tree: &mut Statement,
        analysis: &crate::validate::Analysis,
        vars: &Vars,
    ) -> Result<Option<Form>, GuardError> {
        match &self.rows {
            Some(rows) if !analysis.filtered.is_empty() => {
                rewrite_reads(
                    tree,
                    &analysis.filtered,
                    rows,
                    Some(vars),
                    &self.policy,
                    Form::Text,
                )?;
                Ok(Some(Form::Text))
            }
            _ => Ok(None),
        }
    }
}

fn has_analyze(options: &[UtilityOption]) -> bool {
    options.iter().any(|o| {
        o.name.value.eq_ignore_ascii_case("analyze")
            && o.arg.as_ref().is_none_or(|a| {
                !matches!(
                    a.to_string().to_ascii_lowercase().as_str(),
                    "false" | "off" | "0"
                )
            })
    })
}

fn not_allowed(
    class: QueryClass,
    statement: &Statement,
    location: Option<crate::error::Location>,
) -> GuardError {
    let keyword = statement_keyword(statement);
    let hint = match class {
        QueryClass::Select => "send a plain SELECT query",
        QueryClass::Session => {
            "session and transaction commands are managed for you: send only the SELECT"
        }
        QueryClass::MutationCreate | QueryClass::MutationDelete => {
            "only read-only queries may run: rewrite it as a SELECT that shows the rows instead"
        }
        QueryClass::Ddl => "schema changes are not allowed: send a SELECT",
        QueryClass::Admin | QueryClass::Unknown => "only read-only SELECT queries may run",
    };
    GuardError::new(
        ErrorCode::StatementNotAllowed,
        Stage::Validate,
        format!("{keyword} is not a read-only query (class {class}); only SELECT queries may run"),
    )
    .with_hint(hint)
    .at(location)
}
