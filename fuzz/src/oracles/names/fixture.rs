//! The name-resolution fixture and policy ("PII"): the shared engine schema, its protected table
//! and columns, the denied table, the dialects the shapes run in, and their compiled guards.

use std::sync::OnceLock;

use sqlgate::{ColumnRules, Dialect, Guard, Policy, TableRules};

/// The protected table of the name-resolution policy.
pub const PROTECTED_TABLE: &str = "customer";
/// Its protected columns.
pub const PROTECTED_COLUMNS: &[&str] = &["email", "phone"];
/// The denied table of the name-resolution policy.
pub const DENIED_TABLE: &str = "employee";

/// The shared engine fixture (see tests/vectors and the engine suite): table, columns in order.
pub const FIXTURE: &[(&str, &[&str])] = &[
    (
        "customer",
        &[
            "customer_id",
            "first_name",
            "last_name",
            "email",
            "phone",
            "country",
            "support_rep_id",
        ],
    ),
    (
        "employee",
        &["employee_id", "first_name", "last_name", "email", "salary"],
    ),
    (
        "invoice",
        &["invoice_id", "customer_id", "total", "billing_country"],
    ),
    ("t", &["a", "b"]),
];

/// The dialects the name-resolution shapes run in: the engines this project tests against.
pub const NAME_DIALECTS: [Dialect; 4] = [
    Dialect::Postgres,
    Dialect::Mysql,
    Dialect::Sqlite,
    Dialect::Duckdb,
];

/// The fixture as a catalog.
pub fn fixture_catalog() -> sqlgate::Catalog {
    sqlgate::Catalog {
        tables: FIXTURE
            .iter()
            .map(|(name, cols)| sqlgate::CatalogTable {
                name: (*name).to_string(),
                columns: cols
                    .iter()
                    .map(|c| sqlgate::CatalogColumn {
                        name: (*c).to_string(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
    }
}

/// The name-resolution policy ("PII"): `tables.deny employee`, `columns.deny customer.email,
/// customer.phone`, with or without the fixture as catalog.
pub fn names_policy(dialect: Dialect, catalog: bool) -> Policy {
    Policy {
        tables: TableRules {
            allow: Vec::new(),
            deny: vec![DENIED_TABLE.into()],
        },
        columns: ColumnRules {
            deny: PROTECTED_COLUMNS
                .iter()
                .map(|c| format!("{PROTECTED_TABLE}.{c}"))
                .collect(),
        },
        catalog: catalog.then(fixture_catalog),
        ..Policy::for_dialect(dialect)
    }
}

/// One compiled name-resolution guard per (dialect of [`NAME_DIALECTS`], catalog or not).
pub fn names_guard(dialect: Dialect, catalog: bool) -> &'static Guard {
    static GUARDS: OnceLock<Vec<Guard>> = OnceLock::new();
    let guards = GUARDS.get_or_init(|| {
        NAME_DIALECTS
            .iter()
            .flat_map(|&d| [false, true].map(move |c| (d, c)))
            .map(|(d, c)| Guard::new(names_policy(d, c)).expect("names policies compile"))
            .collect()
    });
    let index = NAME_DIALECTS
        .iter()
        .position(|&d| d == dialect)
        .unwrap_or(0);
    &guards[index * 2 + usize::from(catalog)]
}
