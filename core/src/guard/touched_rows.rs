//! The SELECT of the rows an approved mutation touches, built from its checked tree (row filters
//! included): a caller reads them in the mutation's transaction just before it runs, in a
//! preview and again at commit, so that a commit touching other rows than the previewed ones
//! (a concurrent swap of one matching row for another) is refused even when their count is the
//! same. It reads what the statement reads (its tables, under its WHERE, ORDER BY and LIMIT), so
//! it needs no check of its own.

use sqlparser::ast::{
    Delete, Expr, FromTable, Insert, OrderByExpr, SetExpr, Statement, Update, UpdateTableFromKind,
};

use crate::dialect::Dialect;

/// The SELECT reading the rows `statement` (checked, its row filters applied) touches, in
/// `dialect` (for an INSERT ... SELECT, the rows it inserts); `None` for INSERT ... VALUES and
/// MERGE, and for the dialects no backend serves. MySQL's read locks the rows (`FOR UPDATE`), so
/// that the statement touches the rows read; a PostgreSQL caller runs it in a REPEATABLE READ
/// transaction for the same end; SQLite's write transaction excludes every other writer.
pub(super) fn touched_rows(statement: &Statement, dialect: Dialect) -> Option<String> {
    if !matches!(
        dialect,
        Dialect::Postgres | Dialect::Mysql | Dialect::Sqlite | Dialect::Duckdb
    ) {
        return None;
    }
    let (with, statement) = match statement {
        Statement::Query(q) => match q.body.as_ref() {
            SetExpr::Update(s) | SetExpr::Delete(s) => {
                (q.with.as_ref().map(|w| format!("{w} ")), s)
            }
            _ => return None,
        },
        s => (None, s),
    };
    let (select, locks) = match statement {
        Statement::Update(u) => (of_update(u), true),
        Statement::Delete(d) => (of_delete(d)?, true),
        Statement::Insert(i) => (of_insert(i)?, false),
        _ => return None,
    };
    let lock = if dialect == Dialect::Mysql && locks {
        " FOR UPDATE"
    } else {
        ""
    };
    Some(format!("{}{select}{lock}", with.unwrap_or_default()))
}

/// An INSERT ... SELECT: the rows its SELECT gives (the rows it will insert); none for VALUES.
fn of_insert(i: &Insert) -> Option<String> {
    let source = i.source.as_ref()?;
    match source.body.as_ref() {
        SetExpr::Values(_) => None,
        _ => Some(source.to_string()),
    }
}

fn of_update(u: &Update) -> String {
    let mut from = vec![u.table.to_string()];
    if let Some(UpdateTableFromKind::AfterSet(t) | UpdateTableFromKind::BeforeSet(t)) = &u.from {
        from.extend(t.iter().map(ToString::to_string));
    }
    select(&from, u.selection.as_ref(), &u.order_by, u.limit.as_ref())
}

fn of_delete(d: &Delete) -> Option<String> {
    let (FromTable::WithFromKeyword(tables) | FromTable::WithoutKeyword(tables)) = &d.from;
    let mut from: Vec<String> = tables.iter().map(ToString::to_string).collect();
    if from.is_empty() {
        return None;
    }
    from.extend(d.using.iter().flatten().map(ToString::to_string));
    Some(select(
        &from,
        d.selection.as_ref(),
        &d.order_by,
        d.limit.as_ref(),
    ))
}

