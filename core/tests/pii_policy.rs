//! PII categories (issue 30): a blocked category refused like `columns.deny`, with the category
//! in the message; a masked column readable only as a plain column of the outermost select
//! list, replaced there by its mask computed in the engine; the policy's validation and a
//! principal layer that can only add blocks and masks. (tests/vectors/pii.jsonl holds the
//! attacks in every clause; tests/engines runs the approved ones on the engines.)

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlgate::{Dialect, Guard, MaskKind, Policy, PolicyLayer};

const POLICY: &str = r#"
[annotations.tables.customer]
description = "A person or company that buys tracks."
synonyms = ["client"]
[annotations.tables.customer.columns.email]
pii = "EMAIL_ADDRESS"
[annotations.tables.customer.columns.phone]
pii = "PHONE_NUMBER"
[annotations.tables.customer.columns.fax]
pii = "PHONE_NUMBER"
mask = "redact"
[annotations.tables.customer.columns.card]
pii = "CREDIT_CARD"
[[annotations.relationships]]
from = "invoice.customer_id"
to = "customer.customer_id"
cardinality = "many_to_one"
[pii]
block = ["CREDIT_CARD"]
mask = { PHONE_NUMBER = "partial", EMAIL_ADDRESS = "hash" }
"#;

fn policy(dialect: Dialect) -> Policy {
    let mut p: Policy = toml::from_str(POLICY).expect("policy");
    p.dialect = dialect;
    p
}

fn guard(dialect: Dialect) -> Guard {
    Guard::new(policy(dialect)).expect("compiles")
}

#[test]
fn a_blocked_category_is_refused_naming_it() {
    let g = guard(Dialect::Postgres);
    let e = g.check("SELECT card FROM customer").unwrap_err().error;
    assert_eq!(e.code.as_str(), "column_not_allowed");
    assert_eq!(
        e.message,
        "customer.card is tagged CREDIT_CARD, which this policy refuses"
    );
    assert!(e.hint.as_deref().unwrap().contains("remove `card`"));
    for sql in [
        "SELECT first_name FROM customer WHERE card LIKE '4%'",
        "SELECT count(DISTINCT card) FROM customer",
        "SELECT c.card FROM customer c",
    ] {
        assert_eq!(
            g.check(sql).unwrap_err().error.code.as_str(),
            "column_not_allowed",
            "{sql}"
        );
    }
    assert!(g.column_mask(&["customer"], "card").is_none());
    assert!(g.column_protected(&["customer"], "card"));
    assert!(!g.column_protected(&["customer"], "email"));
}

#[test]
fn a_masked_column_is_computed_in_the_engine_under_its_own_name() {
    let cases = [
        (
            Dialect::Postgres,
            "SELECT email, c.phone AS p, fax FROM customer c",
            "SELECT md5(CAST(email AS TEXT)) AS email, CASE WHEN length(CAST(c.phone AS TEXT)) > 4 \
             THEN '****' || right(CAST(c.phone AS TEXT), 4) ELSE '****' END AS p, '[REDACTED]' AS fax \
             FROM customer c LIMIT 1000",
        ),
        (
            Dialect::Mysql,
            "SELECT email FROM customer",
            "SELECT SHA2(email, 256) AS email FROM customer LIMIT 1000",
        ),
        (
            Dialect::Duckdb,
            "SELECT customer.email FROM customer",
            "SELECT sha256(CAST(customer.email AS VARCHAR)) AS email FROM customer LIMIT 1000",
        ),
    ];
    for (dialect, sql, expected) in cases {
        let approved = guard(dialect).check(sql).expect("approved");
        assert_eq!(approved.sql, expected, "{dialect:?}");
    }
    assert_eq!(
        guard(Dialect::Postgres).column_mask(&["customer"], "email"),
        Some(MaskKind::Hash)
    );
}

