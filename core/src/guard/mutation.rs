//! The mutation entry point: one INSERT, UPDATE, DELETE or MERGE, checked against the policy's
//! `writes` section and, for everything it reads, exactly as a query would be.

use sqlparser::ast::{
    FromTable, ObjectNamePart, SetExpr, SqliteOnConflict, Statement, TableFactor, Update,
};

use super::touched_rows::touched_rows;
use super::{location_of, Changes, Entry, Guard, Steps};
use crate::class::QueryClass;
use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Stage};
use crate::rows::{
    bind_target_predicate, filter_first, rewrite_reads, write_out_of_row_filter, Form, RowFilters,
    Vars,
};
use crate::validate::{analyze_mutation, statement_keyword, MutationAnalysis};
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
        self.check_mutation_with(sql, &Vars::new())
    }

    /// [`Guard::check_mutation`] with `vars` bound to the row filters' variables. A filtered
    /// target gets its filter added to the WHERE of an UPDATE or DELETE (which may not write the
    /// columns the filter reads); an INSERT or MERGE into a filtered table is refused.
    pub fn check_mutation_with(
        &self,
        sql: &str,
        vars: &Vars,
    ) -> Result<ApprovedMutation, Rejection> {
        let checked = self.run(
            sql,
            Steps {
                entry: Entry::Mutation,
                append_limit: None,
                check: |statement: &mut Statement, class| {
                    self.check_mutation_statement(statement, class)
                },
                // The rows it touches are read from the final tree, row filters included.
                rewrite: |statement: &mut Statement, found: &mut MutationAnalysis| {
                    let form = self.filter_mutation(statement, found, vars)?;
                    found.touched_rows = touched_rows(statement, self.policy.dialect);
                    Ok(form)
                },
                // The mutation walker only reads the tree (`analyze_mutation` takes `&Statement`)
                // and a mutation has no cap: the tree is the one parsed.
                changes: |_: &_| Changes {
                    cap: false,
                    other: false,
                },
            },
        )?;
        let found = checked.found;
        Ok(ApprovedMutation {
            sql: checked.sql,
            query_class: found.class.max(checked.class),
            target: found.target,
            tables_read: found.reads.tables.into_iter().collect(),
            columns_written: found.columns_written.into_iter().collect(),
            functions: found.reads.functions.into_iter().collect(),
            has_where: found.has_where,
            row_filters: found.reads.row_filters.into_iter().collect(),
            parameters: found.reads.parameters,
            touched_rows: found.touched_rows,
        })
    }

    /// The verdict of [`Guard::check_mutation`] in its JSON shape; never fails.
    pub fn mutation_verdict(&self, sql: &str) -> MutationVerdict {
        MutationVerdict::from(self.check_mutation(sql))
    }

    /// The verdict of [`Guard::check_mutation_with`] in its JSON shape; never fails.
    pub fn mutation_verdict_with(&self, sql: &str, vars: &Vars) -> MutationVerdict {
        MutationVerdict::from(self.check_mutation_with(sql, vars))
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
        let ctx = self.context();
        let found = analyze_mutation(statement, &ctx, writes)?;
        // The walker sees deletions the statement's class may not (MERGE ... DELETE WHERE).
        class_allowed(found.class.max(class))?;
        Ok(found)
    }

    /// Applies the row filters to the reads of a checked mutation and to its target, as trees
    /// (the target's filter is added to the tree after the reads'); `Some` when it changed the
    /// tree.
    fn filter_mutation(
        &self,
        statement: &mut Statement,
        found: &mut MutationAnalysis,
        vars: &Vars,
    ) -> Result<Option<Form>, GuardError> {
        let Some(rows) = &self.rows else {
            return Ok(None);
        };
        let mut changed = false;
        if !found.reads.filtered.is_empty() {
            rewrite_reads(
                statement,
                &found.reads.filtered,
                rows,
                Some(vars),
                &self.policy,
                Form::Tree,
            )?;
            changed = true;
        }
        let filters = rows.matching(&found.target_parts);
        if !filters.is_empty() {
            filter_target(statement, found, rows, &filters, vars, self.policy.dialect)?;
            found.reads.row_filters.extend(rows.applied_keys(&filters));
            changed = true;
        }
        Ok(changed.then_some(Form::Tree))
    }
}

