//! The row cap: applied to the outermost query only, in the dialect's own form (`LIMIT`,
//! `FETCH FIRST`, `TOP`), so that no approved query can return more than `max_rows` rows.

use sqlparser::ast::{
    Expr, Fetch, LimitClause, OffsetRows, Query, SetExpr, Spanned, TopQuantity, Value,
    ValueWithSpan,
};

use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Location, Stage};
use crate::verdict::{LimitAction, LimitInfo};

fn not_literal(what: &str, query: &Query) -> GuardError {
    GuardError::new(
        ErrorCode::LimitNotLiteral,
        Stage::Rewrite,
        format!("{what}: the row cap needs a plain integer limit"),
    )
    .with_hint("write the limit as a plain integer, e.g. LIMIT 100")
    .at(location_of(query))
}

fn location_of(query: &Query) -> Option<Location> {
    let span = query.span();
    (span.start.line > 0).then_some(Location {
        line: span.start.line,
        column: span.start.column,
    })
}

/// An integer literal, or `None` for anything else (expressions, parameters, negatives).
fn literal(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Value(ValueWithSpan {
            value: Value::Number(n, _),
            ..
        }) => n.parse().ok(),
        Expr::Nested(inner) => literal(inner),
        _ => None,
    }
}

fn number(n: u64) -> Expr {
    Expr::Value(Value::Number(n.to_string(), false).into())
}

/// Decides the new limit given the one written (`None` when absent).
fn decide(original: Option<u64>, cap: u64) -> (LimitAction, u64) {
    match original {
        None => (LimitAction::Injected, cap),
        Some(n) if n <= cap => (LimitAction::Kept, n),
        Some(_) => (LimitAction::Clamped, cap),
    }
}

/// Applies `max_rows` to `query` (the outermost query) and reports what it did.
pub fn apply(
    query: &mut Query,
    max_rows: Option<u64>,
    dialect: Dialect,
) -> Result<LimitInfo, GuardError> {
    let Some(cap) = max_rows else {
        return Ok(LimitInfo {
            action: LimitAction::None,
            value: None,
            original: None,
        });
    };
    // `(SELECT ... LIMIT n)`: PostgreSQL refuses a second LIMIT outside the parentheses, so the
    // cap goes inside, where it means the same (nothing outside reorders or limits the rows).
    if query.limit_clause.is_none() && query.fetch.is_none() && query.order_by.is_none() {
        if let SetExpr::Query(inner) = query.body.as_mut() {
            return apply(inner, max_rows, dialect);
        }
    }
    if dialect.limits_rows_with_top_or_fetch() {
        refuse_non_tsql_limits(query)?;
    }
    if let Some(info) = cap_top(query, cap)? {
        return Ok(info);
    }
    if let Some(info) = cap_fetch(query, cap)? {
        return Ok(info);
    }
    cap_limit_clause(query, cap, dialect)
}

/// TOP on the outermost SELECT (SQL Server, also parsed for a few other dialects): the cap when
/// TOP is the query's only limit; otherwise a TOP above the cap is clamped and `None` lets the
/// FETCH or LIMIT beside it decide.
fn cap_top(query: &mut Query, cap: u64) -> Result<Option<LimitInfo>, GuardError> {
    let top = match query.body.as_mut() {
        SetExpr::Select(select) => select.top.as_mut(),
        _ => None,
    };
    let Some(top) = top else {
        return Ok(None);
    };
    if top.percent || top.with_ties {
        return Err(not_literal("TOP ... PERCENT / WITH TIES", query));
    }
    let written = match &top.quantity {
        Some(TopQuantity::Constant(n)) => Some(*n),
        Some(TopQuantity::Expr(e)) => match literal(e) {
            Some(n) => Some(n),
            None => return Err(not_literal(&format!("TOP ({e})"), query)),
        },
        None => None,
    };
    if query.limit_clause.is_none() && query.fetch.is_none() {
        let (action, value) = decide(written, cap);
        top.quantity = Some(match &top.quantity {
            Some(TopQuantity::Expr(_)) => TopQuantity::Expr(number(value)),
            _ => TopQuantity::Constant(value),
        });
        return Ok(Some(LimitInfo {
            action,
            value: Some(value),
            original: written,
        }));
    }
    if let Some(n) = written {
        if n > cap {
            top.quantity = Some(TopQuantity::Constant(cap));
        }
    }
    Ok(None)
}

/// A FETCH FIRST clause: the cap when the query has one (`None` when it has not).
fn cap_fetch(query: &mut Query, cap: u64) -> Result<Option<LimitInfo>, GuardError> {
    let Some(fetch) = &mut query.fetch else {
        return Ok(None);
    };
    if fetch.percent || fetch.with_ties {
        let what = if fetch.percent {
            "FETCH ... PERCENT"
        } else {
            "FETCH ... WITH TIES"
        };
        return Err(not_literal(what, query));
    }
    let written = match &fetch.quantity {
        Some(e) => match literal(e) {
            Some(n) => Some(n),
            None => return Err(not_literal(&format!("FETCH FIRST {e}"), query)),
        },
        // FETCH FIRST ROW ONLY
        None => Some(1),
    };
    let (action, value) = decide(written, cap);
    if action == LimitAction::Clamped {
        fetch.quantity = Some(number(value));
    }
    Ok(Some(LimitInfo {
        action,
        value: Some(value),
        original: written,
    }))
}

