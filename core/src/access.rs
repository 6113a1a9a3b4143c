//! Data-access policy: which tables may be read, which columns are protected, and what the
//! catalog says exists. Built once per guard from the policy; answers questions about one
//! (folded) table name at a time. Scope tracking lives in [`crate::validate`].

use std::collections::HashMap;
use std::sync::Arc;

use crate::catalog::{Catalog, CatalogTable};
use crate::dialect::Dialect;
use crate::names::{closest, fold_unquoted, Pattern, PatternPart};
use crate::policy::{MaskKind, Policy, PolicyError};

mod pii_rules;
use pii_rules::pii_rules;

/// A protected column rule: `table.column`, `schema.table.column` or `*.column`.
#[derive(Debug, Clone)]
struct ColumnRule {
    /// Table pattern; `None` for `*` (every table).
    table: Option<Pattern>,
    /// Folded column name.
    column: String,
    /// Why it is protected.
    why: Protection,
}

/// Why a column is protected, strongest first: a column several rules protect is protected
/// by the strongest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Protection {
    /// Listed in `columns.deny`.
    Denied,
    /// Tagged with a category `pii.block` refuses.
    Blocked(String),
    /// Masked (category, when tagged): readable only as a plain column of the outermost select
    /// list, where the mask replaces it. A stronger mask sorts first.
    Masked(std::cmp::Reverse<MaskKind>, Option<String>),
}

impl Protection {
    /// The mask, when the column is masked.
    pub fn mask(&self) -> Option<MaskKind> {
        match self {
            Protection::Masked(kind, _) => Some(kind.0),
            _ => None,
        }
    }
}

/// A table as resolved against the policy (and the catalog when there is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedTable {
    /// Folded name parts as written, or the catalog's `schema.table` when resolved.
    pub parts: Vec<String>,
    /// Display name for the verdict.
    pub display: String,
    /// Protected (folded) column names of this table; `["*"]` never appears.
    pub protected: Vec<String>,
    /// Why each protected column is, for those not simply in `columns.deny` (PII categories
    /// blocked or masked); a protected column not listed here is denied.
    pub pii: Vec<(String, Protection)>,
    /// Folded column names, when the catalog knows the table.
    pub columns: Option<Arc<[String]>>,
    /// The same columns as the catalog spells them (for hints).
    pub spelled_columns: Option<Arc<[String]>>,
    /// The catalog marks it a view.
    pub view: bool,
}

impl ResolvedTable {
    /// Why the protected column `folded` is protected.
    pub fn protection(&self, folded: &str) -> &Protection {
        self.pii
            .iter()
            .find(|(c, _)| c == folded)
            .map_or(&Protection::Denied, |(_, p)| p)
    }

    /// True when every protected column of the table is masked (none denied or blocked).
    pub fn only_masked(&self) -> bool {
        self.protected
            .iter()
            .all(|c| self.protection(c).mask().is_some())
    }

    /// The catalog's spelling of a folded column name.
    pub fn spelling<'a>(&'a self, folded: &'a str) -> &'a str {
        match (&self.columns, &self.spelled_columns) {
            (Some(cols), Some(spelled)) => cols
                .iter()
                .position(|c| c == folded)
                .and_then(|i| spelled.get(i))
                .map_or(folded, String::as_str),
            _ => folded,
        }
    }
}

/// Why a table was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRefusal {
    /// A system catalog, with catalogs not allowed.
    SystemCatalog,
    /// Outside `tables.allow` or inside `tables.deny`; carries a suggestion.
    NotAllowed(Option<String>),
    /// The catalog has no such table; carries a suggestion.
    Unknown(Option<String>),
}

/// Why a mutation's target was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetRefusal {
    /// Refused as any table would be (system catalog, `tables.deny`, unknown to the catalog).
    Table(TableRefusal),
    /// Outside `writes.tables`.
    NotWritable,
}

/// The data-access half of a policy, compiled.
#[derive(Debug, Clone)]
pub struct AccessPolicy {
    dialect: Dialect,
    allow_system_catalogs: bool,
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
    columns: Vec<ColumnRule>,
    catalog: Option<CatalogIndex>,
    /// Some column rule masks (computed once: every check asks).
    masks: bool,
}

