//! Stars: `*`, `t.*`, `* EXCLUDE (...)` / `* EXCEPT (...)` and DuckDB's `COLUMNS(...)`, each
//! checked against the protected columns of every item it covers.

use sqlparser::ast::{ExcludeSelectItem, ObjectName, WildcardAdditionalOptions};

use super::diagnostics as refuse;
use super::scope::{Scope, Source, SourceKind};
use super::Walker;
use crate::dialect::Dialect;
use crate::error::{GuardError, Location};
use crate::names::{fold_ident, fold_object_name};

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
        // The hint's columns are qualified as the query names their table, so that the agent's
        // next query does not trade the refusal for an ambiguous column.
        let qualify = qualifier.is_some() || sources.len() > 1;
        for source in sources {
            let SourceKind::Table(table) = &source.kind else {
                continue;
            };
            if table.protected.iter().any(|p| !excluded.contains(p)) {
                return Err(match &table.columns {
                    Some(_) => {
                        let prefix = match (qualifier, &source.alias) {
                            // `public.customer.*`: the item's own name, as written.
                            (Some(q), _) => q.0.last().map(ToString::to_string),
                            (None, Some(alias)) if qualify => Some(alias.clone()),
                            (None, None) if qualify => Some(table.display.clone()),
                            (None, _) => None,
                        };
                        let open = source.open_columns();
                        refuse::star_over_protected(table, &open, prefix.as_deref(), location)
                    }
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
}

/// The columns a star leaves out: `* EXCLUDE (a, b)` (DuckDB, Snowflake) and `* EXCEPT (a)`
/// (BigQuery, Databricks), folded. `* ILIKE 'pattern'` and `* RENAME` / `* REPLACE` leave out
/// nothing: a pattern is not evaluated here, and a renamed or replaced column is still read.
pub(super) fn excluded_columns(
    options: &WildcardAdditionalOptions,
    dialect: Dialect,
) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, refusal, CATALOG, PII};

    #[test]
    fn a_star_that_leaves_out_every_protected_column_passes() {
        let g = guard(PII, "duckdb");
        assert_eq!(
            code(&g, "SELECT * EXCLUDE (email, phone) FROM customer"),
            None
        );
        assert_eq!(
            code(&g, "SELECT * EXCLUDE (email) FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        assert_eq!(
            code(&g, "SELECT COLUMNS('.*') FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        let g = guard(PII, "snowflake");
        assert_eq!(
            code(&g, "SELECT OBJECT_CONSTRUCT(*) FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        assert_eq!(code(&g, "SELECT count(*) FROM customer"), None);
    }

    #[test]
    fn a_star_over_a_catalog_table_lists_the_open_columns() {
        let g = guard(CATALOG, "postgres");
        let error = refusal(&g, "SELECT * FROM customer").expect("refused");
        assert_eq!(error.code.as_str(), "column_not_allowed");
        assert_eq!(
            error.hint.as_deref(),
            Some("list the columns you need: customer_id, first_name")
        );
        // Qualified as the query names the table, so that the columns stay unambiguous.
        for (sql, hint) in [
            (
                "SELECT c.* FROM customer c JOIN vendor v ON true",
                "c.customer_id, c.first_name",
            ),
            (
                "SELECT * FROM customer c JOIN vendor v ON true",
                "c.customer_id, c.first_name",
            ),
            (
                "SELECT * FROM customer, vendor",
                "customer.customer_id, customer.first_name",
            ),
            (
                "SELECT customer.* FROM customer",
                "customer.customer_id, customer.first_name",
            ),
        ] {
            let error = refusal(&g, sql).expect("refused");
            assert_eq!(
                error.hint.as_deref(),
                Some(format!("list the columns you need: {hint}").as_str()),
                "{sql}"
            );
        }
        assert_eq!(
            code(&g, "SELECT z.* FROM vendor v").as_deref(),
            Some("unknown_table")
        );
        assert_eq!(code(&g, "SELECT v.* FROM vendor v"), None);
    }
}