#[test]
fn a_masked_column_anywhere_else_is_refused_with_its_own_code() {
    let g = guard(Dialect::Postgres);
    for sql in [
        "SELECT first_name FROM customer WHERE email = 'a@b.c'",
        "SELECT length(email) FROM customer",
        "SELECT email FROM customer ORDER BY email",
        "SELECT DISTINCT email FROM customer",
        "SELECT e FROM (SELECT email AS e FROM customer) s",
        "SELECT email FROM customer UNION SELECT 'x'",
    ] {
        assert_eq!(
            g.check(sql).unwrap_err().error.code.as_str(),
            "masked_column",
            "{sql}"
        );
    }
    // `customer` also has a blocked column: a star or whole row is refused as for columns.deny.
    for (sql, code) in [
        ("SELECT * FROM customer", "star_on_restricted_table"),
        ("SELECT c FROM customer c", "column_not_allowed"),
        (
            "SELECT row_to_json(c) FROM customer c",
            "column_not_allowed",
        ),
    ] {
        assert_eq!(g.check(sql).unwrap_err().error.code.as_str(), code, "{sql}");
    }
}

#[test]
fn sqlite_has_no_digest_so_hash_is_refused_when_the_guard_is_built() {
    let e = Guard::new(policy(Dialect::Sqlite)).unwrap_err();
    assert_eq!(e.field, "pii.mask.EMAIL_ADDRESS");
    assert!(e.message.contains("SQLite"), "{}", e.message);
}

#[test]
fn the_policy_is_validated_naming_the_field() {
    let bad = [
        (r#"{"pii": {"block": ["email"]}}"#, "pii.block[0]"),
        (
            r#"{"pii": {"mask": {"EMAIL": "scramble"}}}"#,
            "pii.mask.EMAIL",
        ),
        (
            r#"{"annotations": {"tables": {"public.*": {}}}}"#,
            "annotations.tables.public.*",
        ),
        (
            r#"{"annotations": {"relationships": [{"from": ["a.x", "a.y"], "to": "b.x",
                "cardinality": "many_to_one"}]}}"#,
            "annotations.relationships[0].to",
        ),
        (
            r#"{"annotations": {"relationships": [{"from": "a.x", "to": "b.x",
                "cardinality": "many_to_one"}]},
               "catalog": {"tables": [{"name": "a", "columns": [{"name": "x"}]}]}}"#,
            "annotations.relationships[0].to",
        ),
        (
            r#"{"annotations": {"tables": {"customer": {"columns": {"mail": {"pii": "EMAIL"}}}}},
               "catalog": {"tables": [{"name": "customer", "columns": [{"name": "email"}]}]}}"#,
            "annotations.tables.customer.columns.mail",
        ),
        (
            r#"{"annotations": {"tables": {"client": {}}},
               "catalog": {"tables": [{"name": "customer", "columns": [{"name": "email"}]}]}}"#,
            "annotations.tables.client",
        ),
    ];
    for (json, field) in bad {
        let e = Policy::from_json(json).and_then(Guard::new).unwrap_err();
        assert_eq!(e.field, field, "{json}: {e}");
    }
}

#[test]
fn a_layer_adds_blocks_and_masks_and_cannot_remove_them() {
    let base = policy(Dialect::Postgres);
    let layer: PolicyLayer = toml::from_str(
        r#"
        [pii]
        block = ["PHONE_NUMBER"]
        mask = { EMAIL_ADDRESS = "null", LOCATION = "redact" }
        "#,
    )
    .unwrap();
    let narrowed = base.narrowed_by(&layer).unwrap();
    assert!(narrowed.pii.block.contains(&"CREDIT_CARD".to_string()));
    assert!(narrowed.pii.block.contains(&"PHONE_NUMBER".to_string()));
    assert_eq!(narrowed.pii.mask["EMAIL_ADDRESS"], MaskKind::Null);
    let g = Guard::new(narrowed).unwrap();
    assert_eq!(
        g.check("SELECT phone FROM customer")
            .unwrap_err()
            .error
            .message,
        "customer.phone is tagged PHONE_NUMBER, which this policy refuses"
    );
    assert_eq!(
        g.check("SELECT email FROM customer").unwrap().sql,
        "SELECT NULL AS email FROM customer LIMIT 1000"
    );
    for (text, field) in [
        (
            "[pii]\nmask = { EMAIL_ADDRESS = \"partial\" }",
            "pii.mask.EMAIL_ADDRESS",
        ),
        (
            "[annotations.tables.customer]\ndescription = \"x\"",
            "annotations",
        ),
    ] {
        let layer: PolicyLayer = toml::from_str(text).unwrap();
        assert_eq!(base.narrowed_by(&layer).unwrap_err().field, field);
    }
}

