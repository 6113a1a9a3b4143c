//! Row filters (issue 17) against their oracle, PostgreSQL's row-level security, on Chinook
//! (`SQLGATE_CHINOOK_URL`, a superuser URL: scripts/test.sh starts a cluster).
//!
//! Inside one transaction per tenant that is always rolled back (other tests share the database
//! and connect as other roles: nothing here outlives it but the role `sqlgate_rls_tenant`), RLS
//! policies equivalent to the guard's row filters are created on customer, invoice, invoice_line
//! and employee, and the tenant is a setting (`sqlgate.tenant`). For every query (every Chinook
//! gold query, the Chinook reads of the other tests, and the escape attempts below) and every
//! tenant, the rows PostgreSQL returns to the RLS role for the original SQL must equal the rows
//! the guard's rewritten SQL returns to the superuser (who bypasses RLS). A refusal by the guard
//! is never a difference; it is counted, with its reason.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use common::{corpus_dir, read_jsonl};
use sqlgate::{Guard, Policy, Vars};

const ROLE: &str = "sqlgate_rls_tenant";

/// Customer 0 does not exist: that tenant sees no row of any filtered table.
const TENANTS: [i64; 4] = [1, 12, 59, 0];

const POLICY: &str = r#"{
  "dialect": "postgres",
  "max_rows": null,
  "rows": {
    "customer": "customer_id = :tenant",
    "invoice": "customer_id = :tenant",
    "invoice_line": "invoice_id IN (SELECT invoice_id FROM invoice WHERE customer_id = :tenant)",
    "employee": "employee_id IN (SELECT support_rep_id FROM customer WHERE customer_id = :tenant)"
  },
  "writes": {
    "tables": ["invoice", "invoice_line", "customer", "employee", "track"],
    "classes": ["mutation_create", "mutation_delete"],
    "max_affected_rows": null,
    "allow_unbounded": true
  }
}"#;

/// The same filters as RLS policies, for the tenant role only; `FOR ALL` so that UPDATE and
/// DELETE see (and may change) the same rows. The sub-queries read their tables under RLS too,
/// as the guard's filters read the other filtered tables through their own filters.
const RLS_SETUP: &str = "
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO sqlgate_rls_tenant;
CREATE POLICY sqlgate_rls ON customer FOR ALL TO sqlgate_rls_tenant
  USING (customer_id = current_setting('sqlgate.tenant')::int);
CREATE POLICY sqlgate_rls ON invoice FOR ALL TO sqlgate_rls_tenant
  USING (customer_id = current_setting('sqlgate.tenant')::int);
CREATE POLICY sqlgate_rls ON invoice_line FOR ALL TO sqlgate_rls_tenant
  USING (invoice_id IN (SELECT invoice_id FROM invoice
                        WHERE customer_id = current_setting('sqlgate.tenant')::int));
CREATE POLICY sqlgate_rls ON employee FOR ALL TO sqlgate_rls_tenant
  USING (employee_id IN (SELECT support_rep_id FROM customer
                         WHERE customer_id = current_setting('sqlgate.tenant')::int));
ALTER TABLE customer ENABLE ROW LEVEL SECURITY;
ALTER TABLE invoice ENABLE ROW LEVEL SECURITY;
ALTER TABLE invoice_line ENABLE ROW LEVEL SECURITY;
ALTER TABLE employee ENABLE ROW LEVEL SECURITY;
SET LOCAL statement_timeout = '30s';
";

