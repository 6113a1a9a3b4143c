//! The mutation entry's oracle: its guard (a `writes` section next to denied tables and columns)
//! and the invariants of an approved mutation.

use std::sync::OnceLock;

use sqlgate::{
    ApprovedMutation, ColumnRules, Dialect, Guard, Policy, QueryClass, TableRules, WriteRules,
};

use super::guards::per_dialect;
use super::statements::plain_statement_count;

/// One guard per dialect with a denied table (`employee`), protected columns
/// (`customer.email`, `*.ssn`) and a `writes` section: `orders`, `customer`, `t` and `users`
/// writable, both mutation classes.
pub fn mutation_guard(dialect: Dialect) -> &'static Guard {
    static GUARDS: OnceLock<Vec<Guard>> = OnceLock::new();
    per_dialect(&GUARDS, dialect, |d| Policy {
        tables: TableRules {
            allow: Vec::new(),
            deny: vec!["employee".into()],
        },
        columns: ColumnRules {
            deny: vec!["customer.email".into(), "*.ssn".into()],
        },
        writes: Some(WriteRules::new(
            &["orders", "customer", "t", "users"],
            &[QueryClass::MutationCreate, QueryClass::MutationDelete],
        )),
        ..Policy::for_dialect(d)
    })
}

/// The mutation entry's invariants: never a panic; an approved mutation is one statement of a
/// mutation class that [`sqlgate::classify`] agrees with, that the read entry refuses, whose
/// target is never a denied table, and that re-checks to the identical verdict (fixed point).
pub fn mutation_fixed_point(dialect: Dialect, sql: &str) -> Option<ApprovedMutation> {
    let g = mutation_guard(dialect);
    let first = g.check_mutation(sql).ok()?;
    assert!(
        matches!(
            first.query_class,
            QueryClass::MutationCreate | QueryClass::MutationDelete
        ),
        "approved mutation of class {}: {sql:?}",
        first.query_class
    );
    assert_eq!(
        plain_statement_count(sql, dialect),
        Some(1),
        "approved mutation, but the token stream holds more statements: {sql:?}"
    );
    assert_eq!(
        sqlgate::classify(&first.sql, dialect),
        first.query_class,
        "approved mutation classifies differently: {:?}",
        first.sql
    );
    assert!(
        g.check(&first.sql).is_err(),
        "the read entry approved a mutation: {:?}",
        first.sql
    );
    // The last part of a display name (`employee`, `public.employee`, `"Employee"`) is the
    // table; `xemployee` or `\u{fffd}employee` is another table.
    let is_denied = |name: &str| {
        name.rsplit('.').next().is_some_and(|last| {
            last.trim_matches(|c| c == '"' || c == '`' || c == '[' || c == ']')
                .eq_ignore_ascii_case("employee")
        })
    };
    assert!(
        !is_denied(&first.target) && !first.tables_read.iter().any(|t| is_denied(t)),
        "denied table reached: {sql:?} -> {first:?}"
    );
    let second = g.check_mutation(&first.sql).unwrap_or_else(|r| {
        panic!(
            "approved mutation refused on re-check ({}: {}):\n  input:    {sql:?}\n  approved: {:?}",
            r.error.code, r.error.message, first.sql
        )
    });
    assert_eq!(
        second, first,
        "mutation not a fixed point for input {sql:?}"
    );
    Some(first)
}