#[test]
fn annotations_round_trip_through_json_and_the_schema_names_them() {
    let p = policy(Dialect::Postgres);
    let json = serde_json::to_string(&p).unwrap();
    assert_eq!(Policy::from_json(&json).unwrap(), p);
    let schema = Policy::json_schema().to_string();
    for name in ["annotations", "pii", "many_to_one", "partial", "synonyms"] {
        assert!(schema.contains(name), "{name}");
    }
}

#[test]
fn a_mutation_never_reads_a_masked_column_and_writes_one_only_as_a_constant() {
    let mut p = policy(Dialect::Postgres);
    p.writes = Some(sqlgate::WriteRules::new(
        &["customer", "log"],
        &[sqlgate::QueryClass::MutationCreate],
    ));
    let g = Guard::new(p).unwrap();
    assert!(g
        .check_mutation("UPDATE customer SET first_name = 'x' WHERE customer_id = 1")
        .is_ok());
    // Writing a masked column reveals nothing of what it holds: an erasure or an edit passes,
    // as a literal, NULL or a parameter.
    for sql in [
        "UPDATE customer SET email = NULL WHERE customer_id = 1",
        "UPDATE customer SET email = 'ann@example.com', first_name = 'Ann' WHERE customer_id = 1",
        "UPDATE customer SET email = $1 WHERE customer_id = 1",
        "UPDATE customer SET (email, first_name) = (NULL, 'x') WHERE customer_id = 1",
        "INSERT INTO customer (customer_id, email) VALUES (99, 'x@example.com'), (100, NULL)",
        "INSERT INTO customer (customer_id, email) VALUES (99, CAST(NULL AS text))",
    ] {
        let approved = g
            .check_mutation(sql)
            .unwrap_or_else(|r| panic!("{sql}: {r}"));
        assert!(
            approved.columns_written.contains(&"email".to_string()),
            "{sql}"
        );
    }
    for (sql, code) in [
        (
            "UPDATE customer SET email = upper(first_name) WHERE customer_id = 1",
            "masked_column",
        ),
        (
            "UPDATE customer SET email = email || '' WHERE customer_id = 1",
            "masked_column",
        ),
        (
            "UPDATE customer SET (email, first_name) = (SELECT 'a', 'b') WHERE customer_id = 1",
            "masked_column",
        ),
        (
            "INSERT INTO customer (customer_id, email) SELECT 99, 'x'",
            "masked_column",
        ),
        (
            "INSERT INTO customer (customer_id, email) VALUES (99, 'x'), (100, lower('Y'))",
            "masked_column",
        ),
        (
            "UPDATE customer SET email = NULL WHERE email LIKE 'a%'",
            "masked_column",
        ),
        (
            "UPDATE customer SET email = NULL WHERE customer_id = 1 RETURNING email",
            "masked_column",
        ),
        (
            "UPDATE customer SET first_name = 'x' WHERE customer_id = 1 RETURNING email",
            "masked_column",
        ),
        (
            "UPDATE customer SET first_name = email WHERE customer_id = 1",
            "masked_column",
        ),
        (
            "UPDATE customer SET first_name = 'x' WHERE email LIKE 'a%'",
            "masked_column",
        ),
        (
            "INSERT INTO log (line) SELECT email FROM customer",
            "masked_column",
        ),
    ] {
        assert_eq!(
            g.check_mutation(sql).unwrap_err().error.code.as_str(),
            code,
            "{sql}"
        );
    }
}
