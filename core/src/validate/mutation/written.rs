//! What a mutation writes (SET, column lists, every column) and the conditions and RETURNING
//! items it reads.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Assignment, AssignmentTarget, Expr, ObjectName, Parens, SelectItem, Spanned, UnaryOperator,
    Visit, Visitor,
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
                AssignmentTarget::ColumnName(column) => {
                    let value = Written::of(&assignment.value);
                    self.write_column(column, target, found, value)?;
                }
                AssignmentTarget::Tuple(columns) => {
                    // `(a, b) = (1, 2)`: each column gets its element; `= (SELECT ...)` is
                    // computed.
                    let elements = match &assignment.value {
                        Expr::Tuple(values) if values.len() == columns.len() => Some(values),
                        _ => None,
                    };
                    for (k, column) in columns.iter().enumerate() {
                        let value = elements
                            .and_then(|values| values.get(k))
                            .map_or(Written::Computed, Written::of);
                        self.write_column(column, target, found, value)?;
                    }
                }
            }
            self.exprs(&assignment.value, scope)?;
        }
        Ok(())
    }

    /// One written column, `c`, `t.c` (MySQL, the target's name) or `c.field` (PostgreSQL, a
    /// composite's field), getting `value`. No part may be a protected column, except a masked
    /// column set to a constant: writing one reveals nothing of what it holds (an erasure, a
    /// support edit), as long as nothing else in the statement reads it, which the walker
    /// refuses as everywhere. With a catalog, the column must exist.
    pub(super) fn write_column(
        &mut self,
        column: &ObjectName,
        target: &Source,
        found: &mut MutationAnalysis,
        value: Written,
    ) -> Result<(), GuardError> {
        let location = span_location(column.span());
        let Some(parts) = fold_object_name(column, self.dialect()) else {
            return Err(refuse::computed_table_name(location));
        };
        let table = target_table(target);
        if let Some(t) = table {
            for part in parts.iter().filter(|p| t.protected.contains(p)) {
                let masked = t.protection(part).mask().is_some();
                match (masked, value) {
                    // A masked column itself (not a field of it) set to a constant.
                    (true, Written::Constant) if Some(part) == parts.last() => {}
                    (true, _) => {
                        return Err(refuse::masked_column_computed_write(
                            &t.display, part, location,
                        ))
                    }
                    (false, _) => {
                        return Err(refuse::protected_column_written(&t.display, part, location))
                    }
                }
            }
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

/// What a written column gets, as far as masked columns go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// A literal, NULL or a bound parameter (signed, cast or parenthesised): nothing read.
    Constant,
    /// Anything else: an expression, a sub-query, the rows of a SELECT, a default.
    Computed,
}

impl Written {
    /// What `value` is.
    pub(super) fn of(value: &Expr) -> Written {
        if is_constant(value) {
            Written::Constant
        } else {
            Written::Computed
        }
    }
}

/// What the `k`-th column of VALUES `rows` gets: a constant only when every row gives one.
pub(super) fn written_at(rows: &[Parens<Vec<Expr>>], k: usize) -> Written {
    let constant = !rows.is_empty() && rows.iter().all(|row| row.get(k).is_some_and(is_constant));
    if constant {
        Written::Constant
    } else {
        Written::Computed
    }
}

/// A literal, NULL or placeholder, possibly signed, cast, typed (`DATE '...'`) or in
/// parentheses.
fn is_constant(value: &Expr) -> bool {
    match value {
        Expr::Value(_) | Expr::TypedString(_) => true,
        Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        }
        | Expr::Nested(expr)
        | Expr::Cast { expr, .. } => is_constant(expr),
        _ => false,
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
