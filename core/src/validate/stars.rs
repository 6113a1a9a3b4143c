//! Stars: `*`, `t.*`, DuckDB's `COLUMNS(...)` and `FROM t`, and the modifiers a star may carry,
//! each meaning what its engine means:
//!
//! - `EXCLUDE (c)` (DuckDB, Snowflake) and `EXCEPT (c)` (BigQuery, ClickHouse, Databricks) leave
//!   `c` out of every item the star covers; DuckDB's qualified `EXCLUDE (t.c)` leaves it out of
//!   the items named `t` only (`SELECT * EXCLUDE (customer.email) FROM customer, customer c2`
//!   still returns `c2.email`).
//! - `ILIKE 'pattern'` (Snowflake, DuckDB) covers only the columns whose names match it.
//! - `REPLACE (expr AS c)` reads `expr` (a read like any other, never a masked column's slot) and
//!   leaves nothing out: which item's `c` it replaces differs between engines, so every `c` the
//!   star covers is still taken as read.
//! - `RENAME (c AS d)` renames, and leaves nothing out.
//!
//! What is left covered is checked against the protected columns of every item.

use sqlparser::ast::{ExcludeSelectItem, ObjectName, ReplaceSelectItem, WildcardAdditionalOptions};

use super::diagnostics as refuse;
use super::scope::{Scope, Source, SourceKind};
use super::Walker;
use crate::dialect::Dialect;
use crate::error::{GuardError, Location};
use crate::names::{fold_ident, fold_object_name};

/// What a star's modifiers leave out of the columns it covers (folded names).
#[derive(Debug, Default)]
pub(super) struct LeftOut {
    /// `EXCLUDE (c)` / `EXCEPT (c)`: left out of every item.
    everywhere: Vec<String>,
    /// DuckDB's `EXCLUDE (t.c)`: left out of the items `t` names.
    qualified: Vec<(Vec<String>, String)>,
    /// `ILIKE 'pattern'`: only the columns it matches are covered.
    pattern: Option<String>,
}

impl LeftOut {
    /// Nothing left out: a plain `*`.
    pub(super) const NONE: LeftOut = LeftOut {
        everywhere: Vec::new(),
        qualified: Vec::new(),
        pattern: None,
    };

    /// What `options` leave out, names folded in `dialect`.
    pub(super) fn of(options: &WildcardAdditionalOptions, dialect: Dialect) -> LeftOut {
        let mut out = LeftOut {
            pattern: options.opt_ilike.as_ref().map(|i| i.pattern.clone()),
            ..LeftOut::default()
        };
        let excluded: &[ObjectName] = match &options.opt_exclude {
            Some(ExcludeSelectItem::Single(name)) => std::slice::from_ref(name),
            Some(ExcludeSelectItem::Multiple(names)) => names,
            None => &[],
        };
        for name in excluded {
            // A computed part excludes nothing.
            let Some(mut parts) = fold_object_name(name, dialect) else {
                continue;
            };
            let Some(column) = parts.pop() else { continue };
            if parts.is_empty() {
                out.everywhere.push(column);
            } else {
                out.qualified.push((parts, column));
            }
        }
        if let Some(except) = &options.opt_except {
            let all = std::iter::once(&except.first_element).chain(&except.additional_elements);
            out.everywhere.extend(all.map(|i| fold_ident(i, dialect)));
        }
        out
    }

    /// True when the star leaves `column` of `source` out.
    fn leaves_out(&self, source: &Source, column: &str) -> bool {
        if self.everywhere.iter().any(|c| c == column) {
            return true;
        }
        if self
            .qualified
            .iter()
            .any(|(q, c)| c == column && source.is_named(q))
        {
            return true;
        }
        self.pattern
            .as_deref()
            .is_some_and(|pattern| !ilike_may_match(pattern, column))
    }
}