/// Reads written to get out of the filters. Each is run for every tenant.
const ESCAPES: &[&str] = &[
    // plain references, spelled every way
    "SELECT * FROM invoice",
    "SELECT * FROM public.invoice",
    "SELECT * FROM \"invoice\"",
    "SELECT * FROM INVOICE",
    "SELECT * FROM InVoIcE AS x",
    "SELECT * FROM public.\"invoice\" i",
    "SELECT * FROM chinook.public.invoice",
    "SELECT * FROM ONLY invoice",
    "SELECT * FROM ONLY public.invoice AS i",
    "TABLE invoice",
    "SELECT * FROM invoice AS i(a, b, c)",
    "SELECT a, b FROM invoice AS i(a, b)",
    // aliases named like other tables
    "SELECT customer.* FROM invoice AS customer",
    "SELECT track.* FROM invoice AS track",
    "SELECT invoice.invoice_id, customer.first_name FROM customer AS invoice JOIN invoice AS customer ON true",
    "SELECT artist.name FROM invoice_line AS artist",
    // CTEs shadowing the table, and the table inside them
    "WITH invoice AS (SELECT * FROM invoice) SELECT * FROM invoice",
    "WITH invoice AS (SELECT * FROM public.invoice) SELECT * FROM invoice",
    "WITH x AS (SELECT * FROM invoice), invoice AS (SELECT * FROM x) SELECT * FROM invoice",
    "WITH invoice AS (SELECT * FROM track) SELECT count(*) FROM invoice",
    "WITH invoice AS (SELECT * FROM track) SELECT count(*) FROM public.invoice",
    "WITH a AS (WITH invoice AS (SELECT 1 AS x) SELECT * FROM invoice) SELECT * FROM a, invoice",
    "WITH a AS (SELECT * FROM invoice) SELECT * FROM (WITH invoice AS (SELECT 1 AS x) SELECT * FROM a) s",
    "WITH invoice AS (SELECT * FROM customer) SELECT * FROM invoice i WHERE EXISTS (SELECT 1 FROM public.invoice j WHERE j.customer_id = i.customer_id)",
    "WITH RECURSIVE invoice AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM invoice WHERE n < 3) SELECT * FROM invoice",
    "WITH RECURSIVE t(n) AS (SELECT min(invoice_id) FROM invoice UNION ALL SELECT n + 1 FROM t WHERE n < 20) SELECT t.n, i.total FROM t JOIN invoice i ON i.invoice_id = t.n",
    "WITH RECURSIVE a AS (SELECT * FROM invoice), invoice AS (SELECT 1 AS x) SELECT * FROM a",
    "WITH RECURSIVE invoice AS (SELECT * FROM invoice) SELECT * FROM invoice",
    "WITH m AS MATERIALIZED (SELECT * FROM invoice_line) SELECT count(*), sum(unit_price) FROM m",
    // sub-queries everywhere
    "SELECT (SELECT count(*) FROM invoice) AS n",
    "SELECT (SELECT sum(total) FROM invoice), (SELECT count(*) FROM invoice_line), (SELECT count(*) FROM customer), (SELECT count(*) FROM employee)",
    "SELECT name FROM artist WHERE artist_id < (SELECT count(*) FROM invoice)",
    "SELECT genre_id, count(*) FROM track GROUP BY genre_id HAVING count(*) > (SELECT count(*) FROM invoice_line)",
    "SELECT name FROM genre ORDER BY (SELECT count(*) FROM invoice WHERE customer_id = genre_id) , name",
    "SELECT * FROM (SELECT * FROM (SELECT * FROM invoice) a) b",
    "SELECT * FROM track WHERE track_id IN (SELECT track_id FROM invoice_line)",
    "SELECT * FROM track WHERE track_id = ANY (SELECT track_id FROM invoice_line)",
    "SELECT * FROM track WHERE track_id NOT IN (SELECT track_id FROM invoice_line) AND track_id < 20",
    "SELECT * FROM customer c WHERE EXISTS (SELECT 1 FROM invoice i WHERE i.customer_id = c.customer_id)",
    "SELECT c.customer_id FROM (SELECT generate_series(1, 60) AS customer_id) c WHERE EXISTS (SELECT 1 FROM invoice i WHERE i.customer_id = c.customer_id)",
    "SELECT * FROM employee e WHERE NOT EXISTS (SELECT 1 FROM customer c WHERE c.support_rep_id = e.employee_id)",
    "SELECT ARRAY(SELECT invoice_id FROM invoice ORDER BY 1)",
    // set operations
    "SELECT customer_id FROM invoice UNION SELECT customer_id FROM customer",
    "SELECT customer_id FROM customer UNION ALL SELECT support_rep_id FROM customer",
    "SELECT invoice_id FROM invoice INTERSECT SELECT invoice_id FROM invoice_line",
    "SELECT invoice_id FROM invoice_line EXCEPT SELECT invoice_id FROM invoice",
    "SELECT generate_series(1, 500) EXCEPT SELECT invoice_id FROM invoice",
    "(SELECT employee_id FROM employee) UNION (SELECT 99) ORDER BY 1",
    // joins
    "SELECT a.invoice_id, b.invoice_id FROM invoice a JOIN invoice b ON a.customer_id = b.customer_id",
    "SELECT count(*) FROM invoice a, invoice b",
    "SELECT count(*) FROM invoice a CROSS JOIN customer b",
    "SELECT t.track_id, il.invoice_line_id FROM track t LEFT JOIN invoice_line il ON il.track_id = t.track_id WHERE t.track_id < 50",
    "SELECT count(*), count(il.invoice_line_id) FROM track t LEFT JOIN invoice_line il USING (track_id)",
    "SELECT count(*) FROM invoice_line il RIGHT JOIN track t ON il.track_id = t.track_id",
    "SELECT count(*), count(i.invoice_id), count(c.customer_id) FROM invoice i FULL JOIN customer c ON c.customer_id = i.customer_id + 1",
    "SELECT e.employee_id, c.customer_id FROM employee e FULL OUTER JOIN customer c ON c.support_rep_id = e.employee_id",
    "SELECT * FROM invoice NATURAL JOIN customer",
    "SELECT * FROM invoice JOIN customer USING (customer_id)",
    "SELECT * FROM invoice_line NATURAL JOIN invoice NATURAL JOIN customer",
    "SELECT ar.name, count(il.invoice_line_id) FROM artist ar LEFT JOIN album al ON al.artist_id = ar.artist_id LEFT JOIN track t ON t.album_id = al.album_id LEFT JOIN invoice_line il ON il.track_id = t.track_id GROUP BY ar.name HAVING count(il.invoice_line_id) > 0",
    "SELECT m.employee_id, e.employee_id FROM employee e LEFT JOIN employee m ON e.reports_to = m.employee_id",
    "SELECT * FROM (VALUES (1), (2), (12), (59)) v(id) LEFT JOIN customer c ON c.customer_id = v.id",
    "SELECT * FROM (VALUES (1), (2), (12), (59)) v(id) JOIN LATERAL (SELECT count(*) AS n FROM invoice WHERE customer_id = v.id) x ON true",
    // LATERAL
    "SELECT c.customer_id, x.n FROM customer c, LATERAL (SELECT count(*) AS n FROM invoice i WHERE i.customer_id = c.customer_id) x",
    "SELECT g, x.* FROM generate_series(1, 59) g, LATERAL (SELECT * FROM invoice WHERE customer_id = g) x",
    "SELECT g, x.* FROM generate_series(1, 59) g LEFT JOIN LATERAL (SELECT max(total) AS m FROM invoice WHERE customer_id = g) x ON true",
    "SELECT t.name, x.* FROM track t CROSS JOIN LATERAL (SELECT il.invoice_id FROM invoice_line il WHERE il.track_id = t.track_id) x",
    // window functions and aggregates over all rows
    "SELECT invoice_id, count(*) OVER () FROM invoice",
    "SELECT invoice_id, sum(total) OVER (ORDER BY invoice_id) FROM invoice",
    "SELECT customer_id, rank() OVER (ORDER BY customer_id DESC) FROM customer",
    "SELECT count(*) FROM invoice",
    "SELECT count(*), sum(total), avg(total), min(invoice_date), max(invoice_date) FROM invoice",
    "SELECT count(*) FROM invoice_line",
    "SELECT count(*) FROM employee",
    "SELECT billing_country, count(*) FROM invoice GROUP BY billing_country",
    "SELECT billing_country, billing_city, sum(total) FROM invoice GROUP BY GROUPING SETS ((billing_country), (billing_city), ())",
    "SELECT billing_country, sum(total) FROM invoice GROUP BY ROLLUP (billing_country)",
    "SELECT DISTINCT ON (customer_id) customer_id, invoice_id FROM invoice ORDER BY customer_id, invoice_id",
    "SELECT string_agg(invoice_id::text, ',' ORDER BY invoice_id) FROM invoice",
    // whole-row references and row values
    "SELECT i FROM invoice i",
    "SELECT invoice FROM invoice",
    "SELECT row_to_json(i) FROM invoice i",
    "SELECT to_jsonb(c) FROM customer c",
    "SELECT (i).total FROM invoice i",
    "SELECT i.* FROM invoice i",
    "SELECT ROW(i.*) FROM invoice i",
    "SELECT count(e) FROM employee e",
    "SELECT json_agg(il) FROM invoice_line il",
    // mixed and deep
    "SELECT c.first_name, (SELECT max(total) FROM invoice i WHERE i.customer_id = c.customer_id), (SELECT count(*) FROM invoice) FROM customer c",
    "SELECT * FROM employee WHERE employee_id IN (SELECT reports_to FROM employee)",
    "SELECT * FROM employee WHERE employee_id = (SELECT support_rep_id FROM customer LIMIT 1)",
    "SELECT e.first_name, count(c.customer_id) FROM employee e LEFT JOIN customer c ON c.support_rep_id = e.employee_id GROUP BY e.first_name",
    "SELECT * FROM invoice WHERE customer_id <> 12 OR true",
    "SELECT * FROM invoice WHERE customer_id IN (1, 12, 59, 7)",
    "SELECT count(*) FROM invoice_line WHERE invoice_id NOT IN (SELECT invoice_id FROM invoice)",
    "SELECT x.total FROM (SELECT * FROM invoice UNION ALL SELECT * FROM invoice) x",
    "SELECT * FROM invoice i1 WHERE i1.total = (SELECT max(i2.total) FROM invoice i2)",
    "SELECT CASE WHEN EXISTS (SELECT 1 FROM invoice WHERE customer_id = 2) THEN 'leak' ELSE 'none' END",
    "SELECT * FROM invoice TABLESAMPLE BERNOULLI (50) REPEATABLE (7)",
    "SELECT * FROM invoice AS i ORDER BY i.total DESC LIMIT 3",
    "SELECT * FROM invoice OFFSET 2",
    "SELECT i.invoice_id FROM invoice i WHERE i.invoice_id IN (SELECT il.invoice_id FROM invoice_line il JOIN invoice j ON j.invoice_id = il.invoice_id)",
    "SELECT count(*) FROM customer c JOIN employee e ON e.employee_id = c.support_rep_id JOIN invoice i ON i.customer_id = c.customer_id JOIN invoice_line il ON il.invoice_id = i.invoice_id",
    // grouped by a key: the filtered table keeps its place where it can
    "SELECT c.first_name, count(*) FROM customer c GROUP BY c.customer_id",
    "SELECT c.first_name, count(i.invoice_id) FROM customer c LEFT JOIN invoice i ON i.customer_id = c.customer_id GROUP BY c.customer_id",
    "SELECT i.customer_id, count(*) FROM track t LEFT JOIN invoice_line il ON il.track_id = t.track_id LEFT JOIN invoice i ON i.invoice_id = il.invoice_id GROUP BY i.customer_id",
    "SELECT e.first_name, count(*) FROM employee e RIGHT JOIN customer c ON c.support_rep_id = e.employee_id GROUP BY e.employee_id",
    // The nullable side of an outer join in a grouped SELECT: its filter goes into the ON.
    "SELECT e.first_name, count(*) FROM customer c LEFT JOIN employee e ON e.employee_id = c.support_rep_id GROUP BY e.employee_id",
    "SELECT c.first_name, count(i.invoice_id) FROM employee e LEFT JOIN customer c ON c.support_rep_id = e.employee_id LEFT JOIN invoice i ON i.customer_id = c.customer_id GROUP BY c.customer_id",
    "SELECT c.first_name, count(*) FROM customer c RIGHT JOIN invoice i ON i.customer_id = c.customer_id AND i.total > 5 GROUP BY c.customer_id",
    "SELECT e.first_name, count(c.customer_id) FROM employee e RIGHT JOIN customer c ON true JOIN invoice i ON i.customer_id = c.customer_id GROUP BY e.employee_id",
    "SELECT c.first_name, count(*) FROM invoice i LEFT JOIN customer c ON c.customer_id = i.customer_id OR c.customer_id IS NULL GROUP BY c.customer_id",
    "SELECT i.billing_city, count(*) FROM invoice i GROUP BY i.customer_id",
    "SELECT c.first_name FROM customer c, invoice i WHERE i.customer_id = c.customer_id OR true GROUP BY c.customer_id, i.invoice_id",
    "SELECT c.customer_id, count(*) FROM customer c GROUP BY c.customer_id HAVING count(*) > 0 OR true",
    "SELECT customer_id FROM customer GROUP BY customer_id UNION SELECT customer_id FROM invoice GROUP BY customer_id",
    "SELECT customer.first_name, count(*) FROM customer NATURAL JOIN invoice GROUP BY customer.customer_id",
    "SELECT x.first_name FROM (SELECT c.first_name, c.customer_id FROM customer c GROUP BY c.customer_id) x",
    // errors raised by other tenants' rows
    "SELECT count(*) FROM invoice WHERE 1 / (customer_id - 2) IS NOT NULL",
    "SELECT count(*) FROM invoice_line WHERE 1 / (invoice_line_id - 5) IS NOT NULL",
    "SELECT c.customer_id FROM customer c WHERE 1 / (c.customer_id - 2) > 0 GROUP BY c.customer_id",
    "SELECT count(*) FROM invoice i JOIN invoice_line il ON 1 / (il.invoice_line_id - 5) > 0 AND il.invoice_id = i.invoice_id",
    "EXPLAIN SELECT * FROM invoice",
    "SELECT * FROM pg_stats WHERE tablename = 'invoice'",
    "SELECT reltuples FROM pg_class WHERE relname = 'invoice'",
];

