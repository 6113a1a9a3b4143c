//! UPDATE and DELETE, which share their refused extras and their WHERE / ORDER BY / LIMIT /
//! RETURNING tail.

use sqlparser::ast::{
    Delete, Expr, FromTable, OptimizerHint, OrderByExpr, SelectItem, SqliteOnConflict, Update,
    UpdateTableFromKind,
};

use super::super::diagnostics as refuse;
use super::super::scope::Scope;
use super::super::{span_location, Walker};
use super::MutationAnalysis;
use crate::class::QueryClass;
use crate::error::{GuardError, Location};
use crate::writes::WritePolicy;

impl Walker<'_, '_> {
    pub(super) fn update(
        &mut self,
        update: &Update,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(update.update_token.0.span);
        let Update {
            update_token: _,
            optimizer_hints,
            table,
            on_cluster,
            assignments,
            from,
            selection,
            returning,
            output,
            or,
            order_by,
            limit,
            settings,
        } = update;
        let engine_clauses = on_cluster.is_some() || output.is_some() || settings.is_some();
        refused_extras(optimizer_hints, engine_clauses, location)?;
        if matches!(or, Some(SqliteOnConflict::Replace)) {
            // SQLite's UPDATE OR REPLACE deletes the rows its new values conflict with.
            found.class = QueryClass::MutationDelete;
        }
        let target = self.single_target(table, writes, found, location)?;
        let mut scope = Scope::child(parent);
        scope.sources.push(target.clone());
        if let Some(UpdateTableFromKind::BeforeSet(items) | UpdateTableFromKind::AfterSet(items)) =
            from
        {
            self.read_sources(items, &mut scope)?;
        }
        self.assignments(assignments, &scope, &target, found)?;
        let tail = Tail {
            selection: selection.as_ref(),
            order_by,
            limit: limit.as_ref(),
            returning: returning.as_deref(),
        };
        self.tail(tail, &scope, writes, found, location)
    }

    pub(super) fn delete(
        &mut self,
        delete: &Delete,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(delete.delete_token.0.span);
        let Delete {
            delete_token: _,
            optimizer_hints,
            tables,
            from,
            on_cluster,
            using,
            selection,
            returning,
            output,
            order_by,
            limit,
            settings,
        } = delete;
        found.class = QueryClass::MutationDelete;
        let engine_clauses = on_cluster.is_some() || output.is_some() || settings.is_some();
        refused_extras(optimizer_hints, engine_clauses, location)?;
        let (FromTable::WithFromKeyword(items) | FromTable::WithoutKeyword(items)) = from;
        let [item] = items.as_slice() else {
            return Err(refuse::several_targets(location));
        };
        if !tables.is_empty() {
            return Err(refuse::several_targets(location));
        }
        let target = self.single_target(item, writes, found, location)?;
        let mut scope = Scope::child(parent);
        scope.sources.push(target);
        if let Some(items) = using {
            self.read_sources(items, &mut scope)?;
        }
        let tail = Tail {
            selection: selection.as_ref(),
            order_by,
            limit: limit.as_ref(),
            returning: returning.as_deref(),
        };
        self.tail(tail, &scope, writes, found, location)
    }

    /// WHERE (required unless unbounded mutations are allowed), ORDER BY, LIMIT and RETURNING
    /// of an UPDATE or DELETE, read in `scope`.
    fn tail(
        &mut self,
        tail: Tail<'_>,
        scope: &Scope<'_>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        self.condition(tail.selection, scope, writes, found, location)?;
        self.exprs(tail.order_by, scope)?;
        if let Some(limit) = tail.limit {
            self.exprs(limit, scope)?;
        }
        self.returning(tail.returning, scope, location)
    }
}

/// The clauses of UPDATE / DELETE after their FROM / USING.
struct Tail<'a> {
    selection: Option<&'a Expr>,
    order_by: &'a Vec<OrderByExpr>,
    limit: Option<&'a Expr>,
    returning: Option<&'a [SelectItem]>,
}

/// Optimizer hints, and the engine-specific clauses the walker does not model (ON CLUSTER,
/// OUTPUT, SETTINGS), when `engine_clauses` says one is present.
pub(super) fn refused_extras(
    optimizer_hints: &[OptimizerHint],
    engine_clauses: bool,
    location: Option<Location>,
) -> Result<(), GuardError> {
    if !optimizer_hints.is_empty() {
        return Err(refuse::optimizer_hints(location));
    }
    if engine_clauses {
        return Err(refuse::mutation_clause(
            "ON CLUSTER, OUTPUT or SETTINGS",
            location,
        ));
    }
    Ok(())
}