/// Adds the target's row filters to the WHERE of an UPDATE or DELETE; refuses what they cannot
/// bound: an INSERT or MERGE (new rows), an UPDATE of a column a filter reads (rows moved out),
/// a multi-table DELETE.
fn filter_target(
    statement: &mut Statement,
    found: &MutationAnalysis,
    rows: &RowFilters,
    filters: &[usize],
    vars: &Vars,
    dialect: Dialect,
) -> Result<(), GuardError> {
    let table = &found.target;
    let body = match statement {
        Statement::Query(query) => match query.body.as_mut() {
            SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) | SetExpr::Merge(s) => s,
            _ => {
                return Err(write_out_of_row_filter(
                    table,
                    "this statement is not understood",
                ))
            }
        },
        other => other,
    };
    let (relation, selection) = match body {
        Statement::Update(update) => {
            hold_conflicts_to_the_row(update, table, dialect)?;
            let written: Vec<&String> = filters
                .iter()
                .flat_map(|&i| rows.filter_columns(i))
                .filter(|c| found.columns_written.contains(*c))
                .collect();
            if let Some(column) = written.first() {
                return Err(write_out_of_row_filter(
                    table,
                    &format!("this UPDATE writes `{column}`, a column its row filter reads"),
                ));
            }
            (&update.table.relation, &mut update.selection)
        }
        Statement::Delete(delete) if delete.tables.is_empty() => {
            let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) =
                &mut delete.from;
            match from.first() {
                Some(item) => (&item.relation, &mut delete.selection),
                None => return Err(write_out_of_row_filter(table, "the DELETE names no table")),
            }
        }
        Statement::Insert(_) | Statement::Merge(_) => {
            return Err(write_out_of_row_filter(
                table,
                "new rows cannot be held to its filter: inserting into it is not supported",
            ))
        }
        _ => {
            return Err(write_out_of_row_filter(
                table,
                "a DELETE of several tables cannot be filtered",
            ))
        }
    };
    let TableFactor::Table { name, alias, .. } = relation else {
        return Err(write_out_of_row_filter(
            table,
            "its target is not a plain table name",
        ));
    };
    let qualifier = match alias {
        Some(alias) => alias.name.clone(),
        None => match name.0.last() {
            Some(ObjectNamePart::Identifier(ident)) => ident.clone(),
            _ => return Err(write_out_of_row_filter(table, "its name is computed")),
        },
    };
    let Some(predicate) = bind_target_predicate(rows, filters, &qualifier, vars)? else {
        return Ok(());
    };
    *selection = Some(filter_first(predicate, selection.take()));
    Ok(())
}

/// An UPDATE of a row-filtered table may change only the rows its filter admits; a conflict
/// resolution that deletes the rows the new values collide with reaches rows the statement did
/// not select, whichever tenant they belong to. SQLite's `UPDATE OR REPLACE` does that, and so
/// does a plain UPDATE of a table whose UNIQUE or PRIMARY KEY constraint was declared
/// `ON CONFLICT REPLACE`: the first is refused, the second gets `OR ABORT`, which takes
/// precedence over the table's own resolution (a collision is then an error, and nothing
/// changes). PostgreSQL and MySQL have no conflict clause on UPDATE; INSERT and MERGE, whose
/// conflict clauses (`ON CONFLICT DO UPDATE`, `ON DUPLICATE KEY UPDATE`, REPLACE) update or
/// delete an existing row of any tenant, are refused on a filtered table by [`filter_target`].
fn hold_conflicts_to_the_row(
    update: &mut Update,
    table: &str,
    dialect: Dialect,
) -> Result<(), GuardError> {
    match update.or {
        Some(SqliteOnConflict::Replace) => Err(write_out_of_row_filter(
            table,
            "UPDATE OR REPLACE deletes the rows its new values collide with, whichever tenant they \
             belong to",
        )),
        None if dialect == Dialect::Sqlite => {
            update.or = Some(SqliteOnConflict::Abort);
            Ok(())
        }
        _ => Ok(()),
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
