//! What a name in table position is: a CTE in scope, a table checked against the policy, or
//! something an engine reads as data (a file, a URL, a stage, a pattern over tables).

use sqlparser::ast::{Ident, ObjectName, Spanned};

use super::diagnostics as refuse;
use super::scope::{Scope, Source, SourceKind};
use super::{span_location, Walker};
use super::{FilteredRef, RowFilterLookup};
use crate::access::{ResolvedTable, TableRefusal};
use crate::dialect::Dialect;
use crate::error::GuardError;
use crate::names::fold_object_name;

impl Walker<'_, '_> {
    /// Resolves a relation in FROM: a CTE in scope, or a table checked against the policy.
    pub(super) fn relation(
        &mut self,
        name: &ObjectName,
        alias: Option<String>,
        scope: &Scope<'_>,
    ) -> Result<Source, GuardError> {
        let location = span_location(name.span());
        let string_literal = name
            .0
            .iter()
            .any(|p| p.as_ident().is_some_and(|i| i.quote_style == Some('\'')));
        if string_literal {
            return Err(refuse::file_path_as_table(name, location));
        }
        let Some(parts) = fold_object_name(name, self.dialect()) else {
            return Err(refuse::computed_table_name(location));
        };
        if let [single] = parts.as_slice() {
            if let Some(columns) = scope.find_cte(single) {
                self.cte_reference(single, location)?;
                return Ok(Source {
                    alias: Some(alias.unwrap_or_else(|| single.clone())),
                    kind: SourceKind::Derived(columns.clone()),
                });
            }
        }
        if let Some(reason) = not_a_table(name, self.dialect()) {
            return Err(refuse::not_a_table(name, reason, location));
        }
        self.sequence_table(&parts, location)?;
        match self.ctx.access.resolve(&parts) {
            Ok(table) => {
                self.analysis.tables.insert(table.display.clone());
                let filtered = match self.ctx.rows {
                    Some(rows) => self.row_filtered(name, &table, rows, location)?,
                    None => false,
                };
                // A filtered table becomes a derived table under its alias, or its bare name:
                // from here on it answers to that name only, as it will in the rewritten SQL.
                let alias = match alias {
                    None if filtered => table.parts.last().cloned(),
                    alias => alias,
                };
                Ok(Source {
                    alias,
                    kind: SourceKind::Table(table),
                })
            }
            Err(refusal) => Err(self.table_refusal(name, refusal, location)),
        }
    }

    /// Under row filters: refuses a view (it reads its base tables unfiltered) unless trusted,
    /// and a system catalog (statistics and definitions show other rows' values); records a
    /// filtered table's reference for the rewrite (and says so).
    fn row_filtered(
        &mut self,
        name: &ObjectName,
        table: &ResolvedTable,
        rows: &dyn RowFilterLookup,
        location: Option<crate::error::Location>,
    ) -> Result<bool, GuardError> {
        if (table.view && !rows.trusts_view(&table.parts))
            || self.dialect().is_system_catalog(&table.parts)
        {
            return Err(refuse::view_under_row_filters(name, location));
        }
        let filters = rows.matching(&table.parts);
        if filters.is_empty() {
            return Ok(false);
        }
        self.analysis
            .row_filters
            .extend(rows.applied_keys(&filters));
        self.analysis.filtered.push(FilteredRef {
            address: std::ptr::from_ref(name) as usize,
            filters,
        });
        Ok(true)
    }

    /// The refusal of a table name the policy or the catalog refused.
    pub(super) fn table_refusal(
        &self,
        name: &ObjectName,
        refusal: TableRefusal,
        location: Option<crate::error::Location>,
    ) -> GuardError {
        match refusal {
            TableRefusal::SystemCatalog => refuse::system_catalog(name, location),
            TableRefusal::NotAllowed(suggestion) => {
                refuse::table_not_allowed(name, suggestion.as_deref(), location)
            }
            TableRefusal::Unknown(suggestion) => {
                refuse::unknown_table(name, suggestion.as_deref(), location)
            }
        }
    }
}

