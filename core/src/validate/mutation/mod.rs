//! One data-modifying statement (INSERT, UPDATE, DELETE, MERGE): its target, checked against
//! `writes.tables`; the columns it writes, none of them protected; and everything it reads (WHERE,
//! SET values, FROM / USING, the SELECT of an INSERT, a MERGE source, RETURNING), checked by the
//! very walker that checks reads, with the target in scope under its alias.

use std::collections::BTreeSet;

use sqlparser::ast::{Query, SetExpr, Spanned, Statement};

use super::diagnostics as refuse;
use super::scope::Scope;
use super::{coverage, span_location, Analysis, Context, Walker};
use crate::class::QueryClass;
use crate::error::GuardError;
use crate::writes::WritePolicy;

mod insert;
mod merge;
mod target;
mod update;
mod written;

/// What a checked mutation modifies and reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutationAnalysis {
    /// What it reads besides the target, as for a query.
    pub reads: Analysis,
    /// The target's display name.
    pub target: String,
    /// The target's (folded) name parts, as resolved.
    pub target_parts: Vec<String>,
    /// Columns of the target written (folded); `*` for all of them, names unknown.
    pub columns_written: BTreeSet<String>,
    /// A condition restricts the rows touched (WHERE naming a column, or a MERGE's ON).
    pub has_where: bool,
    /// `mutation_delete` when the statement can delete rows, else `mutation_create`.
    pub class: QueryClass,
    /// The SELECT of the rows it touches: filled in by the guard from the final tree, after
    /// the row filters (`guard/touched_rows.rs`).
    pub touched_rows: Option<String>,
}

/// Validates one mutation (or `WITH ... <mutation>`): target, written columns, reads.
pub fn analyze_mutation(
    statement: &Statement,
    ctx: &Context<'_>,
    writes: &WritePolicy,
) -> Result<MutationAnalysis, GuardError> {
    let mut walker = Walker::new(ctx);
    let mut found = MutationAnalysis {
        reads: Analysis::default(),
        target: String::new(),
        target_parts: Vec::new(),
        columns_written: BTreeSet::new(),
        has_where: false,
        class: QueryClass::MutationCreate,
        touched_rows: None,
    };
    walker.mutation_statement(statement, None, writes, &mut found)?;
    let parameters = coverage::verify(statement, std::mem::take(&mut walker.covered))?;
    if found.columns_written.contains("*") {
        // Every column, names unknown: listing some of them would suggest the others are safe.
        found.columns_written = BTreeSet::from(["*".to_string()]);
    }
    found.reads = walker.analysis;
    found.reads.parameters = parameters;
    Ok(found)
}

impl Walker<'_, '_> {
    fn mutation_statement(
        &mut self,
        statement: &Statement,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        match statement {
            Statement::Insert(insert) => self.insert(insert, parent, writes, found),
            Statement::Update(update) => self.update(update, parent, writes, found),
            Statement::Delete(delete) => self.delete(delete, parent, writes, found),
            Statement::Merge(merge) => self.merge(merge, parent, writes, found),
            Statement::Query(query) => self.with_mutation(query, writes, found),
            other => Err(refuse::not_a_mutation(other, span_location(other.span()))),
        }
    }

    /// `WITH ... INSERT / UPDATE / DELETE / MERGE`: the CTEs are reads the mutation sees.
    fn with_mutation(
        &mut self,
        query: &Query,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        self.covered.query();
        let location = span_location(query.span());
        let inner = match query.body.as_ref() {
            SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) | SetExpr::Merge(s) => s,
            _ => return Err(refuse::not_understood(location)),
        };
        let Query {
            with,
            body: _,
            order_by,
            limit_clause,
            fetch,
            locks,
            for_clause,
            settings,
            format_clause,
            pipe_operators,
        } = query;
        if order_by.is_some()
            || limit_clause.is_some()
            || fetch.is_some()
            || !locks.is_empty()
            || for_clause.is_some()
            || settings.is_some()
            || format_clause.is_some()
            || !pipe_operators.is_empty()
        {
            return Err(refuse::mutation_clause(
                "a clause after the statement",
                location,
            ));
        }
        let mut scope = Scope::child(None);
        if let Some(with) = with {
            self.with_clause(with, &mut scope, None)?;
        }
        self.mutation_statement(inner, Some(&scope), writes, found)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::guard;
    use crate::Guard;