/// Mutations (each in a savepoint that is rolled back), compared by their RETURNING rows and
/// their row counts.
const MUTATIONS: &[&str] = &[
    "UPDATE invoice SET total = total WHERE invoice_id > 0 RETURNING *",
    "UPDATE invoice SET total = total + 1 RETURNING invoice_id, total",
    "UPDATE invoice SET total = 0 FROM customer c WHERE c.customer_id = invoice.customer_id RETURNING invoice.*",
    "UPDATE invoice AS i SET billing_city = 'x' FROM customer c WHERE c.customer_id <> i.customer_id RETURNING i.invoice_id, c.customer_id",
    "UPDATE invoice SET total = 1 WHERE invoice_id IN (SELECT invoice_id FROM invoice_line) RETURNING invoice_id",
    "UPDATE invoice_line SET quantity = quantity + 1 RETURNING invoice_line_id",
    "UPDATE invoice_line SET quantity = 2 FROM invoice i WHERE i.invoice_id = invoice_line.invoice_id AND i.total > 5 RETURNING invoice_line.invoice_line_id",
    "UPDATE customer SET company = 'x' WHERE customer_id IN (SELECT customer_id FROM invoice) RETURNING customer_id",
    "UPDATE employee SET title = 'x' RETURNING employee_id",
    "UPDATE track SET milliseconds = milliseconds WHERE track_id IN (SELECT track_id FROM invoice_line) RETURNING track_id",
    "WITH x AS (SELECT invoice_id FROM invoice) UPDATE track SET name = name WHERE track_id IN (SELECT count(*) FROM x) RETURNING track_id",
    "DELETE FROM invoice_line USING invoice WHERE invoice.invoice_id = invoice_line.invoice_id RETURNING invoice_line.invoice_line_id",
    "DELETE FROM invoice_line il USING invoice i WHERE i.invoice_id <> il.invoice_id RETURNING il.invoice_line_id",
    "DELETE FROM invoice_line WHERE quantity > 0 RETURNING invoice_line_id",
    "DELETE FROM invoice_line WHERE invoice_id IN (SELECT invoice_id FROM invoice) RETURNING invoice_line_id",
    "UPDATE invoice SET customer_id = 1 RETURNING invoice_id",
    "INSERT INTO invoice_line VALUES (99999, 1, 1, 0.99, 1) RETURNING *",
];

