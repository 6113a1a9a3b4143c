//! The fuzzed policies and their guards, each compiled once: three per dialect for the byte
//! targets (the input's selector byte picks one), and the one-per-dialect helper of the mutation
//! and row-filter oracles.

use std::sync::OnceLock;

use sqlgate::{ColumnRules, Dialect, Guard, Policy, TableRules};

/// Number of policies per dialect.
pub const POLICIES: usize = 3;

/// The policies every dialect is fuzzed with: 0 the default, 1 no row cap, 2 tables and columns
/// denied.
pub fn policy(dialect: Dialect, which: usize) -> Policy {
    let base = Policy::for_dialect(dialect);
    match which % POLICIES {
        0 => base,
        1 => Policy {
            max_rows: None,
            ..base
        },
        _ => Policy {
            tables: TableRules {
                allow: Vec::new(),
                deny: vec!["employee".into(), "secret.*".into()],
            },
            columns: ColumnRules {
                deny: vec!["customer.email".into(), "*.ssn".into()],
            },
            ..base
        },
    }
}

/// One compiled guard per (dialect, policy), built once.
pub fn guard(dialect: Dialect, which: usize) -> &'static Guard {
    static GUARDS: OnceLock<Vec<Guard>> = OnceLock::new();
    let guards = GUARDS.get_or_init(|| {
        Dialect::ALL
            .iter()
            .flat_map(|&d| (0..POLICIES).map(move |p| (d, p)))
            .map(|(d, p)| Guard::new(policy(d, p)).expect("fuzz policies compile"))
            .collect()
    });
    let index = Dialect::ALL.iter().position(|&d| d == dialect).unwrap_or(0);
    &guards[index * POLICIES + which % POLICIES]
}

/// Splits a fuzz input into (dialect, policy index, SQL).
pub fn split_input(data: &[u8]) -> Option<(Dialect, usize, String)> {
    let (&selector, rest) = data.split_first()?;
    let dialect = Dialect::ALL[selector as usize % Dialect::ALL.len()];
    let which = (selector as usize / Dialect::ALL.len()) % POLICIES;
    Some((dialect, which, String::from_utf8_lossy(rest).into_owned()))
}

/// The guard of `dialect` among one guard per dialect, each compiled once (in `guards`) from
/// `policy(dialect)`.
pub(super) fn per_dialect(
    guards: &'static OnceLock<Vec<Guard>>,
    dialect: Dialect,
    policy: impl Fn(Dialect) -> Policy,
) -> &'static Guard {
    let guards = guards.get_or_init(|| {
        Dialect::ALL
            .iter()
            .map(|&d| Guard::new(policy(d)).expect("fuzz policies compile"))
            .collect()
    });
    let index = Dialect::ALL.iter().position(|&d| d == dialect).unwrap_or(0);
    &guards[index]
}
