//! Unit tests of `Policy::narrowed_by`.
use super::*;

fn base() -> Policy {
    toml::from_str(
        r#"
        dialect = "postgres"
        max_rows = 100
        [tables]
        allow = ["public.*"]
        deny = ["secrets"]
        [columns]
        deny = ["customer.phone"]
        [writes]
        tables = ["public.invoice"]
        classes = ["mutation_create"]
        max_affected_rows = 10
        [rows]
        invoice = "customer_id > 0"
        "#,
    )
    .expect("base policy")
}

fn layer(text: &str) -> PolicyLayer {
    toml::from_str(text).expect("layer")
}

fn refused(text: &str) -> String {
    match base().narrowed_by(&layer(text)) {
        Ok(p) => panic!("{text} widened nothing? {p:?}"),
        Err(e) => e.field,
    }
}

#[test]
fn a_layer_narrows() {
    let p = base()
        .narrowed_by(&layer(
            r#"
            max_rows = 5
            [tables]
            allow = ["public.invoice", "public.customer", "public.invoice_line"]
            deny = ["employee"]
            [columns]
            deny = ["customer.email"]
            [writes]
            max_affected_rows = 3
            [rows]
            invoice = "customer_id = :tenant"
            invoice_line = "invoice_id IN (SELECT invoice_id FROM invoice)"
            "#,
        ))
        .expect("narrower");
    assert_eq!(p.max_rows, Some(5));
    assert_eq!(p.tables.allow.len(), 3);
    assert_eq!(p.tables.deny, vec!["secrets", "employee"]);
    assert_eq!(p.columns.deny, vec!["customer.phone", "customer.email"]);
    let w = p.writes.clone().expect("writes");
    assert_eq!(
        (w.tables.clone(), w.max_affected_rows),
        (vec!["public.invoice".to_string()], Some(3))
    );
    let rows = p.rows.clone().expect("rows");
    assert_eq!(
        rows.filters.get("invoice").map(String::as_str),
        Some("(customer_id > 0) AND (customer_id = :tenant)")
    );
    assert!(rows.filters.contains_key("invoice_line"));
    let guard = crate::Guard::new(p).expect("compiles");
    assert_eq!(guard.row_filter_variables(), vec!["tenant".to_string()]);
    // An empty layer changes nothing.
    assert_eq!(base().narrowed_by(&PolicyLayer::default()), Ok(base()));
}

#[test]
fn a_layer_cannot_widen() {
    assert_eq!(refused("max_rows = 101"), "max_rows");
    assert_eq!(refused("max_sql_bytes = 300000"), "max_sql_bytes");
    assert_eq!(refused("allow_explain = true"), "allow_explain");
    assert_eq!(
        refused("allow_system_catalogs = true"),
        "allow_system_catalogs"
    );
    assert_eq!(refused("dialect = \"mysql\""), "dialect");
    assert_eq!(refused("mysql_ansi_quotes = true"), "mysql_ansi_quotes");
    assert_eq!(
        refused("functions = { allow = [\"pg_read_file\"] }"),
        "functions.allow[0]"
    );
    for wider in ["*", "sales.*", "*.invoice", "other.invoice", "invoice"] {
        let text = format!("tables = {{ allow = [\"public.customer\", \"{wider}\"] }}");
        assert_eq!(refused(&text), "tables.allow[1]", "{wider}");
    }
    assert_eq!(
        refused("writes = { tables = [\"public.customer\"] }"),
        "writes.tables[0]"
    );
    assert_eq!(
        refused("writes = { tables = [\"invoice\"] }"),
        "writes.tables[0]"
    );
    assert_eq!(
        refused("writes = { classes = [\"mutation_delete\"] }"),
        "writes.classes[0]"
    );
    assert_eq!(
        refused("writes = { max_affected_rows = 11 }"),
        "writes.max_affected_rows"
    );
    assert_eq!(
        refused("writes = { allow_unbounded = true }"),
        "writes.allow_unbounded"
    );
    assert_eq!(
        refused("rows = { trusted_views = [\"invoice_summary\"] }"),
        "rows.trusted_views[0]"
    );
    assert_eq!(
        refused("rows = { \"public.invoice\" = \"true\" }"),
        "rows.public.invoice"
    );
    // No writes in the base: none in a layer.
    let read_only = Policy::for_dialect(Dialect::Postgres);
    let e = read_only.narrowed_by(&layer("writes = { tables = [\"invoice\"] }"));
    assert_eq!(e.err().map(|e| e.field), Some("writes".to_string()));
    // Unknown fields are refused, not ignored.
    assert!(toml::from_str::<PolicyLayer>("max_rowz = 1").is_err());
}

#[test]
fn a_layer_with_filters_trusts_only_its_own_views() {
    let mut b = Policy::for_dialect(Dialect::Postgres);
    b.max_rows = None;
    let p = b
        .narrowed_by(&layer(
            "max_rows = 7\nrows = { invoice = \"customer_id = 1\" }",
        ))
        .expect("narrower");
    assert_eq!(p.max_rows, Some(7));
    let mut trusting = base();
    if let Some(r) = trusting.rows.as_mut() {
        r.trusted_views = vec!["invoice_summary".into()];
    }
    let p = trusting
        .narrowed_by(&layer("rows = { customer = \"customer_id = 1\" }"))
        .expect("narrower");
    assert!(p.rows.expect("rows").trusted_views.is_empty());
}
