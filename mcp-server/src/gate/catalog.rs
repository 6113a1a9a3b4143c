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
}

/// Quotes an identifier exactly (double quotes, doubled inside).
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// True when `name` is a dotted path of bare or double-quoted identifiers.
pub fn is_table_path(name: &str) -> bool {
    let mut rest = name.trim();
    if rest.is_empty() || rest.len() > 512 {
        return false;
    }
    loop {
        if let Some(r) = rest.strip_prefix('"') {
            let mut chars = r.char_indices().peekable();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                if c == '"' {
                    if chars.peek().map(|(_, c)| *c) == Some('"') {
                        chars.next();
                    } else {
                        end = Some(i);
                        break;
                    }
                } else if c.is_control() {
                    return false;
                }
            }
            match end {
                Some(i) if i > 0 => rest = &r[i + 1..],
                _ => return false,
            }
        } else {
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(rest.len());
            let first = rest.chars().next();
            if len == 0 || first.is_some_and(|c| c.is_ascii_digit() || c == '$') {
                return false;
            }
            rest = &rest[len..];
        }
        if rest.is_empty() {
            return true;
        }
        match rest.strip_prefix('.') {
            Some(r) => rest = r,
            None => return false,
        }
    }
}

/// A table's name as SQL: each part quoted the dialect's way, exactly as the engine stores it.
fn quoted_name(t: &TableDetail, dialect: Dialect) -> String {
    let quote = |part: &str| match dialect {
        Dialect::Mysql => format!("`{}`", part.replace('`', "``")),
        _ => quote_ident(part),
    };
    name_parts(t)
        .iter()
        .map(|p| quote(p))
        .collect::<Vec<_>>()
        .join(".")
}

/// The guard for the caller's policy plus the catalog, and the tables it lets queries read, with
/// their protected columns and row filters marked (core decides all three: `table_allowed`,
/// `column_protected`, and, under row filters, whether `SELECT 1 FROM t` with the caller's
/// variables is approved and which filters it applies).
pub fn build_snapshot(
    policy: &Policy,
    mut tables: Vec<TableDetail>,
    vars: &Vars,
) -> Result<Snapshot, String> {
    let mut guard_policy = policy.clone();
    guard_policy.catalog = Some(to_catalog(&tables));
    let guard = Guard::new(guard_policy).map_err(|e| e.to_string())?;
    let writable = writable_tables(&guard, &tables);
    tables.retain(|t| guard.table_allowed(&name_parts(t)));
    if guard.has_row_filters() {
        // Under row filters a view (other than a trusted one) cannot be read: not listed.
        let dialect = policy.dialect;
        tables.retain_mut(|t| {
            match guard.check_with(&format!("SELECT 1 FROM {}", quoted_name(t, dialect)), vars) {
                Ok(approved) => {
                    t.row_filtered = !approved.row_filters.is_empty();
                    true
                }
                Err(_) => false,
            }
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
    })
}

/// A table's name parts as the engine stores them (`["public", "artist"]` or `["artist"]`).
fn name_parts(t: &TableDetail) -> Vec<&str> {
    match &t.schema {
        Some(s) => vec![s.as_str(), t.name.as_str()],
        None => vec![t.name.as_str()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_paths() {
        assert!(is_table_path("orders"));
        assert!(is_table_path("public.orders"));
        assert!(is_table_path("\"Order Lines\""));
        assert!(is_table_path("\"a\"\"b\".c"));
        assert!(!is_table_path("orders; drop table x"));
        assert!(!is_table_path("a..b"));
        assert!(!is_table_path(""));
        assert!(!is_table_path("1abc"));
        assert!(!is_table_path("\"\""));
    }
}
