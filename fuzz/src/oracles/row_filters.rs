//! The row filters' oracle: a guard with filters on `orders` and `customer`, and the check that
//! no approved read reaches a filtered table without its filter.

use std::ops::ControlFlow;
use std::sync::OnceLock;

use sqlgate::{Approved, Dialect, Guard, Policy};
use sqlparser::ast::{ObjectNamePart, TableFactor, Visit, Visitor};

use super::guards::{guard, per_dialect};

/// The top-level conjuncts of `condition`, printed (through the parentheses the rewrite puts
/// around a condition it puts a filter before).
fn conjuncts(condition: &sqlparser::ast::Expr) -> Vec<String> {
    use sqlparser::ast::{BinaryOperator, Expr};
    match condition {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut out = conjuncts(left);
            out.extend(conjuncts(right));
            out
        }
        Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                Expr::Nested(_)
                    | Expr::BinaryOp {
                        op: BinaryOperator::And,
                        ..
                    }
            ) =>
        {
            conjuncts(inner)
        }
        other => vec![other.to_string()],
    }
}

/// The top-level conjuncts of the ON condition of the outer join whose nullable side is the
/// table named `name` (by address) in `twj`.
fn nullable_on(
    twj: &sqlparser::ast::TableWithJoins,
    name: &sqlparser::ast::ObjectName,
) -> Option<Vec<String>> {
    use sqlparser::ast::{JoinConstraint, JoinOperator, TableFactor};
    let is = |factor: &TableFactor| matches!(factor, TableFactor::Table { name: n, .. } if std::ptr::eq(n, name));
    twj.joins.iter().enumerate().find_map(|(k, join)| {
        let (JoinOperator::Left(JoinConstraint::On(on))
        | JoinOperator::LeftOuter(JoinConstraint::On(on))
        | JoinOperator::Right(JoinConstraint::On(on))
        | JoinOperator::RightOuter(JoinConstraint::On(on))) = &join.join_operator
        else {
            return None;
        };
        let right = matches!(
            join.join_operator,
            JoinOperator::Right(_) | JoinOperator::RightOuter(_)
        );
        let nullable = if right {
            k == 0 && is(&twj.relation)
        } else {
            is(&join.relation)
        };
        nullable.then(|| conjuncts(on))
    })
}

/// One guard per dialect with row filters on `orders` and `customer` (`:t`).
pub fn row_filter_guard(dialect: Dialect) -> &'static Guard {
    static GUARDS: OnceLock<Vec<Guard>> = OnceLock::new();
    per_dialect(&GUARDS, dialect, |d| {
        let rows = serde_json::json!({
            "orders": "tenant_id = :t",
            "customer": "id IN (SELECT customer_id FROM orders WHERE tenant_id = :t)",
        });
        let mut policy = Policy::for_dialect(d);
        policy.rows = Some(serde_json::from_value(rows).expect("fuzz row filters"));
        policy
    })
}

/// The row filters' invariants: never a panic; a read approved under row filters is approved
/// by the plain guard of its dialect too (the rewrite adds only reads of the filtered tables),
/// and, unless a CTE takes a filtered table's name, every FROM reference to a filtered table in
/// the approved SQL is the inner table of a filter (`AS sqlgate_filtered`): none reads it bare.
pub fn row_filter_oracle(dialect: Dialect, sql: &str) -> Option<Approved> {
    let vars = sqlgate::Vars::new().with("t", 7);
    let first = row_filter_guard(dialect).check_with(sql, &vars).ok()?;
    let plain = guard(dialect, 1);
    if let Err(r) = plain.check(&first.sql) {
        panic!(
            "the filtered SQL is refused by the plain guard ({}: {}):\n  input:    {sql:?}\n  approved: {:?}",
            r.error.code, r.error.message, first.sql
        );
    }
    // Read in the guard's own dialect: strings and comments end where that engine ends them
    // (Snowflake and MySQL take `\'` as an escaped quote, the generic dialect does not).
    let parser_dialect = super::parser_dialect(dialect);
    let Ok(statements) = sqlparser::parser::Parser::parse_sql(parser_dialect.as_ref(), &first.sql)
    else {
        return Some(first);
    };
    let mut bare = Bare {
        found: None,
        cte_shadows: false,
        upper: dialect == Dialect::Snowflake,
        filtered_in_place: Vec::new(),
    };
    let _ = statements.visit(&mut bare);
    if let (Some(table), false) = (&bare.found, bare.cte_shadows) {
        panic!(
            "a filtered table is read without its filter ({table}):\n  input:    {sql:?}\n  approved: {:?}",
            first.sql
        );
    }
    Some(first)
}

