//! Unit tests of the compiled access policy.
use super::*;
use crate::policy::{ColumnRules, TableRules};

fn s(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

fn policy(allow: &[&str], deny: &[&str], cols: &[&str]) -> AccessPolicy {
    AccessPolicy::new(&Policy {
        tables: TableRules {
            allow: allow.iter().map(|s| s.to_string()).collect(),
            deny: deny.iter().map(|s| s.to_string()).collect(),
        },
        columns: ColumnRules {
            deny: cols.iter().map(|s| s.to_string()).collect(),
        },
        ..Policy::default()
    })
    .unwrap()
}

#[test]
fn allow_and_deny() {
    let p = policy(&["public.*"], &["secrets"], &[]);
    assert!(p.resolve(&s(&["orders"])).is_ok());
    assert!(p.resolve(&s(&["public", "orders"])).is_ok());
    assert!(matches!(
        p.resolve(&s(&["sales", "orders"])),
        Err(TableRefusal::NotAllowed(_))
    ));
    assert!(matches!(
        p.resolve(&s(&["secrets"])),
        Err(TableRefusal::NotAllowed(_))
    ));
    assert!(matches!(
        p.resolve(&s(&["public", "secrets"])),
        Err(TableRefusal::NotAllowed(_))
    ));
    assert!(matches!(
        p.resolve(&s(&["pg_class"])),
        Err(TableRefusal::SystemCatalog)
    ));
}

#[test]
fn protected_columns() {
    let p = policy(&[], &[], &["customer.email", "*.ssn", "hr.staff.salary"]);
    assert_eq!(
        p.resolve(&s(&["customer"])).unwrap().protected,
        s(&["email", "ssn"])
    );
    assert_eq!(
        p.resolve(&s(&["staff"])).unwrap().protected,
        s(&["salary", "ssn"])
    );
    assert_eq!(
        p.resolve(&s(&["other", "staff"])).unwrap().protected,
        s(&["ssn"])
    );
}

#[test]
fn bad_column_rule_names_the_field() {
    let e = AccessPolicy::new(&Policy {
        columns: ColumnRules {
            deny: vec!["email".into()],
        },
        ..Policy::default()
    })
    .unwrap_err();
    assert_eq!(e.field, "columns.deny[0]");
}