#[derive(Default)]
struct Outcome {
    compared: usize,
    /// Different rows only where a top-level LIMIT picks among ties: without the LIMIT, both
    /// sides return the same rows.
    ties: Vec<String>,
    refused: BTreeMap<String, Vec<String>>,
    both_failed: usize,
    differences: Vec<String>,
    false_refusals: Vec<String>,
}

/// The rows, and the row count of every command (a mutation's), sorted.
fn rows_of(messages: &[postgres::SimpleQueryMessage]) -> Vec<String> {
    let mut out = common::text_rows(messages);
    out.extend(messages.iter().filter_map(|m| match m {
        postgres::SimpleQueryMessage::CommandComplete(n) => Some(format!("<{n} rows>")),
        _ => None,
    }));
    out.sort();
    out
}

/// Runs `sql` in a savepoint that is rolled back, as the RLS role when `as_tenant`.
fn run(client: &mut postgres::Client, sql: &str, as_tenant: bool) -> Result<Vec<String>, String> {
    let setup = if as_tenant {
        format!("SAVEPOINT q; SET LOCAL ROLE {ROLE}")
    } else {
        "SAVEPOINT q".to_string()
    };
    client.batch_execute(&setup).expect("savepoint");
    let result = client
        .simple_query(sql)
        .map(|m| rows_of(&m))
        .map_err(|e| match e.as_db_error() {
            Some(db) => db.message().to_string(),
            None => e.to_string(),
        });
    client
        .batch_execute("ROLLBACK TO SAVEPOINT q")
        .expect("rollback to savepoint");
    result
}

