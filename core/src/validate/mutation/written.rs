//! What a mutation writes (SET, column lists, every column) and the conditions and RETURNING
//! items it reads.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Assignment, AssignmentTarget, Expr, ObjectName, SelectItem, Spanned, Visit, Visitor,
};

use super::super::diagnostics as refuse;
use super::super::scope::{Scope, Source};
use super::super::{span_location, Walker};
use super::target::target_table;
use super::MutationAnalysis;
use crate::access::ResolvedTable;
use crate::error::{GuardError, Location};
use crate::names::fold_object_name;
use crate::writes::WritePolicy;

impl Walker<'_, '_> {
    /// `SET column = value, ...`: each column written, each value read in `scope`.
    pub(super) fn assignments(
        &mut self,
        assignments: &[Assignment],
        scope: &Scope<'_>,
        target: &Source,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        for assignment in assignments {
            match &assignment.target {
                AssignmentTarget::ColumnName(column) => self.write_column(column, target, found)?,
                AssignmentTarget::Tuple(columns) => {
                    for column in columns {
                        self.write_column(column, target, found)?;
                    }
                }
            }
            self.exprs(&assignment.value, scope)?;
        }
        Ok(())
    }

    /// One written column, `c`, `t.c` (MySQL, the target's name) or `c.field` (PostgreSQL, a
    /// composite's field). No part may be a protected column; with a catalog, the column must
    /// exist.
    pub(super) fn write_column(
        &mut self,
        column: &ObjectName,
        target: &Source,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(column.span());
        let Some(parts) = fold_object_name(column, self.dialect()) else {
            return Err(refuse::computed_table_name(location));
        };
        let table = target_table(target);
        if let Some(protected) = parts
            .iter()
            .find(|p| table.is_some_and(|t| t.protected.contains(p)))
        {
            return Err(refuse::protected_column_written(
                table.map_or("", |t| t.display.as_str()),
                protected,
                location,
            ));
        }
        let name = match parts.as_slice() {
            [qualifier, column] if target.is_named(std::slice::from_ref(qualifier)) => column,
            [first, ..] => first,
            [] => return Err(refuse::computed_table_name(location)),
        };
        if let Some(t) = table {
            if t.columns.as_ref().is_some_and(|c| !c.contains(name)) {
                return Err(refuse::unknown_written_column(t, name, location));
            }
        }
        found.columns_written.insert(name.clone());
        Ok(())
    }

    /// An INSERT without a column list (or MERGE's `INSERT ROW` / `*`): every column, so none
    /// may be protected.
    pub(super) fn write_every_column(
        &mut self,
        table: Option<&ResolvedTable>,
        location: Option<Location>,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let Some(table) = table else {
            return Ok(());
        };
        if let Some(protected) = table.protected.first() {
            return Err(refuse::every_column_written(
                &table.display,
                protected,
                location,
            ));
        }
        match &table.columns {
            Some(columns) => found.columns_written.extend(columns.iter().cloned()),
            None => {
                found.columns_written.insert("*".to_string());
            }
        }
        Ok(())
    }

    /// WHERE of UPDATE / DELETE: read in `scope`, and required (naming a column) unless the
    /// policy allows unbounded mutations.
    pub(super) fn condition(
        &mut self,
        selection: Option<&Expr>,
        scope: &Scope<'_>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if let Some(selection) = selection {
            self.exprs(selection, scope)?;
        }
        found.has_where = selection.is_some_and(names_a_column);
        if !found.has_where && !writes.allow_unbounded {
            return Err(refuse::unbounded_mutation(selection.is_some(), location));
        }
        Ok(())
    }

    /// RETURNING: read in `scope`, stars included (a star over protected columns is refused as
    /// in a SELECT).
    pub(super) fn returning(
        &mut self,
        items: Option<&[SelectItem]>,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        for item in items.unwrap_or_default() {
            self.select_item(item, scope, location)?;
        }
        Ok(())
    }
}

/// True when `condition` names at least one column: `WHERE true`, `WHERE 1 = 1` or
/// `WHERE EXISTS (SELECT 1)` select every row or none, so they bound nothing.
fn names_a_column(condition: &Expr) -> bool {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            match expr {
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    condition.visit(&mut Finder).is_break()
}
