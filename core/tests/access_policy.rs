//! The data-access policy across dialects: every shape that reaches a protected column or a
//! denied table is refused in postgres, mysql, sqlite and snowflake, and the harmless neighbours
//! stay allowed. (The shared vectors hold more single-dialect cases.)

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlgate::{ColumnRules, Dialect, ErrorCode, Guard, Policy, TableRules};

const DIALECTS: [Dialect; 4] = [
    Dialect::Postgres,
    Dialect::Mysql,
    Dialect::Sqlite,
    Dialect::Snowflake,
];

fn guard(dialect: Dialect) -> Guard {
    Guard::new(Policy {
        tables: TableRules {
            allow: vec![],
            deny: vec!["employee".into()],
        },
        columns: ColumnRules {
            deny: vec!["customer.email".into(), "customer.phone".into()],
        },
        ..Policy::for_dialect(dialect)
    })
    .expect("policy")
}

const REFUSED: [(&str, ErrorCode); 22] = [
    ("SELECT email FROM customer", ErrorCode::ColumnNotAllowed),
    ("SELECT c.email FROM customer c", ErrorCode::ColumnNotAllowed),
    ("SELECT c.phone FROM customer AS c", ErrorCode::ColumnNotAllowed),
    ("SELECT first_name FROM customer WHERE email LIKE 'a%'", ErrorCode::ColumnNotAllowed),
    ("SELECT first_name FROM customer ORDER BY email", ErrorCode::ColumnNotAllowed),
    ("SELECT count(email) FROM customer", ErrorCode::ColumnNotAllowed),
    ("SELECT first_name FROM customer GROUP BY first_name, phone", ErrorCode::ColumnNotAllowed),
    ("SELECT first_name FROM customer GROUP BY first_name HAVING max(phone) > 'a'", ErrorCode::ColumnNotAllowed),
    ("SELECT CASE WHEN email IS NULL THEN 1 ELSE 0 END FROM customer", ErrorCode::ColumnNotAllowed),
    ("SELECT upper(email) FROM customer", ErrorCode::ColumnNotAllowed),
    ("SELECT a.title FROM album a JOIN customer c ON c.email = a.title", ErrorCode::ColumnNotAllowed),
    ("SELECT x FROM (SELECT email AS x FROM customer) s", ErrorCode::ColumnNotAllowed),
    ("WITH s AS (SELECT phone FROM customer) SELECT phone FROM s", ErrorCode::ColumnNotAllowed),
    ("SELECT 1 FROM album a WHERE EXISTS (SELECT 1 FROM customer c WHERE c.phone = a.title)", ErrorCode::ColumnNotAllowed),
    ("SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT email FROM customer) a) b) c) d", ErrorCode::ColumnNotAllowed),
    ("SELECT first_name FROM customer UNION SELECT email FROM customer", ErrorCode::ColumnNotAllowed),
    ("SELECT * FROM customer", ErrorCode::StarOnRestrictedTable),
    ("SELECT c.* FROM customer c", ErrorCode::StarOnRestrictedTable),
    ("SELECT * FROM employee", ErrorCode::TableNotAllowed),
    ("SELECT name FROM db.sch.employee", ErrorCode::TableNotAllowed),
    ("SELECT 1 FROM album WHERE album_id IN (SELECT employee_id FROM employee)", ErrorCode::TableNotAllowed),
    ("WITH e AS (SELECT * FROM employee) SELECT 1 FROM e", ErrorCode::TableNotAllowed),
];

const ALLOWED: [&str; 7] = [
    "SELECT first_name FROM customer",
    "SELECT count(*) FROM customer",
    "SELECT c.first_name, c.last_name FROM customer c WHERE c.country = 'Brazil'",
    "WITH customer AS (SELECT 1 AS x) SELECT * FROM customer",
    "WITH employee AS (SELECT 1 AS x) SELECT x FROM employee",
    "SELECT email FROM newsletter",
    "SELECT a.title FROM album a JOIN customer c ON c.customer_id = a.album_id",
];

#[test]
fn protected_shapes_are_refused_in_every_dialect() {
    for dialect in DIALECTS {
        let g = guard(dialect);
        for (sql, code) in REFUSED {
            match g.check(sql) {
                Ok(a) => panic!("[{dialect}] allowed `{sql}` as `{}`", a.sql),
                Err(r) => assert_eq!(r.error.code, code, "[{dialect}] {sql}: {}", r.error.message),
            }
        }
    }
}

#[test]
fn harmless_neighbours_stay_allowed_in_every_dialect() {
    for dialect in DIALECTS {
        let g = guard(dialect);
        for sql in ALLOWED {
            if let Err(r) = g.check(sql) {
                panic!("[{dialect}] refused `{sql}`: {}", r.error);
            }
        }
    }
}

#[test]
fn folding_follows_the_dialect() {
    // Unquoted names fold, so any spelling of a protected column is refused everywhere.
    for dialect in DIALECTS {
        let g = guard(dialect);
        for sql in ["SELECT EMAIL FROM CUSTOMER", "SELECT Email FROM Customer"] {
            assert_eq!(
                g.check(sql).unwrap_err().error.code,
                ErrorCode::ColumnNotAllowed,
                "[{dialect}] {sql}"
            );
        }
    }
    // Quoted names are exact in PostgreSQL and Snowflake: another spelling is another table.
    assert!(guard(Dialect::Postgres)
        .check(r#"SELECT "Email" FROM "Customer""#)
        .is_ok());
    assert!(guard(Dialect::Snowflake)
        .check(r#"SELECT "email" FROM "customer""#)
        .is_ok());
    assert_eq!(
        guard(Dialect::Snowflake)
            .check(r#"SELECT "EMAIL" FROM "CUSTOMER""#)
            .unwrap_err()
            .error
            .code,
        ErrorCode::ColumnNotAllowed
    );
    // SQLite and MySQL compare quoted names case-insensitively, as the engines do.
    assert!(guard(Dialect::Sqlite)
        .check(r#"SELECT "Email" FROM "Customer""#)
        .is_err());
    assert!(guard(Dialect::Mysql)
        .check("SELECT `Email` FROM `Customer`")
        .is_err());
}