fn first_difference(a: &[String], b: &[String]) -> String {
    let only_a: Vec<&String> = a.iter().filter(|r| !b.contains(r)).take(3).collect();
    let only_b: Vec<&String> = b.iter().filter(|r| !a.contains(r)).take(3).collect();
    format!(
        "{} rows under RLS, {} from the guard; only under RLS: {only_a:?}; only from the guard: {only_b:?}",
        a.len(),
        b.len()
    )
}

#[allow(clippy::too_many_arguments)]
fn compare(
    client: &mut postgres::Client,
    guard: &Guard,
    label: &str,
    sql: &str,
    tenant: i64,
    mutation: bool,
    out: &mut Outcome,
) {
    let vars = Vars::new().with("tenant", tenant);
    let verdict = if mutation {
        guard.check_mutation_with(sql, &vars).map(|a| a.sql)
    } else {
        guard.check_with(sql, &vars).map(|a| a.sql)
    };
    let rewritten = match verdict {
        Ok(s) => s,
        Err(r) => {
            let reason = format!("{}: {}", r.error.code, r.error.message);
            out.refused
                .entry(reason)
                .or_default()
                .push(format!("{label} (tenant {tenant})"));
            return;
        }
    };
    let rls = run(client, sql, true);
    let guarded = run(client, &rewritten, false);
    match (rls, guarded) {
        (Ok(a), Ok(b)) if a == b => out.compared += 1,
        (Ok(a), Ok(b)) if a.len() == b.len() && !mutation && same_without_limit(client, guard, sql, &vars) => {
            out.ties.push(format!("{label} (tenant {tenant})"));
        }
        (Ok(a), Ok(b)) => out.differences.push(format!(
            "{label} (tenant {tenant}): {sql}\n    rewritten: {rewritten}\n    {}",
            first_difference(&a, &b)
        )),
        (Err(_), Err(_)) => out.both_failed += 1,
        (Err(e), Ok(b)) if b.iter().all(|r| r.starts_with("<0 ") || b.is_empty()) => {
            let _ = e;
            out.both_failed += 1;
        }
        (Err(e), Ok(b)) => out.differences.push(format!(
            "{label} (tenant {tenant}): fails under RLS ({e}) but the guard's SQL returns {} rows: {sql}\n    rewritten: {rewritten}",
            b.len()
        )),
        (Ok(_), Err(e)) => out.false_refusals.push(format!(
            "{label} (tenant {tenant}): runs under RLS, the guard's SQL fails ({e}): {sql}\n    rewritten: {rewritten}"
        )),
    }
}

