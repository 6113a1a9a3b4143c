//! Where a filter may go in place, in a SELECT's WHERE (or an outer join's ON) instead of a
//! derived table, and when: a grouped SELECT, or one whose select list names a table's whole
//! row; which items of a FROM keep their rows through its joins, and the filter put ahead of the
//! statement's own condition.

use std::ops::ControlFlow;

use sqlparser::ast::{
    visit_expressions, BinaryOperator, Expr, Join, JoinConstraint, JoinOperator, Select,
    SelectItem, TableFactor, TableWithJoins,
};

/// True when an expression of `select`'s select list is a bare name that is also the alias (or
/// the name) of a table of its FROM: PostgreSQL reads it as that table's whole row (`SELECT i
/// FROM invoice i`, `row_to_json(i)`), typed by the table, which a derived table would turn into
/// an anonymous `record` whose fields lose their names. A column that happens to have such a
/// name only makes the filter go in place, which is equivalent.
pub(crate) fn names_a_whole_row(select: &Select) -> bool {
    let names: Vec<&str> = select
        .from
        .iter()
        .flat_map(|twj| std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation)))
        .filter_map(|factor| match factor {
            TableFactor::Table { name, alias, .. } => match alias {
                Some(a) => Some(a.name.value.as_str()),
                None => name
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.as_str()),
            },
            _ => None,
        })
        .collect();
    if names.is_empty() {
        return false;
    }
    select.projection.iter().any(|item| {
        let expr = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => return false,
        };
        visit_expressions(expr, |e| match e {
            Expr::Identifier(id) if names.iter().any(|n| n.eq_ignore_ascii_case(&id.value)) => {
                ControlFlow::Break(())
            }
            _ => ControlFlow::Continue(()),
        })
        .is_break()
    })
}

/// `filter AND (condition)`: the filter first, so that engines which evaluate a conjunction
/// left to right (PostgreSQL among equal-cost clauses, SQLite, MySQL) test the statement's own
/// condition only on rows the filter admits, and an error it raises (a division by zero) tells
/// nothing about other rows.
pub(crate) fn filter_first(filter: Expr, condition: Option<Expr>) -> Expr {
    match condition {
        None => filter,
        Some(condition) => Expr::BinaryOp {
            left: Box::new(filter),
            op: BinaryOperator::And,
            right: Box::new(Expr::Nested(Box::new(condition))),
        },
    }
}

/// The item on the nullable side of join `k` of `twj` when that join is an outer join with an
/// ON condition: the joined item of a LEFT JOIN, the first item of a first RIGHT JOIN (the left
/// side of a later RIGHT JOIN is the whole join before it). Not a FULL JOIN, whose both sides
/// keep their unmatched rows.
pub(super) fn nullable_side(twj: &TableWithJoins, k: usize) -> Option<&TableFactor> {
    let join = twj.joins.get(k)?;
    match &join.join_operator {
        JoinOperator::Left(JoinConstraint::On(_))
        | JoinOperator::LeftOuter(JoinConstraint::On(_)) => Some(&join.relation),
        JoinOperator::Right(JoinConstraint::On(_))
        | JoinOperator::RightOuter(JoinConstraint::On(_))
            if k == 0 =>
        {
            Some(&twj.relation)
        }
        _ => None,
    }
}

/// The ON condition of an outer join.
pub(super) fn on_condition(join: &mut Join) -> Option<&mut Expr> {
    match &mut join.join_operator {
        JoinOperator::Left(JoinConstraint::On(condition))
        | JoinOperator::LeftOuter(JoinConstraint::On(condition))
        | JoinOperator::Right(JoinConstraint::On(condition))
        | JoinOperator::RightOuter(JoinConstraint::On(condition)) => Some(condition),
        _ => None,
    }
}

/// True when no item of `twj` can read another item's rows before the WHERE: plain tables and
/// derived tables that are not LATERAL.
pub(super) fn plain_items(twj: &TableWithJoins) -> bool {
    std::iter::once(&twj.relation)
        .chain(twj.joins.iter().map(|j| &j.relation))
        .all(|f| match f {
            TableFactor::Table { args, .. } => args.is_none(),
            TableFactor::Derived { lateral, .. } => !lateral,
            _ => false,
        })
}

/// The items of `twj` whose every row the joins keep (or drop with the row that holds them),
/// so that a condition on them in the WHERE removes what filtering them first would: the first
/// item when every join keeps its left side, and an inner- or right-joined item when every
/// later join keeps its left side.
pub(super) fn preserved(twj: &TableWithJoins) -> Vec<&TableFactor> {
    let inner = |op: &JoinOperator| {
        matches!(
            op,
            JoinOperator::Join(_) | JoinOperator::Inner(_) | JoinOperator::CrossJoin(_)
        )
    };
    let keeps_left = |op: &JoinOperator| {
        inner(op) || matches!(op, JoinOperator::Left(_) | JoinOperator::LeftOuter(_))
    };
    let mut out = Vec::new();
    for (k, join) in twj.joins.iter().enumerate() {
        let rest_keep = twj
            .joins
            .get(k + 1..)
            .unwrap_or_default()
            .iter()
            .all(|j| keeps_left(&j.join_operator));
        let keeps_right = inner(&join.join_operator)
            || matches!(
                join.join_operator,
                JoinOperator::Right(_) | JoinOperator::RightOuter(_)
            );
        if keeps_right && rest_keep {
            out.push(&join.relation);
        }
    }
    if twj.joins.iter().all(|j| keeps_left(&j.join_operator)) {
        out.push(&twj.relation);
    }
    out
}