impl Walker<'_, '_> {
    /// A star with its modifiers (`options`): `qualifier.*` or `*`; the REPLACE expressions are
    /// read in `scope`.
    pub(super) fn star_with_options(
        &mut self,
        qualifier: Option<&ObjectName>,
        options: &WildcardAdditionalOptions,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let left_out = LeftOut::of(options, self.dialect());
        self.star(qualifier, scope, &left_out, location)?;
        if let Some(replace) = &options.opt_replace {
            self.replaced(replace, scope)?;
        }
        // RENAME (`opt_rename`) and an alias (`opt_alias`) name columns the star covers; they
        // read nothing more.
        Ok(())
    }

    /// The modifiers of a star over a value's fields (BigQuery's `(expr).* EXCEPT (a)`): only
    /// the REPLACE expressions read anything.
    pub(super) fn star_modifiers_on_value(
        &mut self,
        options: &WildcardAdditionalOptions,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        match &options.opt_replace {
            Some(replace) => self.replaced(replace, scope),
            None => Ok(()),
        }
    }

    /// `REPLACE (expr AS c, ...)`: each expression is a read in the SELECT's scope, outside any
    /// masked column's slot.
    fn replaced(
        &mut self,
        replace: &ReplaceSelectItem,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        let in_slot = std::mem::replace(&mut self.in_mask_slot, false);
        let result = replace
            .items
            .iter()
            .try_for_each(|element| self.exprs(&element.expr, scope));
        self.in_mask_slot = in_slot;
        result
    }