/// `sql` without its top-level LIMIT / FETCH, when it has one.
fn without_limit(sql: &str) -> Option<String> {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let mut statements = sqlparser::parser::Parser::parse_sql(&dialect, sql).ok()?;
    let Some(sqlparser::ast::Statement::Query(query)) = statements.first_mut() else {
        return None;
    };
    if query.limit_clause.is_none() && query.fetch.is_none() {
        return None;
    }
    query.limit_clause = None;
    query.fetch = None;
    Some(query.to_string())
}

/// True when `sql` has a top-level LIMIT and returns the same rows under RLS and through the
/// guard without it: the LIMIT picked different rows among ties, which neither side orders.
fn same_without_limit(
    client: &mut postgres::Client,
    guard: &Guard,
    sql: &str,
    vars: &Vars,
) -> bool {
    let Some(unlimited) = without_limit(sql) else {
        return false;
    };
    let Ok(approved) = guard.check_with(&unlimited, vars) else {
        return false;
    };
    matches!(
        (run(client, &unlimited, true), run(client, &approved.sql, false)),
        (Ok(a), Ok(b)) if a == b
    )
}

/// The role the RLS side runs as (created once; it outlives the rolled-back transactions).
fn create_tenant_role(client: &mut postgres::Client) {
    client
        .batch_execute(&format!(
            "DO $$ BEGIN
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') THEN
                 CREATE ROLE {ROLE} NOBYPASSRLS;
               END IF;
             EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
             END $$;"
        ))
        .expect("tenant role");
}

