//! Whether a caller may read one table, asked directly: what a front end needs to list the
//! tables a caller can read and to describe one of them.

use crate::error::{ErrorCode, GuardError, Stage};
use crate::parse::is_table_path;
use crate::rows::Vars;

use super::Guard;

/// What [`Guard::read_access`] answers for one table name: the very decision a query reading
/// the table gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadAccess {
    /// A query may read the table.
    Readable {
        /// The table as the guard resolved it (as in [`crate::Approved::tables`]): the catalog's
        /// `schema.table` when a catalog knows it, else the name normalised to the dialect's
        /// folding.
        table: String,
        /// The row filters a read of it applies (the policy's table names), sorted; empty when
        /// its rows are not filtered.
        row_filters: Vec<String>,
    },
    /// A query may not read it: core's reason (`table_not_allowed`, `unknown_table`,
    /// `system_catalog`, `row_filter`, ...; `bad_request` when the name is not a table path).
    /// It carries no location: one would point into the query the guard composed, not into
    /// anything the caller wrote.
    Refused(GuardError),
}

impl ReadAccess {
    /// True when the table may be read.
    pub fn is_readable(&self) -> bool {
        matches!(self, ReadAccess::Readable { .. })
    }

    /// True when the table may be read and reads of it are row-filtered.
    pub fn is_row_filtered(&self) -> bool {
        matches!(self, ReadAccess::Readable { row_filters, .. } if !row_filters.is_empty())
    }
}

impl Guard {
    /// Whether a query may read the table `name` with `vars` bound to the row filters: the
    /// verdict of `SELECT 1 FROM <name>`. `name` is SQL text, a dotted path of identifiers
    /// ([`crate::is_table_path`]), quoted as the dialect quotes
    /// ([`crate::Dialect::quote_identifier`]) where a part needs it; anything else is refused
    /// as `bad_request`.
    pub fn read_access(&self, name: &str, vars: &Vars) -> ReadAccess {
        let name = name.trim();
        if !is_table_path(name, self.policy.dialect) {
            return ReadAccess::Refused(
                GuardError::new(
                    ErrorCode::BadRequest,
                    Stage::Precheck,
                    "not a table name: expected a table name, optionally schema-qualified",
                )
                .with_hint("name one table, e.g. `orders` or `public.orders`"),
            );
        }
        match self.check_with(&format!("SELECT 1 FROM {name}"), vars) {
            Ok(approved) => match approved.tables.into_iter().next() {
                Some(table) => ReadAccess::Readable {
                    table,
                    row_filters: approved.row_filters,
                },
                // Every table the walker resolves is listed; fail closed all the same.
                None => ReadAccess::Refused(GuardError::new(
                    ErrorCode::BadRequest,
                    Stage::Validate,
                    format!("`{name}` names no table"),
                )),
            },
            Err(rejection) => ReadAccess::Refused(GuardError {
                location: None,
                ..rejection.error
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Catalog, CatalogColumn, CatalogTable, Dialect, Policy, RowFilterRules, VarValue};

    fn table(name: &str) -> CatalogTable {
        CatalogTable {
            schema: Some("public".into()),
            name: name.into(),
            columns: vec![CatalogColumn {
                name: "tenant_id".into(),
                data_type: Some("integer".into()),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn guard(with_rows: bool) -> Guard {
        let mut policy = Policy::for_dialect(Dialect::Postgres);
        policy.tables.deny = vec!["secret".into()];
        policy.catalog = Some(Catalog {
            tables: vec![table("orders"), table("Order Lines"), table("secret")],
        });
        if with_rows {
            let rules: RowFilterRules =
                toml::from_str("\"public.orders\" = \"tenant_id = :tenant\"\n")
                    .expect("row filter rules");
            policy.rows = Some(rules);
        }
        Guard::new(policy).expect("policy compiles")
    }

    fn refused_code(access: ReadAccess) -> ErrorCode {
        match access {
            ReadAccess::Refused(e) => {
                assert_eq!(e.location, None);
                e.code
            }
            other => panic!("readable: {other:?}"),
        }
    }

    #[test]
    fn readable_tables_resolve_as_in_a_query() {
        let g = guard(false);
        let vars = Vars::new();
        let access = g.read_access("orders", &vars);
        assert_eq!(
            access,
            ReadAccess::Readable {
                table: "public.orders".into(),
                row_filters: vec![],
            }
        );
        assert!(access.is_readable() && !access.is_row_filtered());
        let quoted = Dialect::Postgres.quote_identifier("Order Lines");
        assert!(g
            .read_access(&format!("public.{quoted}"), &vars)
            .is_readable());
    }

    #[test]
    fn refusals_carry_cores_reason_without_location() {
        let g = guard(false);
        let vars = Vars::new();
        assert_eq!(
            refused_code(g.read_access("secret", &vars)),
            ErrorCode::TableNotAllowed
        );
        assert_eq!(
            refused_code(g.read_access("nope", &vars)),
            ErrorCode::UnknownTable
        );
        assert_eq!(
            refused_code(g.read_access("pg_class", &vars)),
            ErrorCode::SystemCatalog
        );
        for not_a_path in ["orders; drop table x", "orders, secret", "orders o", ""] {
            assert_eq!(
                refused_code(g.read_access(not_a_path, &vars)),
                ErrorCode::BadRequest,
                "{not_a_path}"
            );
        }
    }

    #[test]
    fn row_filters_are_named_and_need_their_variables() {
        let g = guard(true);
        assert_eq!(
            refused_code(g.read_access("orders", &Vars::new())),
            ErrorCode::RowFilter
        );
        let vars = Vars::new().with("tenant", VarValue::Int(7));
        let access = g.read_access("orders", &vars);
        assert!(access.is_row_filtered());
        assert_eq!(
            access,
            ReadAccess::Readable {
                table: "public.orders".into(),
                row_filters: vec!["public.orders".into()],
            }
        );
        assert!(!g.read_access("\"Order Lines\"", &vars).is_row_filtered());
    }
}
