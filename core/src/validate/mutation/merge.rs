//! MERGE: the target, its source, ON and every WHEN clause.

use sqlparser::ast::{Merge, MergeAction, MergeInsertKind, MergeUpdateKind};

use super::super::scope::Scope;
use super::super::{span_location, Walker};
use super::target::{no_alias_of_target, target_table};
use super::update::refused_extras;
use super::written::{written_at, Written};
use super::MutationAnalysis;
use crate::class::QueryClass;
use crate::error::GuardError;
use crate::writes::WritePolicy;

impl Walker<'_, '_> {
    pub(super) fn merge(
        &mut self,
        merge: &Merge,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(merge.merge_token.0.span);
        let Merge {
            merge_token: _,
            optimizer_hints,
            into: _,
            table,
            source,
            on,
            clauses,
            output,
        } = merge;
        refused_extras(optimizer_hints, output.is_some(), location)?;
        let target = self.target_factor(table, writes, found, location)?;
        let mut scope = Scope::child(parent);
        scope.sources.push(target.clone());
        let sources = self.lone_factor(source, &scope, 1)?;
        no_alias_of_target(&target, &sources, location)?;
        scope.sources.extend(sources);
        self.exprs(on.as_ref(), &scope)?;
        found.has_where = true;
        let table = target_table(&target);
        for clause in clauses {
            self.exprs(&clause.predicate, &scope)?;
            match &clause.action {
                MergeAction::Insert(insert) => {
                    match &insert.kind {
                        MergeInsertKind::Values(values) => self.exprs(values, &scope)?,
                        MergeInsertKind::Row | MergeInsertKind::Wildcard => {
                            self.write_every_column(table, location, found)?
                        }
                    }
                    if insert.columns.is_empty() {
                        self.write_every_column(table, location, found)?;
                    }
                    let values = match &insert.kind {
                        MergeInsertKind::Values(values) => Some(values),
                        MergeInsertKind::Row | MergeInsertKind::Wildcard => None,
                    };
                    for (k, column) in insert.columns.iter().enumerate() {
                        let value = values.map_or(Written::Computed, |v| written_at(&v.rows, k));
                        self.write_column(column, &target, found, value)?;
                    }
                    self.exprs(&insert.insert_predicate, &scope)?;
                }
                MergeAction::Update(update) => {
                    match &update.kind {
                        MergeUpdateKind::Set(set) => {
                            self.assignments(set, &scope, &target, found)?
                        }
                        MergeUpdateKind::Wildcard => {
                            self.write_every_column(table, location, found)?
                        }
                    }
                    self.exprs(&update.update_predicate, &scope)?;
                    if update.delete_predicate.is_some() {
                        found.class = QueryClass::MutationDelete;
                    }
                    self.exprs(&update.delete_predicate, &scope)?;
                }
                MergeAction::Delete { .. } => found.class = QueryClass::MutationDelete,
                MergeAction::DoNothing { .. } => {}
            }
        }
        Ok(())
    }
}
