//! Which catalog tables the policy lets a mutation modify. Core decides
//! (`Guard::table_writable`); this module only asks it about each table of the catalog.

use sqlgate::Guard;

use crate::backend::TableDetail;

/// The tables of `tables` (qualified names) that the policy lets mutations modify.
pub fn writable_tables(guard: &Guard, tables: &[TableDetail]) -> Vec<String> {
    tables
        .iter()
        .filter(|t| t.kind == "table" || t.kind == "partitioned_table")
        .filter(|t| {
            let mut parts: Vec<&str> = t.schema.iter().map(String::as_str).collect();
            parts.push(&t.name);
            guard.table_writable(&parts)
        })
        .map(TableDetail::qualified_name)
        .collect()
}
