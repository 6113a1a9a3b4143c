//! The mutation entry point: one INSERT, UPDATE, DELETE or MERGE, checked against the policy's
//! `writes` section and, for everything it reads, exactly as a query would be.

use sqlparser::ast::{SetExpr, Statement};

use super::{location_of, Entry, Guard};
use crate::class::QueryClass;
use crate::error::{ErrorCode, GuardError, Stage};
use crate::validate::{analyze_mutation, statement_keyword, Context, MutationAnalysis};
use crate::verdict::{ApprovedMutation, MutationVerdict, Rejection};

impl Guard {
    /// Checks `sql` as exactly one data-modifying statement: INSERT (with `ON CONFLICT` /
    /// `ON DUPLICATE KEY UPDATE`, or `INSERT ... SELECT`), UPDATE (with `FROM`), DELETE (with
    /// `USING`) or MERGE, optionally under a read-only `WITH`. `Ok` holds the SQL to execute in
    /// its place; reads ([`Guard::check`]) are unaffected and still refuse every mutation.
    ///
    /// The target must match the policy's `writes.tables` (and not `tables.deny`, a system
    /// catalog or a view), its class must be in `writes.classes`, UPDATE / DELETE need a WHERE
    /// naming a column unless `writes.allow_unbounded`, protected columns may not be written,
    /// and every read inside it passes the checks a query passes. Without a `writes` section
    /// every mutation is refused with `table_not_writable`.
    pub fn check_mutation(&self, sql: &str) -> Result<ApprovedMutation, Rejection> {
        let checked = self.run(sql, Entry::Mutation, |statement, class| {
            self.check_mutation_statement(statement, class)
        })?;
        let found = checked.found;
        Ok(ApprovedMutation {
            sql: checked.sql,
            query_class: found.class.max(checked.class),
            target: found.target,
            tables_read: found.reads.tables.into_iter().collect(),
            columns_written: found.columns_written.into_iter().collect(),
            functions: found.reads.functions.into_iter().collect(),
            has_where: found.has_where,
        })
    }

    /// The verdict of [`Guard::check_mutation`] in its JSON shape; never fails.
    pub fn mutation_verdict(&self, sql: &str) -> MutationVerdict {
        MutationVerdict::from(self.check_mutation(sql))
    }

    fn check_mutation_statement(
        &self,
        statement: &mut Statement,
        class: QueryClass,
    ) -> Result<MutationAnalysis, GuardError> {
        if !is_mutation(statement) {
            return Err(not_a_mutation(class, statement));
        }
        let Some(writes) = &self.writes else {
            return Err(GuardError::new(
                ErrorCode::TableNotWritable,
                Stage::Validate,
                "the policy allows no writes: it has no `writes` section",
            )
            .with_hint("only read-only queries may run under this policy")
            .at(location_of(statement)));
        };
        let class_allowed = |class: QueryClass| {
            if writes.allows_class(class) {
                Ok(())
            } else {
                Err(class_not_allowed(class).at(location_of(statement)))
            }
        };
        // A class above mutations (a nested SELECT ... INTO is `ddl`) is left to the walker,
        // which names the construct.
        if class <= QueryClass::MutationDelete {
            class_allowed(class)?;
        }
        let ctx = Context {
            dialect: self.policy.dialect,
            functions: &self.functions,
            access: &self.access,
        };
        let found = analyze_mutation(statement, &ctx, writes)?;
        // The walker sees deletions the statement's class may not (MERGE ... DELETE WHERE).
        class_allowed(found.class.max(class))?;
        Ok(found)
    }
}

/// INSERT, UPDATE, DELETE, MERGE, or one of them under WITH.
fn is_mutation(statement: &Statement) -> bool {
    match statement {
        Statement::Insert(_)
        | Statement::Update(_)
        | Statement::Delete(_)
        | Statement::Merge(_) => true,
        Statement::Query(query) => matches!(
            query.body.as_ref(),
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_)
        ),
        _ => false,
    }
}

fn not_a_mutation(class: QueryClass, statement: &Statement) -> GuardError {
    let keyword = statement_keyword(statement);
    let hint = match (class, keyword.as_str()) {
        (_, "TRUNCATE") => "TRUNCATE is not allowed: delete rows with DELETE ... WHERE",
        (QueryClass::Select, _) => "this is a read: send it as a query, not as a mutation",
        (QueryClass::Session, _) => {
            "transactions and session settings are managed for you: send the mutation alone"
        }
        (QueryClass::Ddl, _) => "schema changes are not allowed: send an INSERT, UPDATE or DELETE",
        _ => "send one INSERT, UPDATE, DELETE or MERGE",
    };
    GuardError::new(
        ErrorCode::StatementNotAllowed,
        Stage::Validate,
        format!(
            "{keyword} (class {class}) is not a mutation this guard checks; only INSERT, UPDATE, \
             DELETE and MERGE may run"
        ),
    )
    .with_hint(hint)
    .at(location_of(statement))
}

fn class_not_allowed(class: QueryClass) -> GuardError {
    let (what, hint) = match class {
        QueryClass::MutationCreate => (
            "inserting or updating rows",
            "this policy allows only deletions (writes.classes lacks mutation_create)",
        ),
        QueryClass::MutationDelete => (
            "deleting rows",
            "deletions are not allowed by this policy (writes.classes lacks mutation_delete): \
             change rows with UPDATE instead, or ask the operator",
        ),
        _ => (
            "a statement that is not a mutation",
            "send one INSERT, UPDATE, DELETE or MERGE",
        ),
    };
    GuardError::new(
        ErrorCode::StatementNotAllowed,
        Stage::Validate,
        format!("{what} (class {class}) is not allowed by the policy's writes.classes"),
    )
    .with_hint(hint)
}
