//! Column references: qualified (`t.c`) and bare (`c`) names resolved through the scope, whole-row
//! references, and stars (`*`, `t.*`, `* EXCLUDE (...)`, DuckDB's `COLUMNS(...)`).

use sqlparser::ast::{ExcludeSelectItem, Ident, ObjectName, WildcardAdditionalOptions};

use super::diagnostics as refuse;
use super::scope::{Scope, Source, SourceKind};
use super::{span_location, Walker};
use crate::dialect::Dialect;
use crate::error::{GuardError, Location};
use crate::names::{closest, fold_ident, fold_object_name};

impl Walker<'_, '_> {
    /// `*` (over the current SELECT's sources) or `qualifier.*`, less the `excluded` (folded)
    /// columns of `* EXCLUDE (...)` / `* EXCEPT (...)`.
    pub(super) fn star(
        &mut self,
        qualifier: Option<&ObjectName>,
        scope: &Scope<'_>,
        excluded: &[String],
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let sources: Vec<&Source> = match qualifier {
            None => scope.sources.iter().collect(),
            Some(name) => self.star_sources(name, scope, location)?,
        };
        for source in sources {
            let SourceKind::Table(table) = &source.kind else {
                continue;
            };
            if table.protected.iter().any(|p| !excluded.contains(p)) {
                return Err(match &table.columns {
                    Some(_) => refuse::star_over_protected(table, &source.open_columns(), location),
                    None => refuse::star_on_restricted_table(table, location),
                });
            }
            if let Some(columns) = &table.columns {
                for c in columns.iter().filter(|c| !excluded.contains(c)) {
                    self.analysis
                        .columns
                        .insert(format!("{}.{c}", table.display));
                }
            }
        }
        Ok(())
    }