/// Finds a filtered table that the approved SQL reads bare: neither the inner table of a filter
/// nor kept in place by a grouped SELECT with its filter first.
struct Bare {
    found: Option<String>,
    cte_shadows: bool,
    /// How the dialect stores an unquoted name: what a quoted name must equal exactly.
    upper: bool,
    /// Filtered tables a grouped SELECT keeps in place, its WHERE holding their filter.
    filtered_in_place: Vec<*const sqlparser::ast::ObjectName>,
}

impl Bare {
    /// A grouped SELECT keeps a filtered table in place and puts its filter first in
    /// the WHERE: `(q.tenant_id = 7)` for orders, `(q.id IN (SELECT customer_id FROM
    /// <filtered orders>` for customer, `q` its alias or name; the nullable side of an
    /// outer join (the joined table of a LEFT JOIN, the first table of a first RIGHT
    /// JOIN) gets it first in that join's ON instead.
    fn note_filtered_in_place(&mut self, select: &sqlparser::ast::Select) {
        let condition = select.selection.as_ref().map(conjuncts).unwrap_or_default();
        for twj in &select.from {
            for factor in
                std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation))
            {
                if let TableFactor::Table { name, alias, .. } = factor {
                    let q = alias.as_ref().map_or_else(
                        || name.0.last().map(ToString::to_string).unwrap_or_default(),
                        |a| a.name.to_string(),
                    );
                    let orders = format!("({q}.tenant_id = 7)");
                    let customer = format!(
                        "({q}.id IN (SELECT customer_id FROM (SELECT * FROM orders AS \
                         sqlgate_filtered WHERE sqlgate_filtered.tenant_id = 7)"
                    );
                    let last = name.0.last().map(ToString::to_string).unwrap_or_default();
                    let wanted = if last.eq_ignore_ascii_case("orders") {
                        orders
                    } else {
                        customer
                    };
                    let on = nullable_on(twj, name).unwrap_or_default();
                    if condition.iter().chain(&on).any(|c| c.starts_with(&wanted)) {
                        self.filtered_in_place.push(std::ptr::from_ref(name));
                    }
                }
            }
        }
    }
}

impl Visitor for Bare {
    type Break = ();
    fn pre_visit_query(&mut self, query: &sqlparser::ast::Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            if with.cte_tables.iter().any(|c| {
                let n = c.alias.name.value.to_ascii_lowercase();
                n == "orders" || n == "customer"
            }) {
                self.cte_shadows = true;
            }
        }
        if let sqlparser::ast::SetExpr::Select(select) = query.body.as_ref() {
            self.note_filtered_in_place(select);
        }
        ControlFlow::Continue(())
    }
    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if let TableFactor::Table { name, alias, .. } = factor {
            // `orders` unquoted in any case, or quoted as the dialect stores the unquoted
            // name: the filtered table in every dialect (`"Orders"` is another table where
            // quoted names are exact, and so is `"orders"` in Snowflake).
            let upper = self.upper;
            let is_filtered = |i: &sqlparser::ast::Ident| {
                let lower = i.value.to_ascii_lowercase();
                let stored = if upper {
                    lower.to_ascii_uppercase()
                } else {
                    lower.clone()
                };
                (lower == "orders" || lower == "customer")
                    && (i.quote_style.is_none() || i.value == stored)
            };
            let inner = alias
                .as_ref()
                .is_some_and(|a| a.name.value == "sqlgate_filtered");
            let in_place = self.filtered_in_place.contains(&std::ptr::from_ref(name));
            if let Some(ObjectNamePart::Identifier(last)) = name.0.last() {
                if is_filtered(last) && !inner && !in_place && self.found.is_none() {
                    self.found = Some(last.to_string());
                }
            }
        }
        ControlFlow::Continue(())
    }
}