    /// `*` (over the current SELECT's sources) or `qualifier.*`, less what `left_out` leaves out.
    pub(super) fn star(
        &mut self,
        qualifier: Option<&ObjectName>,
        scope: &Scope<'_>,
        left_out: &LeftOut,
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
            if table
                .protected
                .iter()
                .any(|p| !left_out.leaves_out(source, p))
            {
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
                for c in columns.iter().filter(|c| !left_out.leaves_out(source, c)) {
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

/// Whether an `ILIKE` pattern may match the (folded) column name `name`, case-insensitively:
/// `%` matches any run, `_` one character. A pattern with a backslash (an escape in some
/// engines, a plain character in others) is taken to match everything.
fn ilike_may_match(pattern: &str, name: &str) -> bool {
    if pattern.contains('\\') {
        return true;
    }
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let name: Vec<char> = name.to_lowercase().chars().collect();
    like(&pattern, &name)
}

/// LIKE matching by dynamic programming over the two character sequences (no backtracking
/// blow-up on many `%`).
fn like(pattern: &[char], text: &[char]) -> bool {
    // matched[j]: the pattern read so far matches text[..j].
    let mut matched = vec![false; text.len() + 1];
    matched[0] = true;
    for &p in pattern {
        let mut next = vec![false; text.len() + 1];
        match p {
            '%' => {
                let mut any = false;
                for j in 0..=text.len() {
                    any |= matched[j];
                    next[j] = any;
                }
            }
            _ => {
                for j in 1..=text.len() {
                    next[j] = matched[j - 1] && (p == '_' || p == text[j - 1]);
                }
            }
        }
        matched = next;
    }
    matched[text.len()]
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, refusal, CATALOG, PII};

    #[test]
    fn a_qualified_exclude_leaves_the_column_out_of_its_own_table_only() {
        // DuckDB: `EXCLUDE (customer.email)` removes `customer.email`, not `c2.email`.
        for policy in [PII, CATALOG] {
            let g = guard(policy, "duckdb");
            for sql in [
                "SELECT * EXCLUDE (customer.email, customer.phone) FROM customer, customer AS c2",
                "SELECT * EXCLUDE (c2.email, c2.phone) FROM customer, customer AS c2",
                "SELECT * EXCLUDE (zz.email, zz.phone) FROM customer",
            ] {
                assert!(code(&g, sql).is_some(), "{sql}");
            }
            for sql in [
                "SELECT * EXCLUDE (email, phone) FROM customer, customer AS c2",
                "SELECT * EXCLUDE (customer.email, customer.phone, c2.email, c2.phone) \
                 FROM customer, customer AS c2",
                "SELECT * EXCLUDE (c.email, c.phone) FROM customer c",
            ] {
                assert_eq!(code(&g, sql), None, "{sql}");
            }
        }
    }

    #[test]
    fn replace_expressions_are_reads() {
        for dialect in ["duckdb", "bigquery", "snowflake", "clickhouse"] {
            let g = guard(PII, dialect);
            let (drop, keep) = match dialect {
                "duckdb" | "snowflake" => ("EXCLUDE", "EXCLUDE (email, phone)"),
                _ => ("EXCEPT", "EXCEPT (email, phone)"),
            };
            let leak = format!("SELECT * {keep} REPLACE (email AS first_name) FROM customer");
            assert_eq!(
                code(&g, &leak).as_deref(),
                Some("column_not_allowed"),
                "{dialect}: {leak}"
            );
            let sub = format!(
                "SELECT * {keep} REPLACE ((SELECT max(phone) FROM customer) AS first_name) \
                 FROM customer"
            );
            assert_eq!(
                code(&g, &sub).as_deref(),
                Some("column_not_allowed"),
                "{dialect}: {sub}"
            );
            // Replacing a protected column does not stop the star from covering it.
            let replaced = format!("SELECT * {drop} (phone) REPLACE ('x' AS email) FROM customer");
            assert!(code(&g, &replaced).is_some(), "{dialect}: {replaced}");
            let benign = "SELECT * REPLACE (round(price) AS price) FROM product";
            assert_eq!(code(&g, benign), None, "{dialect}: {benign}");
            let open =
                format!("SELECT * {keep} REPLACE (upper(first_name) AS first_name) FROM customer");
            assert_eq!(code(&g, &open), None, "{dialect}: {open}");
        }
    }

    #[test]
    fn a_star_argument_with_modifiers_is_a_star() {
        let g = guard(PII, "snowflake");
        assert_eq!(
            code(&g, "SELECT HASH(* EXCLUDE (first_name)) FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        assert_eq!(
            code(&g, "SELECT HASH(* EXCLUDE (email, phone)) FROM customer"),
            None
        );
    }

    #[test]
    fn ilike_covers_only_the_columns_it_matches() {
        let g = guard(PII, "snowflake");
        assert_eq!(code(&g, "SELECT * ILIKE '%name%' FROM customer"), None);
        for sql in [
            "SELECT * ILIKE '%MAIL' FROM customer",
            "SELECT * ILIKE 'e_ail' FROM customer",
            "SELECT * ILIKE '%' FROM customer",
            "SELECT * ILIKE 'x\\%' FROM customer",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("star_on_restricted_table"),
                "{sql}"
            );
        }
    }

    #[test]
    fn columns_is_a_star_in_every_dialect_that_has_it() {
        for dialect in ["duckdb", "clickhouse"] {
            let g = guard(PII, dialect);
            for sql in [
                "SELECT COLUMNS('.*') FROM customer",
                "SELECT COLUMNS(*) FROM customer",
            ] {
                assert_eq!(
                    code(&g, sql).as_deref(),
                    Some("star_on_restricted_table"),
                    "{dialect}: {sql}"
                );
            }
            assert_eq!(code(&g, "SELECT COLUMNS('.*') FROM vendor"), None);
        }
        let g = guard(PII, "duckdb");
        assert_eq!(
            code(
                &g,
                "SELECT min(COLUMNS(* EXCLUDE (email, phone))) FROM customer"
            ),
            None
        );
        for sql in [
            "SELECT min(COLUMNS(* EXCLUDE (phone))) FROM customer",
            "SELECT * FROM vendor, customer WHERE COLUMNS(*) IS NOT NULL",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("star_on_restricted_table"),
                "{sql}"
            );
        }
    }

    #[test]
    fn like_matching_reads_percent_and_underscore() {
        use super::like;
        let m = |p: &str, t: &str| {
            like(
                &p.chars().collect::<Vec<_>>(),
                &t.chars().collect::<Vec<_>>(),
            )
        };
        assert!(m("%", ""));
        assert!(m("e%l", "email"));
        assert!(m("_mail", "email"));
        assert!(!m("_mail", "mail"));
        assert!(m("%a%i%", "email"));
        assert!(!m("%x%", "email"));
        assert!(m(
            "%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%b",
            &"a".repeat(200).replace('a', "ab")
        ));
    }

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
