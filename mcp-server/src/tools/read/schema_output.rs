//! What the schema tools return: `describe_table`'s table and columns with their meaning (the
//! policy's annotations merged with the database's comments), keys, relationships and PII marks;
//! `list_tables`' entries; `list_schemas`' schemas.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlgate::{Cardinality, MaskKind};

use crate::backend::{ForeignKeyDetail, ReferencedBy};

/// `describe_table`'s output: one table or view as the calling principal may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableDescription {
    /// Schema, when the engine has one.
    pub schema: Option<String>,
    /// Table name.
    pub name: String,
    /// `table`, `view`, `materialized_view`, `foreign_table`, `partitioned_table`.
    pub kind: String,
    /// Estimated row count (exact for SQLite), when known.
    pub estimated_rows: Option<i64>,
    /// The database's comment.
    pub comment: Option<String>,
    /// A human name for the table (the policy's annotations).
    pub display_name: Option<String>,
    /// What a row is: the policy's description, else the database's comment.
    pub description: Option<String>,
    /// Other words people use for it (the policy's annotations).
    pub synonyms: Vec<String>,
    /// Columns in order.
    pub columns: Vec<ColumnDescription>,
    /// Primary key columns, in key order (each column's `primary_key_ordinal` says the same).
    pub primary_key: Vec<String>,
    /// Foreign keys from this table (the database's).
    pub foreign_keys: Vec<ForeignKeyDetail>,
    /// Foreign keys from other tables to this one (the database's).
    pub referenced_by: Vec<ReferencedBy>,
    /// Relationships in both directions: the policy's declared ones and the database's foreign
    /// keys (the policy's win on the same columns), only with tables the principal may read.
    pub relationships: Vec<RelationshipDescription>,
    /// True when a row filter of the policy limits the rows a query sees in it.
    pub row_filtered: bool,
}

/// One column with its meaning and what the policy does with it; never a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ColumnDescription {
    /// Column name.
    pub name: String,
    /// SQL type.
    #[serde(rename = "type")]
    pub data_type: String,
    /// Whether NULL is allowed.
    pub nullable: bool,
    /// Default expression.
    pub default: Option<String>,
    /// The database's comment.
    pub comment: Option<String>,
    /// A human name for the column (the policy's annotations).
    pub display_name: Option<String>,
    /// What the value is: the policy's description, else the database's comment.
    pub description: Option<String>,
    /// Other words people use for it (the policy's annotations).
    pub synonyms: Vec<String>,
    /// Position in the primary key (1 for its first column), when it is part of it.
    pub primary_key_ordinal: Option<u32>,
    /// The PII category the policy tags it with (`EMAIL_ADDRESS`, `PHONE_NUMBER`, ...).
    pub pii: Option<String>,
    /// How a query's result shows it when the policy masks it: `partial`, `hash`, `redact` or
    /// `null` (it may then appear only as a plain column of the outermost select list).
    pub mask: Option<MaskKind>,
    /// True when its PII category is one the policy refuses (`pii.block`).
    pub blocked: bool,
    /// True when the policy protects it (`columns.deny` or a blocked category): queries that
    /// reference it are refused.
    pub protected: bool,
}

/// Which side of a relationship this table is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// This table holds the referencing (`from`) columns.
    Outgoing,
    /// Another table's columns reference this one's.
    Incoming,
}

/// Where a relationship was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RelationshipSource {
    /// Declared in the policy's `annotations.relationships`.
    Policy,
    /// A foreign key of the database.
    Database,
}

/// A relationship seen from the described table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RelationshipDescription {
    /// `outgoing` (this table references the other) or `incoming`.
    pub direction: Direction,
    /// Seen from this table: `many_to_one` means many rows here relate to one row there.
    pub cardinality: Cardinality,
    /// This table's columns, in order.
    pub columns: Vec<String>,
    /// The other table's schema, when known.
    pub other_schema: Option<String>,
    /// The other table.
    pub other_table: String,
    /// The other table's columns, in the same order.
    pub other_columns: Vec<String>,
    /// `policy` or `database`.
    pub source: RelationshipSource,
    /// What the relationship means (the policy's).
    pub description: Option<String>,
}

/// One table in `list_tables`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableEntry {
    /// Schema, when the engine has one.
    pub schema: Option<String>,
    /// Table name.
    pub name: String,
    /// `table`, `view`, ...
    pub kind: String,
    /// Estimated row count, when known.
    pub estimated_rows: Option<i64>,
    /// The database's comment.
    pub comment: Option<String>,
    /// A human name for the table (the policy's annotations).
    pub display_name: Option<String>,
    /// What a row is: the policy's description, else the database's comment.
    pub description: Option<String>,
    /// Other words people use for it (the policy's annotations).
    pub synonyms: Vec<String>,
    /// True when a row filter limits the rows a query sees in it (queries see only the rows
    /// this connection is allowed).
    pub row_filtered: bool,
}

/// Output of `list_tables`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListTablesOutput {
    /// Tables and views the policy allows (in the schema asked for, if one was).
    pub tables: Vec<TableEntry>,
}

/// One schema in `list_schemas`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SchemaEntry {
    /// Schema name (`null` for an engine without schemas, such as SQLite).
    pub name: Option<String>,
    /// How many tables and views of it the principal may read.
    pub table_count: usize,
}

/// Output of `list_schemas`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListSchemasOutput {
    /// Schemas with at least one table the principal may read.
    pub schemas: Vec<SchemaEntry>,
}