    /// `customer.email` / `customer.phone` protected, `employee` denied; `orders` and
    /// `customer` writable, both classes.
    const WRITES: &str = r#"{"tables": {"deny": ["employee"]},
        "columns": {"deny": ["customer.email", "customer.phone"]},
        "writes": {"tables": ["orders", "customer"],
                   "classes": ["mutation_create", "mutation_delete"]}}"#;

    fn code(guard: &Guard, sql: &str) -> Option<String> {
        guard
            .check_mutation(sql)
            .err()
            .map(|r| r.error.code.as_str().to_string())
    }

    #[test]
    fn the_target_is_in_scope_under_its_alias_only() {
        let g = guard(WRITES, "postgres");
        // `c` names the target: `c.email` is the protected column, in every clause.
        for sql in [
            "UPDATE customer AS c SET first_name = 'x' WHERE c.email = ''",
            "DELETE FROM customer c WHERE c.phone IS NULL",
            "UPDATE customer c SET first_name = 'x' WHERE c.customer_id = 1 RETURNING c.email",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("column_not_allowed"),
                "{sql}"
            );
        }
        // An alias that reuses another table's name still names the target: `orders.email` here
        // is the target's column, not `orders`'s, and `orders` has no protected columns.
        assert_eq!(
            code(
                &g,
                "UPDATE orders AS customer SET status = 'x' WHERE customer.email = ''"
            ),
            None
        );
    }

    #[test]
    fn excluded_is_the_target_row_and_keeps_its_protected_columns() {
        let g = guard(WRITES, "postgres");
        let upsert = "INSERT INTO customer (customer_id, first_name) VALUES (1, 'a') \
                      ON CONFLICT (customer_id) DO UPDATE SET first_name = ";
        assert_eq!(code(&g, &format!("{upsert}excluded.first_name")), None);
        assert_eq!(
            code(&g, &format!("{upsert}excluded.email")).as_deref(),
            Some("column_not_allowed")
        );
        let g = guard(WRITES, "sqlite");
        assert_eq!(
            code(&g, &format!("{upsert}excluded.phone")).as_deref(),
            Some("column_not_allowed")
        );
    }

    #[test]
    fn a_where_bounds_only_when_it_names_a_column() {
        let g = guard(WRITES, "postgres");
        for bounded in [
            "DELETE FROM orders WHERE id = 1",
            "DELETE FROM orders WHERE status IN ('a', 'b')",
            "DELETE FROM orders o WHERE EXISTS (SELECT 1 FROM customer c WHERE c.customer_id = o.id)",
        ] {
            assert_eq!(code(&g, bounded), None, "{bounded}");
        }
        for unbounded in [
            "DELETE FROM orders WHERE 2 > 1",
            "DELETE FROM orders WHERE NULL IS NULL",
            "DELETE FROM orders WHERE (SELECT 1) = 1",
        ] {
            assert_eq!(
                code(&g, unbounded).as_deref(),
                Some("unbounded_mutation"),
                "{unbounded}"
            );
        }
    }

    #[test]
    fn a_source_may_not_take_the_targets_name() {
        let g = guard(WRITES, "mssql");
        for sql in [
            "UPDATE orders SET status = 'x' FROM product AS orders WHERE orders.id = 1",
            "UPDATE customer SET first_name = 'x' FROM orders o JOIN product customer ON o.id = customer.id WHERE o.id = 1",
        ] {
            assert_eq!(code(&g, sql).as_deref(), Some("unsupported_syntax"), "{sql}");
        }
        let g = guard(WRITES, "postgres");
        assert_eq!(
            code(
                &g,
                "DELETE FROM orders o USING customer AS o WHERE o.id = 1"
            )
            .as_deref(),
            Some("unsupported_syntax")
        );
        assert_eq!(
            code(&g, "MERGE INTO orders USING customer AS orders ON orders.id = 1 WHEN MATCHED THEN DELETE")
                .as_deref(),
            Some("unsupported_syntax")
        );
        // A self-join under another alias is fine.
        assert_eq!(
            code(
                &g,
                "UPDATE orders SET status = o2.status FROM orders o2 WHERE o2.id = orders.id + 1"
            ),
            None
        );
    }

    #[test]
    fn what_is_written_is_reported() {
        let g = guard(WRITES, "postgres");
        let approved = g
            .check_mutation(
                "INSERT INTO orders (id, status) SELECT customer_id, first_name FROM customer \
                 ON CONFLICT (id) DO UPDATE SET status = excluded.status, note = 'x'",
            )
            .expect("allowed");
        assert_eq!(approved.target, "orders");
        assert_eq!(approved.columns_written, ["id", "note", "status"]);
        assert_eq!(approved.tables_read, ["customer"]);
        assert!(!approved.has_where);
        // A table the statement both reads and writes is read through the read checks.
        let approved = g
            .check_mutation(
                "DELETE FROM orders WHERE id IN (SELECT id FROM orders WHERE status = 'x')",
            )
            .expect("allowed");
        assert_eq!(approved.tables_read, ["orders"]);
    }
}
