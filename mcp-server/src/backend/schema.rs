//! What introspection finds: tables and views with their columns and keys, as `describe_table`
//! and `list_tables` show them, and the core catalog built from them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlgate::{Catalog, CatalogColumn, CatalogTable, ForeignKey};

/// A column as `describe_table` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ColumnDetail {
    /// Column name.
    pub name: String,
    /// SQL type.
    #[serde(rename = "type")]
    pub data_type: String,
    /// Whether NULL is allowed.
    pub nullable: bool,
    /// Default expression.
    pub default: Option<String>,
    /// Comment.
    pub comment: Option<String>,
    /// True when the policy protects this column (queries that reference it are refused).
    #[serde(default)]
    pub protected: bool,
}

/// A foreign key from this table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ForeignKeyDetail {
    /// Columns of this table.
    pub columns: Vec<String>,
    /// Referenced table's schema.
    pub referenced_schema: Option<String>,
    /// Referenced table.
    pub referenced_table: String,
    /// Referenced columns.
    pub referenced_columns: Vec<String>,
}

/// A foreign key from another table to this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReferencedBy {
    /// Referencing table's schema.
    pub schema: Option<String>,
    /// Referencing table.
    pub table: String,
    /// Referencing columns.
    pub columns: Vec<String>,
    /// Columns of this table they reference.
    pub referenced_columns: Vec<String>,
}

/// A unique key of a table (a unique constraint or index over plain columns), as `init` reads
/// it to tell a one-to-one relationship.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniqueKey {
    /// The table's schema, when the engine has one.
    pub schema: Option<String>,
    /// The table.
    pub table: String,
    /// Its columns.
    pub columns: Vec<String>,
}

/// Everything known about one table or view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableDetail {
    /// Schema, when the engine has one.
    pub schema: Option<String>,
    /// Table name.
    pub name: String,
    /// `table`, `view`, `materialized_view`, `foreign_table`, `partitioned_table`.
    pub kind: String,
    /// Estimated row count (exact for SQLite), when known.
    pub estimated_rows: Option<i64>,
    /// Comment.
    pub comment: Option<String>,
    /// Columns in order.
    pub columns: Vec<ColumnDetail>,
    /// Primary key columns.
    pub primary_key: Vec<String>,
    /// Foreign keys from this table.
    pub foreign_keys: Vec<ForeignKeyDetail>,
    /// Foreign keys from other tables to this one.
    pub referenced_by: Vec<ReferencedBy>,
    /// True when a row filter of the policy limits the rows a query sees in it.
    #[serde(default)]
    pub row_filtered: bool,
}

impl TableDetail {
    /// `schema.name` or `name`.
    pub fn qualified_name(&self) -> String {
        match &self.schema {
            Some(s) => format!("{s}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Fills `referenced_by` of every table from the others' foreign keys.
pub fn link_references(tables: &mut [TableDetail]) {
    let mut refs: Vec<(usize, ReferencedBy)> = Vec::new();
    for t in tables.iter() {
        for fk in &t.foreign_keys {
            let target = tables.iter().position(|o| {
                o.name == fk.referenced_table
                    && (fk.referenced_schema.is_none() || o.schema == fk.referenced_schema)
            });
            if let Some(i) = target {
                refs.push((
                    i,
                    ReferencedBy {
                        schema: t.schema.clone(),
                        table: t.name.clone(),
                        columns: fk.columns.clone(),
                        referenced_columns: fk.referenced_columns.clone(),
                    },
                ));
            }
        }
    }
    for (i, r) in refs {
        if let Some(t) = tables.get_mut(i) {
            t.referenced_by.push(r);
        }
    }
}

/// The core catalog for these tables (enables "did you mean" hints and `*` expansion).
pub fn to_catalog(tables: &[TableDetail]) -> Catalog {
    Catalog {
        tables: tables
            .iter()
            .map(|t| CatalogTable {
                schema: t.schema.clone(),
                name: t.name.clone(),
                kind: Some(t.kind.clone()),
                columns: t
                    .columns
                    .iter()
                    .map(|c| CatalogColumn {
                        name: c.name.clone(),
                        data_type: Some(c.data_type.clone()),
                        nullable: Some(c.nullable),
                    })
                    .collect(),
                primary_key: t.primary_key.clone(),
                foreign_keys: t
                    .foreign_keys
                    .iter()
                    .map(|f| ForeignKey {
                        columns: f.columns.clone(),
                        referenced_schema: f.referenced_schema.clone(),
                        referenced_table: f.referenced_table.clone(),
                        referenced_columns: f.referenced_columns.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}