/// `SELECT *` (every column of every table the statement names: the rows it touches, and the
/// rows it reads them with) under the statement's WHERE, ORDER BY and LIMIT.
fn select(
    from: &[String],
    filter: Option<&Expr>,
    order: &[OrderByExpr],
    limit: Option<&Expr>,
) -> String {
    let mut s = format!("SELECT * FROM {}", from.join(", "));
    if let Some(w) = filter {
        s.push_str(&format!(" WHERE {w}"));
    }
    if !order.is_empty() {
        let keys: Vec<String> = order.iter().map(ToString::to_string).collect();
        s.push_str(&format!(" ORDER BY {}", keys.join(", ")));
    }
    if let Some(l) = limit {
        s.push_str(&format!(" LIMIT {l}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use crate::{Dialect, Guard, Policy, QueryClass, RowFilterRules, Vars, WriteRules};

    fn guard(dialect: Dialect) -> Guard {
        let policy = Policy {
            dialect,
            writes: Some(WriteRules::new(
                &["*"],
                &[QueryClass::MutationCreate, QueryClass::MutationDelete],
            )),
            ..Policy::default()
        };
        Guard::new(policy).expect("a valid policy")
    }

    #[test]
    fn updates_and_deletes_read_their_rows_inserts_do_not() {
        let cases = [
            (
                Dialect::Postgres,
                "UPDATE orders AS o SET status = 'x' FROM customers AS c WHERE o.customer_id = c.id AND c.name = 'a' RETURNING o.id",
                Some("SELECT * FROM orders AS o, customers AS c WHERE o.customer_id = c.id AND c.name = 'a'"),
            ),
            (
                Dialect::Postgres,
                "DELETE FROM orders USING customers WHERE orders.customer_id = customers.id",
                Some("SELECT * FROM orders, customers WHERE orders.customer_id = customers.id"),
            ),
            (
                Dialect::Mysql,
                "UPDATE orders SET status = 'x' WHERE status = 'pending' ORDER BY id LIMIT 2",
                Some("SELECT * FROM orders WHERE status = 'pending' ORDER BY id LIMIT 2 FOR UPDATE"),
            ),
            (
                Dialect::Sqlite,
                "DELETE FROM orders WHERE id > 3",
                Some("SELECT * FROM orders WHERE id > 3"),
            ),
            (
                Dialect::Postgres,
                "WITH c AS (SELECT id FROM customers) DELETE FROM orders WHERE customer_id IN (SELECT id FROM c)",
                Some("WITH c AS (SELECT id FROM customers) SELECT * FROM orders WHERE customer_id IN (SELECT id FROM c)"),
            ),
            (Dialect::Sqlite, "INSERT INTO orders (id) VALUES (1)", None),
            (
                Dialect::Mysql,
                "INSERT INTO archive (id, status) SELECT id, status FROM orders WHERE status = 'x'",
                Some("SELECT id, status FROM orders WHERE status = 'x'"),
            ),
            (Dialect::Mssql, "DELETE FROM orders WHERE id = 1", None),
        ];
        for (dialect, sql, expected) in cases {
            let approved = guard(dialect).check_mutation(sql);
            let approved = approved.unwrap_or_else(|r| panic!("{dialect}: {sql}: {r:?}"));
            assert_eq!(
                approved.touched_rows.as_deref(),
                expected,
                "{dialect}: {sql}"
            );
        }
    }

    /// The rows read are the rows the filtered statement touches: the target's row filter is in
    /// the SELECT, as it is in the statement run.
    #[test]
    fn the_target_row_filter_is_in_the_select() {
        let mut policy = guard(Dialect::Postgres).policy().clone();
        policy.rows = Some(RowFilterRules {
            filters: [("orders".to_string(), "tenant_id = :tenant".to_string())].into(),
            ..RowFilterRules::default()
        });
        let guard = Guard::new(policy).expect("a valid policy");
        let vars = Vars::new().with("tenant", 7);
        let approved = guard
            .check_mutation_with("DELETE FROM orders WHERE id = 1", &vars)
            .expect("approved");
        assert_eq!(
            approved.touched_rows.as_deref(),
            Some("SELECT * FROM orders WHERE (orders.tenant_id = 7) AND (id = 1)"),
            "{}",
            approved.sql
        );
        assert!(approved
            .sql
            .ends_with("WHERE (orders.tenant_id = 7) AND (id = 1)"));
    }
}