/// The reads compared, `(label, sql)`: the Chinook gold queries (their number is returned too),
/// the Chinook reads of the MCP server's PostgreSQL tests and the escape attempts.
fn reads_of(dir: &std::path::Path) -> (Vec<(String, String)>, usize) {
    let mut reads: Vec<(String, String)> =
        read_jsonl(&dir.join("chinook/chinook_gold_postgres.jsonl"))
            .iter()
            .map(|row| {
                (
                    row["id"].as_str().unwrap_or_default().to_string(),
                    row["sql"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
    let gold = reads.len();
    reads.push(("mcp-1".into(), "SELECT email FROM customer".into()));
    reads.push((
        "mcp-2".into(),
        "SELECT count(*) FROM invoice_line a, invoice_line b".into(),
    ));
    for (i, sql) in ESCAPES.iter().enumerate() {
        reads.push((format!("escape-{:03}", i + 1), (*sql).to_string()));
    }
    (reads, gold)
}

impl Outcome {
    /// Prints every refusal, difference, tie and false refusal, and the totals.
    fn print(&self, reads: usize, gold: usize) {
        let refused: usize = self.refused.values().map(Vec::len).sum();
        let gold_refused = self
            .refused
            .values()
            .flatten()
            .filter(|l| l.starts_with("chinook-"))
            .count();
        for (reason, labels) in &self.refused {
            println!(
                "refused {}x: {reason}\n    {}",
                labels.len(),
                labels.join(", ")
            );
        }
        for d in &self.differences {
            println!("DIFFERENCE {d}");
        }
        if !self.ties.is_empty() {
            println!(
                "tied at the LIMIT (same rows without it) {}x: {}",
                self.ties.len(),
                self.ties.join(", ")
            );
        }
        for f in &self.false_refusals {
            println!("FALSE REFUSAL {f}");
        }
        let total = (reads + MUTATIONS.len()) * TENANTS.len();
        println!(
            "row filters vs RLS: {reads} queries ({gold} gold, {} escape attempts, {} mutations) x {} tenants = {total} checks, {refused} refused (by guard; {gold_refused} gold), {} compared ({} more tied at a LIMIT), {} failed on both sides, {} false refusals, {} differences",
            ESCAPES.len(),
            MUTATIONS.len(),
            TENANTS.len(),
            self.compared,
            self.ties.len(),
            self.both_failed,
            self.false_refusals.len(),
            self.differences.len()
        );
    }
}

#[test]
fn row_filters_match_postgres_row_level_security() {
    let Some(dir) = corpus_dir() else { return };
    let Some(mut client) = common::chinook_client("row filters vs RLS") else {
        return;
    };
    create_tenant_role(&mut client);
    let guard = Guard::new(Policy::from_json(POLICY).expect("policy")).expect("guard");
    let (reads, gold) = reads_of(&dir);
    let mut out = Outcome::default();
    for tenant in TENANTS {
        client.batch_execute("BEGIN").expect("begin");
        client.batch_execute(RLS_SETUP).expect("RLS setup");
        client
            .batch_execute(&format!("SET LOCAL sqlgate.tenant = '{tenant}'"))
            .expect("tenant");
        for (id, sql) in &reads {
            compare(&mut client, &guard, id, sql, tenant, false, &mut out);
        }
        for (i, sql) in MUTATIONS.iter().enumerate() {
            let label = format!("mutation-{:02}", i + 1);
            compare(&mut client, &guard, &label, sql, tenant, true, &mut out);
        }
        client.batch_execute("ROLLBACK").expect("rollback");
    }
    out.print(reads.len(), gold);
    assert!(
        out.differences.is_empty(),
        "{} differences",
        out.differences.len()
    );
    let gold_false: Vec<&String> = out
        .false_refusals
        .iter()
        .filter(|f| f.starts_with("chinook-"))
        .collect();
    assert!(
        gold_false.is_empty(),
        "{} false refusals of gold queries",
        gold_false.len()
    );
    assert!(ESCAPES.len() >= 60);
    assert!(out.compared > 600, "only {} compared", out.compared);
}