#[derive(Debug, Clone)]
struct CatalogIndex {
    tables: Vec<IndexedTable>,
    by_name: HashMap<String, Vec<usize>>,
}

#[derive(Debug, Clone)]
struct IndexedTable {
    /// Folded-for-comparison `[schema?, name]`.
    parts: Vec<String>,
    /// The table name as the catalog spells it.
    name: String,
    /// Column names as the catalog spells them.
    spelled_columns: Arc<[String]>,
    /// Folded-for-comparison column names (shared with every resolution of the table).
    columns: Arc<[String]>,
    /// The catalog marks it a view (`kind` contains `view`): not a mutation target.
    view: bool,
}

impl AccessPolicy {
    /// Compiles the table, column and catalog parts of `policy`.
    pub fn new(policy: &Policy) -> Result<Self, PolicyError> {
        let dialect = policy.dialect;
        let patterns = |field: &str, list: &[String]| {
            list.iter()
                .enumerate()
                .map(|(i, p)| {
                    Pattern::parse(p, dialect)
                        .map_err(|m| PolicyError::new(format!("{field}[{i}]"), m))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let allow = patterns("tables.allow", &policy.tables.allow)?;
        let deny = patterns("tables.deny", &policy.tables.deny)?;
        let mut columns = Vec::new();
        for (i, rule) in policy.columns.deny.iter().enumerate() {
            let field = format!("columns.deny[{i}]");
            let mut pattern =
                Pattern::parse(rule, dialect).map_err(|m| PolicyError::new(&field, m))?;
            if pattern.parts.len() < 2 {
                return Err(PolicyError::new(
                    field,
                    format!("`{rule}` must be `table.column`, `schema.table.column` or `*.column`"),
                ));
            }
            let column = match pattern.parts.pop() {
                Some(PatternPart::Exact(c)) => c,
                _ => {
                    return Err(PolicyError::new(
                        field,
                        format!("`{rule}`: the column part must be a name, not `*`"),
                    ))
                }
            };
            let table = if pattern.parts == [PatternPart::Any] {
                None
            } else {
                Some(pattern)
            };
            columns.push(ColumnRule {
                table,
                column,
                why: Protection::Denied,
            });
        }
        columns.extend(pii_rules(policy)?);
        let catalog = policy
            .catalog
            .as_ref()
            .map(|c| CatalogIndex::new(c, dialect));
        let masks = columns.iter().any(|r| r.why.mask().is_some());
        Ok(AccessPolicy {
            dialect,
            allow_system_catalogs: policy.allow_system_catalogs,
            allow,
            deny,
            columns,
            catalog,
            masks,
        })
    }

    /// True when any column is protected.
    pub fn has_column_rules(&self) -> bool {
        !self.columns.is_empty()
    }

    /// True when a catalog was supplied.
    pub fn has_catalog(&self) -> bool {
        self.catalog.is_some()
    }

    /// True when some protected column is called `column` (in any table).
    pub fn is_protected_anywhere(&self, column: &str) -> bool {
        self.columns.iter().any(|r| r.column == column)
    }

    /// Resolves a (folded) table name: system catalog, allow/deny, catalog lookup.
    pub fn resolve(&self, parts: &[String]) -> Result<ResolvedTable, TableRefusal> {
        let (table, _) = self.resolve_as(parts, |parts| self.is_allowed(parts))?;
        Ok(table)
    }

    /// Resolves the target of a mutation: as [`AccessPolicy::resolve`], except that
    /// `writable` (the compiled `writes.tables`) takes the place of `tables.allow`;
    /// `tables.deny` still refuses. Also says whether the catalog marks the table a view.
    pub fn resolve_target(
        &self,
        parts: &[String],
        writable: impl Fn(&[String], Option<&str>) -> bool,
    ) -> Result<(ResolvedTable, bool), TargetRefusal> {
        let default = self
            .dialect
            .default_schema()
            .map(|s| fold_unquoted(s, self.dialect));
        // Never a system catalog, even when reads may see them (`allow_system_catalogs`).
        if self.dialect.is_system_catalog(parts) {
            return Err(TargetRefusal::Table(TableRefusal::SystemCatalog));
        }
        let mut outside_writes = false;
        let resolved = self.resolve_as(parts, |parts| {
            let denied = self.deny.iter().any(|p| p.matches_conservatively(parts));
            outside_writes = !denied && !writable(parts, default.as_deref());
            !denied && !outside_writes
        });
        match resolved {
            Ok(found) => Ok(found),
            Err(TableRefusal::NotAllowed(_)) if outside_writes => Err(TargetRefusal::NotWritable),
            Err(refusal) => Err(TargetRefusal::Table(refusal)),
        }
    }

    /// System catalog, catalog lookup, then `allowed` on the resolved name.
    fn resolve_as(
        &self,
        parts: &[String],
        mut allowed: impl FnMut(&[String]) -> bool,
    ) -> Result<(ResolvedTable, bool), TableRefusal> {
        if self.dialect.is_system_catalog(parts) && !self.allow_system_catalogs {
            return Err(TableRefusal::SystemCatalog);
        }
        let (parts, columns, spelled_columns, view) = match &self.catalog {
            Some(index) if !self.dialect.is_system_catalog(parts) => {
                match index.find(parts, self.dialect) {
                    Some(t) => (
                        t.parts.clone(),
                        Some(t.columns.clone()),
                        Some(t.spelled_columns.clone()),
                        t.view,
                    ),
                    None => return Err(TableRefusal::Unknown(self.suggest_table(parts))),
                }
            }
            _ => (parts.to_vec(), None, None, false),
        };
        if !allowed(&parts) {
            return Err(TableRefusal::NotAllowed(self.suggest_table(&parts)));
        }
        let (protected, pii) = self.protections(&parts, columns.as_deref());
        let table = ResolvedTable {
            display: parts.join("."),
            parts,
            protected,
            pii,
            columns,
            spelled_columns,
            view,
        };
        Ok((table, view))
    }

    fn is_allowed(&self, parts: &[String]) -> bool {
        let default = self
            .dialect
            .default_schema()
            .map(|s| fold_unquoted(s, self.dialect));
        let allowed = self.allow.is_empty()
            || self
                .allow
                .iter()
                .any(|p| p.matches(parts, default.as_deref()));
        allowed && !self.deny.iter().any(|p| p.matches_conservatively(parts))
    }

    /// Protected columns of a table: every rule whose table part could name it; and why, for
    /// the columns protected by a PII rule and no stronger one.
    fn protections(
        &self,
        parts: &[String],
        columns: Option<&[String]>,
    ) -> (Vec<String>, Vec<(String, Protection)>) {
        let mut out: Vec<(&String, &Protection)> = self
            .columns
            .iter()
            .filter(|r| {
                r.table
                    .as_ref()
                    .is_none_or(|p| p.matches_conservatively(parts))
            })
            // With a catalog, a rule for a column the table does not have protects nothing.
            .filter(|r| columns.is_none_or(|cols| cols.contains(&r.column)))
            .map(|r| (&r.column, &r.why))
            .collect();
        // By column, strongest protection first: the first of each column is its protection.
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        let pii = out
            .iter()
            .filter(|(_, why)| **why != Protection::Denied)
            .map(|(c, why)| ((*c).clone(), (*why).clone()))
            .collect();
        (out.into_iter().map(|(c, _)| c.clone()).collect(), pii)
    }

    /// The closest table name the policy allows (never a denied one), for a hint.
    fn suggest_table(&self, parts: &[String]) -> Option<String> {
        let index = self.catalog.as_ref()?;
        let wanted = parts.last()?;
        let allowed = index
            .tables
            .iter()
            .filter(|t| self.is_allowed(&t.parts))
            .map(|t| t.name.as_str());
        closest(wanted, allowed).map(str::to_string)
    }

    /// True when queries may read the table named by `parts` (names as the engine stores them).
    pub fn table_allowed(&self, parts: &[String]) -> bool {
        let parts = self.stored(parts);
        (self.allow_system_catalogs || !self.dialect.is_system_catalog(&parts))
            && self.is_allowed(&parts)
    }

    /// True when a mutation may modify the table named by `parts` (names as the engine stores
    /// them), given the compiled `writes.tables` as `writable`: the rules of
    /// [`AccessPolicy::resolve_target`], and not a view the catalog knows.
    pub fn table_writable(
        &self,
        parts: &[String],
        writable: impl Fn(&[String], Option<&str>) -> bool,
    ) -> bool {
        matches!(
            self.resolve_target(&self.stored(parts), writable),
            Ok((_, false))
        )
    }

    /// True when `column` of the table named by `parts` is protected by `columns.deny` or a
    /// blocked PII category (names as stored); a masked column may be selected, so it is not.
    pub fn column_protected(&self, parts: &[String], column: &str) -> bool {
        let parts = self.stored(parts);
        let column = self.stored(&[column.to_string()]).pop().unwrap_or_default();
        let (protected, pii) = self.protections(&parts, None);
        protected.contains(&column)
            && !pii
                .iter()
                .any(|(c, why)| *c == column && why.mask().is_some())
    }

    /// The mask of `column` of the table named by `parts` (names as stored), if it is masked.
    pub fn column_mask(&self, parts: &[String], column: &str) -> Option<MaskKind> {
        let parts = self.stored(parts);
        let column = self.stored(&[column.to_string()]).pop().unwrap_or_default();
        let (_, pii) = self.protections(&parts, None);
        pii.iter()
            .find(|(c, _)| *c == column)
            .and_then(|(_, why)| why.mask())
    }

    /// This policy without its masks, for the policy's own row filter predicates (which may
    /// read a masked column: they never return it).
    pub fn for_row_filters(&self) -> AccessPolicy {
        let mut out = self.clone();
        out.columns.retain(|r| r.why.mask().is_none());
        out.masks = false;
        out
    }

    /// True when some column is masked: the walker then looks for masked columns in the
    /// outermost select list.
    pub fn has_masks(&self) -> bool {
        self.masks
    }

    /// Names as stored by the engine, compared the way the dialect compares quoted names.
    fn stored(&self, parts: &[String]) -> Vec<String> {
        if self.dialect.quoted_names_are_exact() {
            parts.to_vec()
        } else {
            parts.iter().map(|p| p.to_lowercase()).collect()
        }
    }
}

impl CatalogIndex {
    fn new(catalog: &Catalog, dialect: Dialect) -> Self {
        let fold = |s: &str| -> String {
            if dialect.quoted_names_are_exact() {
                s.to_string()
            } else {
                s.to_lowercase()
            }
        };
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let tables: Vec<IndexedTable> = catalog
            .tables
            .iter()
            .enumerate()
            .map(|(i, t): (usize, &CatalogTable)| {
                by_name.entry(fold(&t.name)).or_default().push(i);
                let mut parts = Vec::new();
                if let Some(schema) = &t.schema {
                    parts.push(fold(schema));
                }
                parts.push(fold(&t.name));
                IndexedTable {
                    parts,
                    name: t.name.clone(),
                    spelled_columns: t.columns.iter().map(|c| c.name.clone()).collect(),
                    columns: t.columns.iter().map(|c| fold(&c.name)).collect(),
                    view: t
                        .kind
                        .as_deref()
                        .is_some_and(|k| k.to_ascii_lowercase().contains("view")),
                }
            })
            .collect();
        CatalogIndex { tables, by_name }
    }

    /// Finds `[.., schema?, name]`: a qualified name must match the schema; an unqualified one
    /// prefers the dialect's default schema, then the only candidate.
    fn find(&self, parts: &[String], dialect: Dialect) -> Option<&IndexedTable> {
        let name = parts.last()?;
        let candidates = self.by_name.get(name)?;
        let tables = candidates.iter().filter_map(|&i| self.tables.get(i));
        if parts.len() >= 2 {
            let schema = &parts[parts.len() - 2];
            return tables
                .clone()
                .find(|t| t.parts.len() == 2 && &t.parts[0] == schema)
                .or_else(|| {
                    // Tables given without a schema match any qualification.
                    tables.clone().find(|t| t.parts.len() == 1)
                });
        }
        let default = dialect.default_schema().map(|s| fold_unquoted(s, dialect));
        let all: Vec<&IndexedTable> = tables.collect();
        all.iter()
            .find(|t| t.parts.len() == 1 || default.as_deref() == Some(t.parts[0].as_str()))
            .or_else(|| all.first())
            .copied()
    }
}

#[cfg(test)]
mod tests;