/// Why a name is data rather than a name, in any dialect and any position (a table, a table
/// function, a function): a stage (`@s`, `@~`, `@%t`, `@s/path`), a path or URL, a pattern
/// over several tables, or a string literal (`'@s'`).
pub(super) fn data_in_name(name: &ObjectName) -> Option<&'static str> {
    for part in &name.0 {
        let Some(ident) = part.as_ident() else {
            continue;
        };
        let v = ident.value.as_str();
        if v.starts_with('@') {
            return Some("is a stage (files)");
        }
        // One pass over the name (every function call comes here): a URL has a `/` too.
        if let Some(b) = v
            .bytes()
            .find(|b| matches!(b, b'/' | b'\\' | b'*' | b'?' | b'['))
        {
            return Some(if matches!(b, b'/' | b'\\') {
                "is a file path or URL"
            } else {
                "is a pattern over several tables (it can match denied tables)"
            });
        }
        if ident.quote_style == Some('\'') {
            return Some("is a string (a file path or a stage), not a name");
        }
    }
    None
}

/// Databricks / Spark and Hive read a file when a table name is qualified by a data source
/// format: `` csv.`/path` ``, `` text.`s3://...` ``.
const FILE_FORMATS: [&str; 12] = [
    "avro",
    "binaryfile",
    "cloudfiles",
    "csv",
    "delta",
    "image",
    "jdbc",
    "json",
    "libsvm",
    "orc",
    "parquet",
    "text",
];

/// Why a FROM name is something other than a table, if it is: engines read a path, a URL, a
/// stage or a pattern in table position as data (DuckDB's replacement scans of
/// `"/path/file.csv"` or `"data.parquet"`, Spark's `` csv.`/path` ``, Snowflake's `@stage/...`,
/// BigQuery's wildcard tables `` `ds.employee*` `` that also match denied tables).
fn not_a_table(name: &ObjectName, dialect: Dialect) -> Option<&'static str> {
    if let Some(reason) = data_in_name(name) {
        return Some(reason);
    }
    let idents: Vec<&Ident> = name.0.iter().filter_map(|p| p.as_ident()).collect();
    for ident in &idents {
        let v = ident.value.as_str();
        if ident.quote_style.is_some()
            && matches!(
                dialect,
                Dialect::Duckdb | Dialect::Databricks | Dialect::Hive
            )
            && (v.contains('.') || v.contains(':') || v.starts_with('~'))
        {
            return Some("is read as a file name");
        }
    }
    if dialect == Dialect::Sqlite {
        // Eponymous virtual tables that need no CREATE: `fsdir` lists directories and reads
        // files, `zipfile` / `sqlar` read archives, `generate_series` without arguments takes
        // its bounds from the WHERE clause (unbounded work), `carray` reads memory by pointer.
        let last = idents.last().map(|i| i.value.to_ascii_lowercase());
        if let Some("fsdir" | "zipfile" | "sqlar" | "generate_series" | "carray" | "completion") =
            last.as_deref()
        {
            return Some("is a SQLite virtual table that reads files, memory or unbounded rows");
        }
    }
    if matches!(dialect, Dialect::Databricks | Dialect::Hive) && idents.len() >= 2 {
        let qualifier = idents[idents.len() - 2].value.to_ascii_lowercase();
        if FILE_FORMATS.contains(&qualifier.as_str()) {
            return Some("reads a file in place (a data source format qualifier)");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(parts: &[(&str, Option<char>)]) -> ObjectName {
        ObjectName::from(
            parts
                .iter()
                .map(|(v, q)| Ident {
                    value: v.to_string(),
                    quote_style: *q,
                    span: sqlparser::tokenizer::Span::empty(),
                })
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn paths_stages_and_patterns_are_not_tables_in_any_dialect() {
        for dialect in Dialect::ALL.iter().copied() {
            for v in ["@stage/dir", "/etc/passwd", "s3://bucket/x", "ds.employee*"] {
                assert!(
                    not_a_table(&name(&[(v, Some('"'))]), dialect).is_some(),
                    "{dialect}: {v}"
                );
            }
            assert_eq!(not_a_table(&name(&[("customer", None)]), dialect), None);
        }
    }

    #[test]
    fn a_quoted_file_name_is_data_only_where_the_engine_scans_it() {
        let file = name(&[("data.parquet", Some('"'))]);
        assert!(not_a_table(&file, Dialect::Duckdb).is_some());
        assert_eq!(not_a_table(&file, Dialect::Postgres), None);
    }

    #[test]
    fn format_qualifiers_and_virtual_tables_are_dialect_specific() {
        let csv = name(&[("csv", None), ("data", Some('`'))]);
        assert!(not_a_table(&csv, Dialect::Databricks).is_some());
        assert_eq!(not_a_table(&csv, Dialect::Postgres), None);
        let fsdir = name(&[("FSDIR", None)]);
        assert!(not_a_table(&fsdir, Dialect::Sqlite).is_some());
        assert_eq!(not_a_table(&fsdir, Dialect::Postgres), None);
    }
}