/// The LIMIT / OFFSET clause, or the cap injected in the dialect's form when there is none.
fn cap_limit_clause(
    query: &mut Query,
    cap: u64,
    dialect: Dialect,
) -> Result<LimitInfo, GuardError> {
    match &mut query.limit_clause {
        Some(LimitClause::LimitOffset { limit_by, .. }) if !limit_by.is_empty() => {
            Err(not_literal("LIMIT ... BY (a limit per group)", query))
        }
        // `OFFSET n ROWS` alone, the standard form (the only one T-SQL has): the cap is the
        // standard FETCH that goes with it. `LIMIT ... OFFSET n ROWS` is not T-SQL, nor
        // Snowflake, nor ANSI SQL.
        Some(LimitClause::LimitOffset {
            limit: None,
            offset: Some(offset),
            ..
        }) if dialect.limits_rows_with_top_or_fetch() || offset.rows != OffsetRows::None => {
            if dialect.limits_rows_with_top_or_fetch() && offset.rows == OffsetRows::None {
                offset.rows = OffsetRows::Rows;
            }
            query.fetch = Some(fetch_first(cap));
            Ok(LimitInfo {
                action: LimitAction::Injected,
                value: Some(cap),
                original: None,
            })
        }
        Some(LimitClause::LimitOffset { limit, .. }) => {
            let written = match limit {
                Some(e) => match literal(e) {
                    Some(n) => Some(n),
                    None => return Err(not_literal(&format!("LIMIT {e}"), query)),
                },
                // LIMIT ALL, or OFFSET alone.
                None => None,
            };
            let (action, value) = decide(written, cap);
            if action != LimitAction::Kept {
                *limit = Some(number(value));
            }
            Ok(LimitInfo {
                action,
                value: Some(value),
                original: written,
            })
        }
        Some(LimitClause::OffsetCommaLimit { limit, .. }) => {
            let Some(written) = literal(limit) else {
                return Err(not_literal(&format!("LIMIT {limit}"), query));
            };
            let (action, value) = decide(Some(written), cap);
            if action == LimitAction::Clamped {
                *limit = number(value);
            }
            Ok(LimitInfo {
                action,
                value: Some(value),
                original: Some(written),
            })
        }
        None => {
            inject(query, cap, dialect);
            Ok(LimitInfo {
                action: LimitAction::Injected,
                value: Some(cap),
                original: None,
            })
        }
    }
}

/// Limit forms sqlparser accepts in its SQL Server dialect but T-SQL does not have: refused
/// rather than passed on as SQL the server cannot run, whose cap would then mean nothing.
fn refuse_non_tsql_limits(query: &Query) -> Result<(), GuardError> {
    let refuse =
        |message: &str| {
            Err(GuardError::new(ErrorCode::UnsupportedSyntax, Stage::Rewrite, message)
            .with_hint(
                "use SELECT TOP (n) ..., or ORDER BY ... OFFSET m ROWS FETCH NEXT n ROWS ONLY",
            )
            .at(location_of(query)))
        };
    if matches!(
        &query.limit_clause,
        Some(LimitClause::OffsetCommaLimit { .. })
            | Some(LimitClause::LimitOffset { limit: Some(_), .. })
    ) {
        return refuse("T-SQL has no LIMIT clause");
    }
    let top = matches!(query.body.as_ref(), SetExpr::Select(s) if s.top.is_some());
    let offset = matches!(
        &query.limit_clause,
        Some(LimitClause::LimitOffset {
            offset: Some(_),
            ..
        })
    );
    if top && (offset || query.fetch.is_some()) {
        return refuse("T-SQL does not combine TOP with OFFSET / FETCH");
    }
    Ok(())
}

/// Adds the cap to a query that has none, in the dialect's form.
fn inject(query: &mut Query, cap: u64, dialect: Dialect) {
    if dialect.limits_rows_with_top_or_fetch() {
        if let SetExpr::Select(select) = query.body.as_mut() {
            if query.order_by.is_none() {
                select.top = Some(sqlparser::ast::Top {
                    with_ties: false,
                    percent: false,
                    quantity: Some(TopQuantity::Constant(cap)),
                });
                return;
            }
        }
        // T-SQL has no LIMIT: OFFSET ... FETCH needs an ORDER BY.
        if let (None, Some(null)) = (&query.order_by, select_null()) {
            query.order_by = Some(sqlparser::ast::OrderBy {
                kind: sqlparser::ast::OrderByKind::Expressions(vec![sqlparser::ast::OrderByExpr {
                    expr: Expr::Subquery(Box::new(null)),
                    options: sqlparser::ast::OrderByOptions {
                        sort: None,
                        nulls_first: None,
                    },
                    with_fill: None,
                }]),
                interpolate: None,
            });
        }
        query.limit_clause = Some(LimitClause::LimitOffset {
            limit: None,
            offset: Some(sqlparser::ast::Offset {
                value: number(0),
                rows: sqlparser::ast::OffsetRows::Rows,
            }),
            limit_by: vec![],
        });
        query.fetch = Some(fetch_first(cap));
        return;
    }
    query.limit_clause = Some(LimitClause::LimitOffset {
        limit: Some(number(cap)),
        offset: None,
        limit_by: vec![],
    });
}

/// `FETCH FIRST n ROWS ONLY`.
fn fetch_first(n: u64) -> Fetch {
    Fetch {
        with_ties: false,
        percent: false,
        quantity: Some(number(n)),
    }
}

/// `(SELECT NULL)`, the neutral ORDER BY T-SQL needs before OFFSET ... FETCH.
fn select_null() -> Option<Query> {
    sqlparser::parser::Parser::new(&sqlparser::dialect::MsSqlDialect {})
        .try_with_sql("SELECT NULL")
        .and_then(|mut p| p.parse_query())
        .ok()
        .map(|q| *q)
}
