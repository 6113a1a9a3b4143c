//! The table a mutation writes, resolved against `writes.tables`, and the other tables it reads
//! beside it (FROM / USING), which may not take the target's name.

use sqlparser::ast::{ObjectName, Spanned, TableFactor, TableWithJoins};

use super::super::diagnostics as refuse;
use super::super::scope::{Scope, Source, SourceKind};
use super::super::{span_location, Walker};
use super::MutationAnalysis;
use crate::access::{ResolvedTable, TargetRefusal};
use crate::error::{GuardError, Location};
use crate::names::{fold_ident, fold_object_name};
use crate::writes::WritePolicy;

impl Walker<'_, '_> {
    /// The target of UPDATE / DELETE: one table, no joins.
    pub(super) fn single_target(
        &mut self,
        item: &TableWithJoins,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<Source, GuardError> {
        if !item.joins.is_empty() {
            return Err(refuse::several_targets(location));
        }
        self.target_factor(&item.relation, writes, found, location)
    }

    /// A target written as a FROM item: a plain table name with an optional alias.
    pub(super) fn target_factor(
        &mut self,
        factor: &TableFactor,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<Source, GuardError> {
        self.covered.table_factor();
        let TableFactor::Table {
            name,
            alias,
            args: None,
            with_hints,
            version: None,
            with_ordinality: false,
            partitions,
            json_path: None,
            sample: None,
            index_directives,
            inheritance: _,
        } = factor
        else {
            return Err(refuse::mutation_clause(
                "a target that is not a plain table name",
                location,
            ));
        };
        if !with_hints.is_empty() || !partitions.is_empty() || !index_directives.is_empty() {
            return Err(refuse::mutation_clause(
                "table hints or partitions on the target",
                location,
            ));
        }
        if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
            return Err(refuse::mutation_clause(
                "column aliases on the target",
                location,
            ));
        }
        let alias = alias.as_ref().map(|a| fold_ident(&a.name, self.dialect()));
        self.target(name, alias, writes, found)
    }

    /// Resolves the target against `writes.tables`, `tables.deny`, the system catalogs and the
    /// catalog (which must not call it a view).
    pub(super) fn target(
        &mut self,
        name: &ObjectName,
        alias: Option<String>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<Source, GuardError> {
        let location = span_location(name.span());
        if name
            .0
            .iter()
            .any(|p| p.as_ident().is_some_and(|i| i.quote_style == Some('\'')))
        {
            return Err(refuse::file_path_as_table(name, location));
        }
        let Some(parts) = fold_object_name(name, self.dialect()) else {
            return Err(refuse::computed_table_name(location));
        };
        let access = self.ctx.access;
        match access.resolve_target(&parts, |p, default| writes.writable(p, default)) {
            Ok((_, true)) => Err(refuse::view_as_target(name, location)),
            Ok((table, false)) => {
                found.target = table.display.clone();
                found.target_parts = table.parts.clone();
                Ok(Source {
                    alias,
                    kind: SourceKind::Table(table),
                })
            }
            Err(TargetRefusal::NotWritable) => Err(refuse::table_not_writable(
                name,
                writes.patterns(),
                location,
            )),
            Err(TargetRefusal::Table(refusal)) => Err(self.table_refusal(name, refusal, location)),
        }
    }

    /// FROM / USING items of UPDATE / DELETE, read as a SELECT's FROM items. `scope` holds the
    /// target first.
    pub(super) fn read_sources(
        &mut self,
        items: &[TableWithJoins],
        scope: &mut Scope<'_>,
    ) -> Result<(), GuardError> {
        for item in items {
            let sources = self.table_with_joins(item, scope, 1)?;
            if let Some(target) = scope.sources.first() {
                no_alias_of_target(target, &sources, span_location(item.relation.span()))?;
            }
            scope.sources.extend(sources);
        }
        Ok(())
    }
}

/// Refuses a FROM / USING / MERGE source whose alias is the target's name (or alias). SQL Server
/// reads `UPDATE orders ... FROM customer AS orders` as an update of `customer`, the table behind
/// the alias; PostgreSQL rejects it. Either way the statement would not modify what was checked.
pub(super) fn no_alias_of_target(
    target: &Source,
    sources: &[Source],
    location: Option<Location>,
) -> Result<(), GuardError> {
    let target_name = match (&target.alias, &target.kind) {
        (Some(alias), _) => alias.clone(),
        (None, SourceKind::Table(t)) => t.parts.last().cloned().unwrap_or_default(),
        (None, SourceKind::Derived(_)) => return Ok(()),
    };
    match sources
        .iter()
        .filter_map(|s| s.alias.as_deref())
        .find(|alias| *alias == target_name)
    {
        Some(alias) => Err(refuse::alias_of_target(alias, location)),
        None => Ok(()),
    }
}

/// The base table behind the target source.
pub(super) fn target_table(target: &Source) -> Option<&ResolvedTable> {
    match &target.kind {
        SourceKind::Table(t) => Some(t),
        SourceKind::Derived(_) => None,
    }
}
