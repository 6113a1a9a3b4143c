//! The catalog: tables and columns that exist, as data the caller supplies (no I/O here).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Tables known to exist. Supplying one enables `*` expansion, unknown-name refusals and hints.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// The tables.
    #[serde(default)]
    pub tables: Vec<CatalogTable>,
}

impl Catalog {
    /// The JSON Schema of the catalog.
    pub fn json_schema() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(Catalog)).unwrap_or_default()
    }
}

/// One table or view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogTable {
    /// Schema (or database), when the engine has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Table name, exactly as stored by the engine.
    pub name: String,
    /// `table`, `view`, ... (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Columns in order.
    #[serde(default)]
    pub columns: Vec<CatalogColumn>,
    /// Primary key column names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub primary_key: Vec<String>,
    /// Foreign keys from this table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreign_keys: Vec<ForeignKey>,
}

/// One column.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogColumn {
    /// Column name, exactly as stored.
    pub name: String,
    /// SQL type (informational).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub data_type: Option<String>,
    /// Nullability (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nullable: Option<bool>,
}

/// A foreign key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForeignKey {
    /// Columns in this table.
    pub columns: Vec<String>,
    /// Referenced table's schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referenced_schema: Option<String>,
    /// Referenced table.
    pub referenced_table: String,
    /// Referenced columns.
    pub referenced_columns: Vec<String>,
}
