//! The catalog one principal sees: the guard built from its policy and the live tables, the
//! tables it may read (protected columns and row filters marked) and those it may modify.

use std::sync::Arc;

use sqlgate::{Dialect, Guard, Policy, Vars};

use crate::backend::{to_catalog, TableDetail};
use crate::gate::writable::writable_tables;

/// The guard for one policy with the catalog it was built from.
pub struct Snapshot {
    /// The guard.
    pub guard: Arc<Guard>,
    /// The tables the policy lets queries read.
    pub tables: Arc<Vec<TableDetail>>,
    /// The tables a mutation may modify.
    pub writable: Arc<Vec<String>>,
    /// Every table the database listed, before the policy chose: what an engine for another
    /// caller's variables is built from without asking the database again.
    pub introspected: Arc<Vec<TableDetail>>,
}

/// A table's name as SQL: each part quoted the dialect's way, exactly as the engine stores it.
fn quoted_name(t: &TableDetail, dialect: Dialect) -> String {
    name_parts(t)
        .iter()
        .map(|p| dialect.quote_identifier(p))
        .collect::<Vec<_>>()
        .join(".")
}

/// The guard for the caller's policy plus the catalog, and the tables it lets queries read, with
/// their protected columns and row filters marked (core decides all three: `table_allowed`,
/// `column_protected`, and, under row filters, `read_access` with the caller's variables).
pub fn build_snapshot(
    policy: &Policy,
    mut tables: Vec<TableDetail>,
    vars: &Vars,
) -> Result<Snapshot, String> {
    let introspected = Arc::new(tables.clone());
    let mut guard_policy = policy.clone();
    guard_policy.catalog = Some(to_catalog(&tables));
    let guard = Guard::new(guard_policy).map_err(|e| e.to_string())?;
    let writable = writable_tables(&guard, &tables);
    tables.retain(|t| guard.table_allowed(&name_parts(t)));
    if guard.has_row_filters() {
        // Under row filters a view (other than a trusted one) cannot be read: not listed.
        let dialect = policy.dialect;
        tables.retain_mut(|t| {
            let access = guard.read_access(&quoted_name(t, dialect), vars);
            t.row_filtered = access.is_row_filtered();
            access.is_readable()
        });
    }
    // A key into (or from) a table the agent may not read would name it and its columns.
    let allowed = |schema: &Option<String>, name: &str| match schema {
        Some(s) => guard.table_allowed(&[s.as_str(), name]),
        None => guard.table_allowed(&[name]),
    };
    for t in tables.iter_mut() {
        t.foreign_keys
            .retain(|fk| allowed(&fk.referenced_schema, &fk.referenced_table));
        t.referenced_by.retain(|r| allowed(&r.schema, &r.table));
    }
    for t in tables.iter_mut() {
        let parts: Vec<String> = name_parts(t).iter().map(|p| p.to_string()).collect();
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        for c in t.columns.iter_mut() {
            c.protected = guard.column_protected(&parts, &c.name);
        }
    }
    Ok(Snapshot {
        guard: Arc::new(guard),
        tables: Arc::new(tables),
        writable: Arc::new(writable),
        introspected,
    })
}

/// A table's name parts as the engine stores them (`["public", "artist"]` or `["artist"]`).
fn name_parts(t: &TableDetail) -> Vec<&str> {
    match &t.schema {
        Some(s) => vec![s.as_str(), t.name.as_str()],
        None => vec![t.name.as_str()],
    }
}