    /// The FROM items, at any level, that `name.*` covers: every one of that name (two items
    /// under one name are an engine error or either one).
    fn star_sources<'s>(
        &self,
        name: &ObjectName,
        scope: &'s Scope<'_>,
        location: Option<Location>,
    ) -> Result<Vec<&'s Source>, GuardError> {
        let Some(q) = fold_object_name(name, self.dialect()) else {
            return Err(refuse::computed_qualifier(location));
        };
        let named: Vec<&Source> = scope.all_sources().filter(|s| s.is_named(&q)).collect();
        if named.is_empty() {
            // The engine would reject it, or read something this walker cannot see.
            return Err(refuse::star_names_no_table(name, location));
        }
        Ok(named)
    }

    /// A column reference, `qualifier.column` or a bare `column`.
    pub(super) fn column(
        &mut self,
        qualifier: &[Ident],
        column: &Ident,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        let access = self.ctx.access;
        if !access.has_column_rules() && !access.has_catalog() {
            return Ok(());
        }
        let location = span_location(column.span);
        let name = fold_ident(column, self.dialect());
        if qualifier.is_empty() {
            return self.bare_column(&name, scope, location);
        }
        let q: Vec<String> = qualifier
            .iter()
            .map(|i| fold_ident(i, self.dialect()))
            .collect();
        if self.qualified_column(&q, &name, scope, location)? {
            return Ok(());
        }
        // Not a source: a composite value's field (`c.f`) or a name the database will reject.
        if let Some(first) = qualifier.first() {
            self.column(&[], first, scope)?;
        }
        self.conservative(&name, scope, location)
    }

    /// `q.name` where `q` names FROM items; false when it names none. SQLite (unlike
    /// PostgreSQL, which stops at the innermost item of that name) keeps looking outward when
    /// the innermost `q` lacks the column: every item named `q` up to the first known to have
    /// it is a candidate.
    fn qualified_column(
        &mut self,
        q: &[String],
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<bool, GuardError> {
        let mut first_named = None;
        for level in scope.levels() {
            let mut binds_here = false;
            for source in level.sources.iter().filter(|s| s.is_named(q)) {
                first_named.get_or_insert(source);
                match source.known_columns() {
                    Some(columns) if columns.iter().any(|c| c == name) => {
                        self.bound(source, name, location)?;
                        binds_here = true;
                    }
                    Some(_) => {}
                    None => self.bound(source, name, location)?,
                }
            }
            if binds_here {
                return Ok(true);
            }
        }
        match first_named {
            // Named, but no item of that name has the column: the engine's error, with a hint.
            Some(source) => self.bound(source, name, location).map(|()| true),
            None => Ok(false),
        }
    }

    /// A bare column name, resolved as [`Scope`] describes: every candidate at each level up to
    /// the level that binds it must be open, and a whole-row reference to a table with
    /// protected columns is refused.
    fn bare_column(
        &mut self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let found = self.bare_column_candidates(name, scope, location)?;
        let is_row = whole_row(name, scope, location)?;
        if found.exists || found.open_ended || is_row {
            return Ok(());
        }
        // With a catalog and every source known, an unbound name does not exist.
        let all: Vec<&Source> = scope.all_sources().collect();
        if self.ctx.access.has_catalog() && !all.is_empty() {
            let visible = all.iter().flat_map(|s| s.open_columns());
            let suggestion = closest(name, visible);
            return Err(refuse::unknown_column(name, None, suggestion, location));
        }
        Ok(())
    }

    /// Checks every candidate for the bare `name`, level by level, up to the level that binds
    /// it (and through the weak levels past it).
    fn bare_column_candidates(
        &mut self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<BareColumn, GuardError> {
        let mut found = BareColumn::default();
        let mut weak_remaining = 0usize;
        let mut bound = false;
        for level in scope.levels() {
            let weak = weak_remaining > 0;
            // Bound: the levels still scanned are the SELECT's other FROM items that this part
            // of it cannot see (an ON clause); a protected one there is refused all the same,
            // since engines differ on what an ON clause sees.
            if bound && !weak {
                break;
            }
            let mut binds_here = false;
            for source in &level.sources {
                match source.known_columns() {
                    Some(columns) if columns.iter().any(|c| c == name) => {
                        self.bound(source, name, location)?;
                        binds_here = true;
                    }
                    Some(_) => {}
                    None => {
                        found.open_ended = true;
                        protected_candidate(source, name, location)?;
                    }
                }
            }
            found.exists |= binds_here || level.aliases.iter().any(|a| a == name);
            bound |= binds_here && !weak;
            weak_remaining = weak_remaining.saturating_sub(1).max(level.weak_levels);
        }
        Ok(found)
    }

    /// A column bound to a source: protected or unknown columns are refused.
    fn bound(
        &mut self,
        source: &Source,
        name: &str,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let SourceKind::Table(table) = &source.kind else {
            return Ok(());
        };
        if table.protected.iter().any(|p| p == name) {
            return Err(refuse::column_not_allowed(table, name, location));
        }
        if let Some(columns) = &table.columns {
            if !columns.iter().any(|c| c == name) {
                let suggestion = closest(name, source.open_columns());
                return Err(refuse::unknown_column(
                    name,
                    Some(&table.display),
                    suggestion,
                    location,
                ));
            }
            self.analysis
                .columns
                .insert(format!("{}.{name}", table.display));
        }
        Ok(())
    }

    /// Refuses a name that any table in scope protects, when it cannot be bound for sure.
    fn conservative(
        &self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if !self.ctx.access.is_protected_anywhere(name) {
            return Ok(());
        }
        scope
            .all_sources()
            .try_for_each(|source| protected_candidate(source, name, location))
    }
}

/// What the level-by-level search for a bare name found.
#[derive(Debug, Default)]
struct BareColumn {
    /// A FROM item has it, or a select-list alias is called so.
    exists: bool,
    /// Some FROM item on the way could own any name (its columns are unknown).
    open_ended: bool,
}

/// Refuses `name` when `source` is a table that protects a column of that name: a candidate the
/// name may refer to.
fn protected_candidate(
    source: &Source,
    name: &str,
    location: Option<Location>,
) -> Result<(), GuardError> {
    match source.protecting(name) {
        Some(table) => Err(refuse::column_may_be_protected(table, name, location)),
        None => Ok(()),
    }
}

/// A bare table name or alias is also a whole-row reference (`SELECT c FROM customer c`):
/// refused over a table with protected columns. True when `name` names a FROM item.
fn whole_row(name: &str, scope: &Scope<'_>, location: Option<Location>) -> Result<bool, GuardError> {
    let as_qualifier = [name.to_string()];
    let mut is_row = false;
    for source in scope.all_sources().filter(|s| s.is_named(&as_qualifier)) {
        if let Some(table) = source.protected_table() {
            return Err(refuse::whole_row_of_protected(name, table, location));
        }
        is_row = true;
    }
    Ok(is_row)
}

/// The columns a star leaves out: `* EXCLUDE (a, b)` (DuckDB, Snowflake) and `* EXCEPT (a)`
/// (BigQuery, Databricks), folded. `* ILIKE 'pattern'` and `* RENAME` / `* REPLACE` leave out
/// nothing: a pattern is not evaluated here, and a renamed or replaced column is still read.
pub(super) fn excluded_columns(options: &WildcardAdditionalOptions, dialect: Dialect) -> Vec<String> {
    let mut out = Vec::new();
    if options.opt_ilike.is_some() {
        return out;
    }
    match &options.opt_exclude {
        Some(ExcludeSelectItem::Single(name)) => out.extend(last_part(name, dialect)),
        Some(ExcludeSelectItem::Multiple(names)) => {
            out.extend(names.iter().filter_map(|n| last_part(n, dialect)))
        }
        None => {}
    }
    if let Some(except) = &options.opt_except {
        out.push(fold_ident(&except.first_element, dialect));
        out.extend(
            except
                .additional_elements
                .iter()
                .map(|i| fold_ident(i, dialect)),
        );
    }
    out
}

/// The last part of `name`, folded (`EXCLUDE (t.a)` leaves out `a`).
fn last_part(name: &ObjectName, dialect: Dialect) -> Option<String> {
    name.0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| fold_ident(i, dialect))
}
